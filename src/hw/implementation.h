// Implementation: how a design is built, beside what it computes (HwConfig's VTA keys) and how its
// memory behaves (TIMING). Every choice the exploration makes lives here, so one config file
// reproduces a design everywhere: where the GEMM products go and how many DSP slices they may take,
// the reduction tree's pipelining, the accumulator's read ports, the ALU's lanes and multiplier, the
// datapath pipelining, module overlap (DATAFLOW), inlining, the clock HLS schedules for, the ACC
// buffer's array partition or reshape and the Vivado strategies. The defaults are VTA's own HLS
// build: no ALU multiplier, products bound as HLS binds them, a DSP allocation that fits the board.
// The JSON form is the config's "IMPLEMENTATION" object (docs/hw_config.md).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace tauvta::hw {

// Where the GEMM core's products are built. kHls follows Vivado HLS's binding, which VTA's own
// builds show (a product of at least 8 bits goes to a DSP slice: the published Ultra96 build of
// VTA's i4w4 config used 268 DSP slices); kAuto follows yosys's rule for Xilinx (at least 9 bits:
// 8x8 yes, 4x4 no); kDsp and kLut force every product one way, as a BIND_OP directive would.
enum class ProductBinding : uint8_t { kAuto = 0, kDsp = 1, kLut = 2, kHls = 3 };
const char* binding_name(ProductBinding b);
// Parses "auto", "dsp", "lut" or "hls"; throws tauvta::Error naming `what` and the value otherwise.
ProductBinding parse_binding(const std::string& text, const std::string& what);
// kAuto's rule (yosys's mul2dsp for Xilinx): both operands at least 2 bits, the product at least 9.
inline bool auto_binds_to_dsp(int inp_width, int wgt_width) {
  return inp_width >= 2 && wgt_width >= 2 && inp_width + wgt_width >= 9;
}
// kHls's rule: both operands at least 2 bits, the product at least 8 (4x4 yes, 2x2 no).
inline bool hls_binds_to_dsp(int inp_width, int wgt_width) {
  return inp_width >= 2 && wgt_width >= 2 && inp_width + wgt_width >= 8;
}
bool binds_to_dsp(ProductBinding b, int inp_width, int wgt_width);

// The ACC buffer's HLS ARRAY_PARTITION / ARRAY_RESHAPE (Table I of the tau-VTA paper).
enum class ArrayKind : uint8_t {
  kNone = 0, kPartitionCyclic, kPartitionBlock, kReshapeCyclic, kReshapeBlock
};
const char* array_kind_name(ArrayKind k);
struct AccArray {
  ArrayKind kind = ArrayKind::kNone;
  int dim = 1;     // 1 depth, 2 lanes
  int factor = 1;  // memories (partition) or words side by side (reshape)
  friend bool operator==(const AccArray&, const AccArray&) = default;
};

struct Implementation {
  static constexpr int kDspLimitBoard = -1;  // dsp_limit: the board's DSPs less a margin, if needed
  ProductBinding binding = ProductBinding::kHls;
  // At most this many products in DSP slices, the rest in LUTs (an HLS ALLOCATION limit); 0 no
  // limit; kDspLimitBoard: whatever fits the board the design is built for (fpga/).
  int dsp_limit = kDspLimitBoard;
  static constexpr int kTreeVta = -1;  // tree_levels_per_stage: VTA's GEMM pipeline (below)
  // Adder levels of the reduction tree between two pipeline registers; 0: the whole tree in one
  // stage. kTreeVta: one register, before the tree's last level, so the GEMM core takes 4 cycles
  // (operands, products, tree, accumulate): the depth VTA's HLS design is measured to have.
  int tree_levels_per_stage = kTreeVta;
  // 1 (VTA's HLS design): an ALU micro-op reads its destination and source one after the other,
  // so it issues every 2 cycles; 2: the buffer is duplicated and the ALU issues every cycle.
  int acc_read_ports = 1;
  int alu_lanes = 0;           // lanes the ALU processes per pass; 0 = the whole vector at once
  bool alu_mul = false;        // the MUL micro-op (an extension: VTA's HLS hardware lacks it)
  bool pipeline = true;        // pipelined datapath (a micro-op per II); false: one at a time
  bool dataflow = true;        // load, compute and store overlap (HLS DATAFLOW; VTA's design)
  bool inline_modules = true;  // flattened hierarchy; false: a start/done handshake per instruction
  double hls_mhz = 0;          // the clock HLS scheduled for; 0 = TIMING.CLOCK_MHZ
  AccArray acc_array;
  int syn_strategy = 0;        // Vivado synthesis strategy index (no physical model: recorded)
  int impl_strategy = 0;       // Vivado implementation strategy index (recorded)
  friend bool operator==(const Implementation&, const Implementation&) = default;
};

// Reads an "IMPLEMENTATION" object into `out` (keys absent keep their value). Throws tauvta::Error
// naming `source`, the key and the value for an unknown key, a wrong type or an out-of-range value.
void parse_implementation(const nlohmann::json& j, const std::string& source, Implementation& out);
nlohmann::json to_json(const Implementation& impl);
void validate(const Implementation& impl, const std::string& source);

// The adder levels per tree stage `impl` builds for a GEMM core reducing `block_in` products
// (kTreeVta resolved).
int tree_levels_per_stage(const Implementation& impl, int block_in);

// The cycles the datapath an implementation builds takes, for a GEMM core reducing `block_in`
// products and an ALU over `alu_vector` lanes: what the generator builds (rtl/datapath_shape.h
// reads these) and what the timing model's derived TIMING keys are (HwConfig::from_json).
struct DatapathTiming {
  int tree_registers = 0;    // registered adder levels
  int gemm_latency = 0;      // operands in to results out
  int alu_lanes = 0;         // lanes built
  int alu_passes = 1;        // passes per vector
  int alu_latency = 0;
  int alu_issue_cycles = 0;  // cycles between ALU micro-ops in the generated datapath
  // The timing model's parameters for this datapath.
  int gemm_ii = 1, alu_ii = 2, gemm_pipeline_depth = 4, alu_pipeline_depth = 4, insn_overhead = 1;
};
DatapathTiming datapath_timing(const Implementation& impl, int block_in, int alu_vector);

}  // namespace tauvta::hw
