// DatapathShape: the structure of the datapath the RTL generator builds for a HwConfig and a set
// of implementation choices (product binding, tree pipelining, accumulator read ports): multiplier
// counts and widths, reduction-tree levels and registers, ALU lanes and passes, pipeline
// latencies, buffer geometries. The generator emits exactly this shape and the resource and clock
// model (fpga/) prices exactly this shape, so the two cannot drift apart. Cheap: no allocation.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "hw/hw_config.h"

namespace tauvta::rtl {

// Where the GEMM core's products are built (hw/implementation.h has the rules).
using hw::ProductBinding;
using hw::binding_name;
using hw::parse_binding;
using hw::auto_binds_to_dsp;

// The implementation choices the generator and the resource model take, resolved for one device:
// a config's IMPLEMENTATION with its DSP limit a number (fpga::rtl_options resolves "board").
struct RtlOptions {
  ProductBinding binding = ProductBinding::kHls;
  // Adder levels of the reduction tree between two pipeline registers (HLS pipelining depth);
  // 0 puts the whole tree in one stage.
  int tree_levels_per_stage = 0;
  // Read ports of the accumulator buffer. 1 (VTA's HLS design): an ALU micro-op reads its
  // destination and its source one after the other, so the ALU issues every 2 cycles. 2: the
  // buffer is duplicated (array partition / a second BRAM copy) and the ALU issues every cycle.
  int acc_read_ports = 1;
  // At most this many products in DSP slices (0: no limit); the rest are built in LUTs, as an HLS
  // ALLOCATION limit would. How a design with more products than the device has DSPs fits.
  int max_dsp_products = 0;
  hw::AccArray acc_array;  // the ACC buffer's partition or reshape (priced by the resource model)
  friend bool operator==(const RtlOptions&, const RtlOptions&) = default;
};

// The options `config`'s IMPLEMENTATION states (its tree pipelining resolved for its BLOCK_IN),
// with `max_dsp_products` for its DSP limit (a number already, or what the caller resolved "board" to).
RtlOptions options_of(const hw::HwConfig& config, int max_dsp_products);

// Throws tauvta::Error naming the option when out of range.
void validate(const RtlOptions& options, const std::string& source = "rtl options");

// One on-chip buffer: `copies` identical memories of `depth` words of `width` bits.
struct BufferShape {
  const char* name = "";
  int width = 0;       // bits per word (one VTA element)
  int log_depth = 0;   // words = 2^log_depth
  int copies = 1;      // read-port copies (ACC with 2 read ports)
  uint64_t bits() const { return uint64_t(width) << log_depth; }
};

enum class BufferId : uint8_t { kUop = 0, kInp, kWgt, kAcc, kOut };
inline constexpr int kNumBuffers = 5;

struct DatapathShape {
  // GEMM core.
  int batch = 1, block_in = 1, block_out = 1;
  int inp_width = 8, wgt_width = 8, acc_width = 32, out_width = 8;
  int products = 0;             // BATCH * BLOCK_IN * BLOCK_OUT multipliers
  int product_width = 0;        // bits of one product (inp + wgt, capped at the accumulator's)
  bool products_in_dsp = false; // after the binding rule (before the DSP limit)
  int dsp_products = 0;         // products built in DSP slices (the rest in LUTs)
  int tree_levels = 0;          // ceil(log2 BLOCK_IN) adder levels per output lane
  int tree_adders = 0;          // two-input adders in all trees (BATCH*BLOCK_OUT*(BLOCK_IN-1))
  int tree_levels_per_stage = 0;  // the option, as built
  int tree_registers = 0;       // registered tree levels
  int dot_width = 0;            // tree result bits (capped at the accumulator width)
  int gemm_latency = 0;         // cycles from operands in to results out
  // Tensor ALU.
  int alu_vector = 0;   // lanes of one accumulator vector (BATCH * BLOCK_OUT)
  int alu_lanes = 0;    // lanes built
  int alu_passes = 0;   // passes per vector (ceil(vector / lanes))
  bool alu_mul = false;
  int alu_latency = 0;  // cycles from operands in to results out
  int alu_issue_cycles = 0;  // cycles between ALU micro-ops (reads and passes)
  int acc_read_ports = 1;
  std::array<BufferShape, kNumBuffers> buffers{};
  const BufferShape& buffer(BufferId id) const { return buffers[size_t(id)]; }
  // Whether adder level `level` (1-based) of the reduction tree ends in a pipeline register:
  // every tree_levels_per_stage levels, never the last (the accumulate stage registers it).
  bool tree_level_registered(int level) const {
    return tree_levels_per_stage > 0 && level % tree_levels_per_stage == 0 && level < tree_levels;
  }
};

// The shape the generator builds for `config` and `options` (validated by the caller).
DatapathShape shape_of(const hw::HwConfig& config, const RtlOptions& options);

// What yosys builds from this shape, module by module, is counted in rtl/netlist_features.h.

}  // namespace tauvta::rtl
