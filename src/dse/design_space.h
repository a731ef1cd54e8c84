// The hardware design space the exploration searches, for one device and one precision: VTA's
// architectural knobs (BATCH, BLOCK_IN, BLOCK_OUT, accumulator width, the four buffer sizes, bus
// width, ALU lanes, accumulator read ports, ALU MUL) and tau-VTA's implementation features (Table
// I: HLS and implementation clock, pipeline, unroll, dataflow, inline, array partition/reshape
// type, dim and factor, synthesis and implementation strategies, plus the product binding an HLS
// BIND_OP/ALLOCATION directive sets). A design is one value index per knob. Constraints are
// tau-VTA's irrelevant-feature elimination: each names the combinations that cannot change the
// result (or only for the worse at no saving) and is checked as soon as its knobs are set, so the
// pruned space is enumerated without walking the raw one. docs/dse.md gives every knob's values,
// what it maps to, and every constraint.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fpga/device.h"
#include "hw/hw_config.h"

namespace tauvta::dse {

enum class Knob : uint8_t {
  kBatch = 0,     // BATCH
  kBlockIn,       // BLOCK_IN
  kBlockOut,      // BLOCK_OUT
  kAccWidth,      // accumulator bits
  kInpBuf,        // log2 bytes of each buffer
  kWgtBuf,
  kAccBuf,
  kUopBuf,
  kBusWidth,      // AXI data bits
  kAluLanes,      // Table I "Unroll" of the ALU's lane loop: lanes built (0 = complete)
  kAccPorts,      // accumulator read ports (1, or 2 by duplicating the buffer)
  kAluMul,        // MUL micro-op built
  kBinding,       // where GEMM products go: 0 auto (yosys's rule), 1 DSP, 2 LUT
  kDspLimit,      // 0 no limit, 1 at most the device's DSPs (less a margin) for products
  kHlsMhz,        // clock HLS schedules for: sets the adder-tree pipelining
  kImplMhz,       // clock the design is implemented and run at
  kPipeline,      // 1: pipelined datapath (II=1); 0: each micro-op through before the next
  kDataflow,      // 1: load/compute/store overlap; 0: one instruction at a time
  kInline,        // 1: flattened hierarchy; 0: a sub-module handshake per instruction
  kArrayType,     // ACC buffer: 0 none, 1 partition cyclic, 2 partition block, 3 reshape cyclic, 4 reshape block
  kArrayDim,      // 1 depth, 2 lanes
  kArrayFactor,   // 2..32
  kSynStrategy,   // Vivado synthesis strategy index (8)
  kImplStrategy,  // Vivado implementation strategy index (32)
  kCount
};
inline constexpr int kNumKnobs = int(Knob::kCount);
const char* knob_name(Knob k);  // "block_in", "hls_mhz", ...

// One value index per knob.
using Design = std::array<uint8_t, kNumKnobs>;

struct SpaceOptions {
  int precision = 8;           // input and weight bits: 1, 2, 4 or 8
  int workload_batch = 1;      // the batch the workload runs at (BATCH above it idles lanes)
  const fpga::Device* device = nullptr;
};

class DesignSpace {
 public:
  // Throws tauvta::Error for a precision other than 1/2/4/8, a batch below 1 or no device.
  explicit DesignSpace(const SpaceOptions& o);

  const SpaceOptions& options() const { return options_; }
  const fpga::Device& device() const { return *options_.device; }
  int precision() const { return options_.precision; }

  // The values knob `k` takes (its raw range); value(d, k) is the value design `d` chose.
  const std::vector<int>& values(Knob k) const { return values_[size_t(k)]; }
  int value(const Design& d, Knob k) const { return values_[size_t(k)][d[size_t(k)]]; }

  double raw_size() const;  // the product of every knob's value count

  // The first constraint `d` violates (its name and why), nullopt when `d` is in the pruned space.
  std::optional<std::string> violation(const Design& d) const;
  // Every design of the pruned space, in a fixed order (the knobs' order, values ascending).
  // `visit` returning false stops the walk.
  void enumerate(const std::function<bool(const Design&)>& visit) const;
  std::vector<Design> pruned() const;

  // A design with every knob at its default (VTA's Pynq-Z1 design at this precision).
  Design default_design() const;
  // Index of `value` among knob `k`'s values; nullopt when it is not one.
  std::optional<uint8_t> index_of(Knob k, int value) const;

  // The config the workload's tasks are extracted on for design `d`: its architecture with the
  // largest buffers the space offers that the ISA can address at its blocking (a layer the compiler
  // places on the CPU there has no design of that class that runs it). The same for every design
  // of one precision, accumulator, BATCH and blocking.
  hw::HwConfig task_host(const Design& d) const;

  // "b1_bi16_bo16_acc32_..._arr0-1-2": every knob's value, stable across runs: the cache key.
  std::string key(const Design& d) const;
  // The design's knob values as numbers (the models' features; strategies' indices omitted).
  std::vector<float> features(const Design& d) const;
  static std::vector<std::string> feature_names();

  struct Constraint {
    const char* name;
    Knob last;  // the latest knob (in order) it reads: checked once that one is set
    std::function<const char*(const DesignSpace&, const Design&)> why;  // null when satisfied
  };
  const std::vector<Constraint>& constraints() const { return constraints_; }

 private:
  // Input and weight buffers hold as many elements at every precision as VTA's 8-bit sizes (its
  // W4A4/W2A2/W1A1 presets scale them the same way): log2 bytes less 3 - log2(precision).
  int buffer_shrink() const;
  // `base` with every combination of the four buffer knobs' values.
  void each_buffers(const Design& base, const std::function<void(const Design&)>& visit) const;

  SpaceOptions options_;
  std::array<std::vector<int>, kNumKnobs> values_;
  std::vector<Constraint> constraints_;
};

}  // namespace tauvta::dse
