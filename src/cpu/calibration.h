// Calibration: runs the float reference over sample inputs and gathers, for every graph input and
// every float value a node produces, the statistics the quantization pass picks binary points
// from (graph::ValueHistogram: extremes and a magnitude histogram, so max, percentile and MSE can
// all be chosen afterwards).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cpu/float_executor.h"
#include "graph/graph.h"
#include "graph/quantize.h"

namespace tauvta::cpu {

class Calibrator {
 public:
  explicit Calibrator(const graph::Graph& g) : g_(g) {}
  // Runs one batch (every graph input given) and adds its values to the statistics.
  void add_batch(const TensorMap& inputs);
  int64_t batches() const { return batches_; }
  const graph::CalibrationStats& stats() const { return stats_; }

 private:
  const graph::Graph& g_;
  graph::CalibrationStats stats_;
  int64_t batches_ = 0;
};

// Every batch through a Calibrator; `progress(done, total)` after each.
graph::CalibrationStats calibrate(const graph::Graph& g, const std::vector<TensorMap>& batches,
                                  const std::function<void(int64_t, int64_t)>& progress = {});

// The binary point each calibrated activation would get at `bits` (for reports).
std::map<std::string, int> activation_formats(const graph::CalibrationStats& stats, int bits,
                                              graph::CalibStatistic stat, double percentile);

}  // namespace tauvta::cpu
