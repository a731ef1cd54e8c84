#include "backend/rtl_report.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tauvta::backend {

namespace {

double relative(uint64_t rtl, uint64_t model) {
  return model == 0 ? 0.0 : (double(rtl) - double(model)) / double(model);
}

bool compared(const NetworkLayer& l, const LayerRun& r) {
  return l.placement == Placement::kVta && l.program_layer >= 0 && r.report.cycles > 0;
}

}  // namespace

RtlComparison rtl_comparison(const CompiledNetwork& net, const NetworkRun& run) {
  RtlComparison c;
  std::vector<double> errors;
  for (size_t i = 0; i < net.layers.size(); ++i) {
    if (!compared(net.layers[i], run.layers[i])) continue;
    const double e = std::abs(relative(run.layers[i].rtl_cycles, run.layers[i].report.cycles));
    errors.push_back(e);
    if (e >= c.max_abs_error) c.max_abs_error = e, c.worst_layer = net.layers[i].name;
  }
  c.layers = errors.size();
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    const size_t n = errors.size();
    c.median_abs_error = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  }
  return c;
}

std::string rtl_comparison_table(const CompiledNetwork& net, const NetworkRun& run) {
  std::string s = fmt::format("\nRTL (tauvta_accelerator in Verilator, bit-exact with the simulator) "
                              "against the timing model\n{:<28} {:>12} {:>12} {:>8} {:>12}\n",
                              "layer", "RTL cycles", "model", "error", "acc hazard");
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const LayerRun& r = run.layers[i];
    if (!compared(net.layers[i], r)) continue;
    s += fmt::format("{:<28} {:>12} {:>12} {:>+7.2f}% {:>12}\n", net.layers[i].name, r.rtl_cycles,
                     r.report.cycles, 100 * relative(r.rtl_cycles, r.report.cycles),
                     r.rtl.counter("compute_hazard_stall"));
  }
  const RtlComparison c = rtl_comparison(net, run);
  s += fmt::format("{:<28} {:>12} {:>12} {:>+7.2f}%\n", "total", run.rtl_cycles, run.total.cycles,
                   100 * relative(run.rtl_cycles, run.total.cycles));
  s += fmt::format("over {} layers: median |error| {:.2f}%, largest {:.2f}% ({})\n", c.layers,
                   100 * c.median_abs_error, 100 * c.max_abs_error, c.worst_layer);
  return s;
}

nlohmann::json rtl_comparison_json(const CompiledNetwork& net, const NetworkRun& run) {
  nlohmann::json layers = nlohmann::json::array();
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const LayerRun& r = run.layers[i];
    if (!compared(net.layers[i], r)) continue;
    nlohmann::json counters = nlohmann::json::object();
    for (size_t k = 0; k < rtl::kAcceleratorCounters.size(); ++k) counters[rtl::kAcceleratorCounters[k]] = r.rtl.counters[k];
    layers.push_back({{"layer", net.layers[i].name},
                      {"rtl_cycles", r.rtl_cycles},
                      {"rtl_counters", counters},
                      {"model_cycles", r.report.cycles},
                      {"error", relative(r.rtl_cycles, r.report.cycles)}});
  }
  const RtlComparison c = rtl_comparison(net, run);
  return {{"layers", layers},
          {"rtl_cycles", run.rtl_cycles},
          {"model_cycles", run.total.cycles},
          {"error", relative(run.rtl_cycles, run.total.cycles)},
          {"median_abs_error", c.median_abs_error},
          {"max_abs_error", c.max_abs_error},
          {"worst_layer", c.worst_layer}};
}

}  // namespace tauvta::backend
