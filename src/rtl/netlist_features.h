// Netlist features: what yosys 0.23's synth_xilinx builds from the generated accelerator, counted
// from the design's shape and the FPGA family. They are the one description of the netlist: the
// terms of the resource model's fitted closed forms (fpga/), the "features" of design.json, the
// f_ columns of the synthesis grid and the inputs of the report correction. Every module of the
// accelerator the model prices from synthesis (the GEMM core, the tensor ALU, and fetch, load,
// compute control, store, the queues and the control slave) is one linear combination of them.
//
// The GEMM core's sums are counted the way yosys builds them: every sum of more than two
// operands (a LUT product's partial products, the adds of one pipeline stage with the
// accumulate in the last) becomes one carry-save compressor tree and a final carry chain
// (alumacc + maccmap), whose LUTs grow with the operand bits and, because ABC merges and
// duplicates the compressor levels, with the tree's depth; a two-operand add is one LUT per bit
// of its wider operand on the carry chain. tools/synth/README.md shows the measurements.
#pragma once

#include <array>
#include <cstdint>

#include "hw/hw_config.h"
#include "rtl/datapath_shape.h"

namespace tauvta::rtl {

// The FPGA families the calibration synthesizes for (yosys synth_xilinx -family xc7 / xcup).
enum class Family : unsigned char { kXc7 = 0, kXcup = 1 };
inline constexpr int kNumFamilies = 2;
const char* family_name(Family f);  // "xc7", "xcup"

// The modules priced from synthesis, in the order hw resources lists them.
enum class NetlistModule : unsigned char {
  kGemm = 0,      // tauvta_gemm_core
  kAlu,           // tauvta_alu
  kFetch,         // tauvta_fetch with its read master and instruction buffer
  kLoad,          // tauvta_load: the INP and WGT load engines and their read master
  kComputeCtrl,   // tauvta_compute_ctrl: the UOP and ACC load engines, its read master
  kStore,         // tauvta_store with its element queue, packer and write master
  kCmdQueues,     // the three command queues (tauvta_fifo)
  kTokenQueues,   // the four dependency-token queues
  kControl,       // tauvta_control: the AXI4-Lite slave and the event counters
  kCompute,       // tauvta_compute's own logic: micro-op loops, decode, hazard check, write-back
  kCount
};
inline constexpr int kNumNetlistModules = int(NetlistModule::kCount);
const char* module_name(NetlistModule m);  // "gemm", "alu", "fetch", ... (design.json, the CSVs)

enum class NetlistFeature : unsigned char {
  kOne,
  // GEMM core
  kDspProducts,        // products in DSP slices
  kLutPpBits,          // LUT products: partial-product bits below the product width
  kLutPpDepthBits,     // the same x log2 of the partial-product rows (the compressor's depth)
  kAdd2Bits,           // two-operand adds: bits of the wider operand (one LUT per carry bit)
  kCsaBits,            // multi-operand adds: operand bits into the compressor
  kCsaDepthBits,       // the same x its carry-save levels (Dadda: 3:2 levels down to two rows)
  kCsaLuts,            // the same x the LUTs per operand bit of such a sum synthesized alone
  kDelaySrl,           // accumulator delay chains of 3+ registers (one SRL16E per bit)
  kOperandFf,          // operand registers outside DSP slices
  kProductRegFf,       // product registers outside DSP slices
  kTreeRegFf,          // registered tree levels outside DSP slices
  kAccFf,              // accumulator result registers
  kOutLaneBits,        // the OUT bits of the sum that the output reads
  kDelayFf,            // accumulator delay chains of 1-2 registers, in flip-flops
  // Tensor ALU
  kAluLaneBits,            // lanes x ACC
  kAluShiftBits,           // lanes x ACC x ceil(log2 ACC): the shifter's multiplexer levels
  kAluMulDsp,              // DSPs of the MUL lanes: k(k+1)/2 per lane, k = ceil(ACC/17)
  kAluPassBits,            // lanes x ACC x passes when the ALU runs in passes
  kAluSinglePassBits,      // lanes x ACC when a whole vector goes through at once
  kAluMultiPassLaneBits,   // lanes x ACC when it runs in passes
  kAluOperandBits,         // 2 x vector x ACC operand registers
  // The accelerator around the datapath (fetch, load, compute control, store, queues, control)
  kBusBits,            // AXI data bits: the R/W beat path of the module's master
  kElemBits,           // element bits of the module's streams (the write-data and gather registers)
  kNarrowLaneMuxBits,  // elements read narrower than a beat: element bits x LUT6s of a (beat / element):1 mux
  kWideGatherBits,     // elements wider than a beat: the beats held until the element is whole
  kAddrBits,           // buffer address bits of the module's streams
  kHostBits,           // the compute module's buffer write port (micro-ops and accumulators)
  kQueuePtrBits,       // queue pointer and count bits (their memories: queue_memory below)
  kCount
};
inline constexpr int kNumNetlistFeatures = int(NetlistFeature::kCount);
const char* feature_name(NetlistFeature f);
using NetlistFeatures = std::array<double, kNumNetlistFeatures>;

// The features of `module` of the design `config` generates with `shape` (shape_of(config, o)),
// synthesized for `family`. Allocation-free: the resource model calls it per estimate.
NetlistFeatures netlist_features(NetlistModule module, const hw::HwConfig& config,
                                 const DatapathShape& shape, Family family);

// The memory of a module's queues (tauvta_fifo: fetch's instruction buffer, store's element
// queue, the command queues): `count` memories of `width` bits x 2^log_depth words. Priced by
// the memory-mapping rule like the buffers (fpga/bram_mapping.h), not by the closed form.
struct QueueMemory {
  int width = 0, log_depth = 0, count = 0;
};
QueueMemory queue_memory(NetlistModule module, const hw::HwConfig& config, const DatapathShape& shape);

}  // namespace tauvta::rtl
