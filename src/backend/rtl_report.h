// The RTL backend's figures beside the timing model's, per accelerator layer of a network run
// (NetworkRun::on_rtl): cycles of the generated accelerator in Verilator, the timing model's,
// and their difference, with the median and largest |difference| over the layers.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "backend/network.h"
#include "backend/network_runner.h"

namespace tauvta::backend {

struct RtlComparison {
  size_t layers = 0;
  double median_abs_error = 0, max_abs_error = 0;  // fractions, over layers with model cycles
  std::string worst_layer;
};
RtlComparison rtl_comparison(const CompiledNetwork& net, const NetworkRun& run);
std::string rtl_comparison_table(const CompiledNetwork& net, const NetworkRun& run);
nlohmann::json rtl_comparison_json(const CompiledNetwork& net, const NetworkRun& run);

}  // namespace tauvta::backend
