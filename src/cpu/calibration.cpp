#include "cpu/calibration.h"

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::cpu {

using graph::DType;
using graph::Tensor;

namespace {

void add_tensor(graph::ValueHistogram& h, const Tensor& t) {
  if (t.dtype() == DType::kFloat32) {
    h.add(t.floats());
  } else if (t.dtype() == DType::kFloat64) {
    const std::vector<float> v = t.to_float();
    h.add(v);
  }
}

}  // namespace

void Calibrator::add_batch(const TensorMap& inputs) {
  for (const std::string& i : g_.inputs) {
    auto it = inputs.find(i);
    if (it == inputs.end()) throw Error(fmt::format("calibration: graph input '{}' was not given", i));
    add_tensor(stats_[i], it->second);
  }
  run_float(g_, inputs, [this](const graph::Node& n, const std::vector<const Tensor*>& outs) {
    for (size_t k = 0; k < outs.size() && k < n.outputs.size(); ++k) {
      if (outs[k] == nullptr || n.outputs[k].empty()) continue;
      const DType t = outs[k]->dtype();
      if (t == DType::kFloat32 || t == DType::kFloat64) add_tensor(stats_[n.outputs[k]], *outs[k]);
    }
  });
  ++batches_;
}

graph::CalibrationStats calibrate(const graph::Graph& g, const std::vector<TensorMap>& batches,
                                  const std::function<void(int64_t, int64_t)>& progress) {
  Calibrator c(g);
  for (size_t i = 0; i < batches.size(); ++i) {
    c.add_batch(batches[i]);
    if (progress) progress(int64_t(i + 1), int64_t(batches.size()));
  }
  return c.stats();
}

std::map<std::string, int> activation_formats(const graph::CalibrationStats& stats, int bits,
                                              graph::CalibStatistic stat, double percentile) {
  std::map<std::string, int> out;
  for (const auto& [name, h] : stats) out[name] = graph::choose_frac_bits(h, bits, stat, percentile);
  return out;
}

}  // namespace tauvta::cpu
