// One workload on the accelerator, as `tauvta op` and the operator tests run it: random operands
// of the config's widths, the layer lowered with a given schedule, run on the simulated board
// (or timed only), and checked bit for bit against the integer reference's QConv/QGemm.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "hw/hw_config.h"
#include "lower/conv_lowering.h"
#include "sim/report.h"

namespace tauvta::backend {

struct OpRunOptions {
  bool timing_only = false;
  bool check_hazards = false;
  uint64_t seed = 1;
  // A random per-channel bias. Off by default: TVM's tuned VTA tasks are the convolution with a
  // shift and clip, no bias, and their schedules may fill the whole accumulator SRAM, which a
  // bias vector would not leave room for.
  bool bias = false;
  // Run a TVM record as its template ran on the board: the weight tile loaded for every batch
  // block (lower::ConvLayerSpec::weights_per_batch_block). The requantization stays tauvta's
  // (docs/timing_model.md, "TVM's templates", on the tuning tasks' three ALU stages).
  bool tvm_template = false;
};

struct OpRun {
  lower::Schedule schedule;
  sim::RunReport report;
  uint64_t macs = 0;
  double seconds_at_clock = 0;
  double gops = 0;
  bool verified = false;          // full runs: outputs equal the integer reference
  std::string mismatch;           // the first differing element, when not verified
  uint64_t insns = 0;
};

// Random operands for a workload: weights, a bias (when `bias`), one shift chosen so outputs use
// the whole range (kept small enough for immediate rounding without a bias), ReLU-style clip.
lower::ConvLayerSpec random_layer(const hw::HwConfig& c, const lower::ConvWorkload& w, uint64_t seed,
                                  bool bias = false);

// The integer reference's output (NCHW) of `spec` on input `x` (NCHW).
std::vector<int64_t> reference_output(const hw::HwConfig& c, const lower::ConvLayerSpec& spec,
                                      const std::vector<int64_t>& x);

// `s` empty: the default heuristic for this layer (its requantization's ACC needs included).
OpRun run_op(const hw::HwConfig& c, const lower::ConvWorkload& w, const std::optional<lower::Schedule>& s,
             const OpRunOptions& options = {});

}  // namespace tauvta::backend
