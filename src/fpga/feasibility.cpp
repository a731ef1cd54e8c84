#include "fpga/feasibility.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fpga/design_options.h"
#include "fpga/resource_model.h"

namespace tauvta::fpga {

Feasibility feasibility(const hw::HwConfig& config) {
  Feasibility f;
  f.device = device_for_target(config.target);
  if (!f.device) return f;
  const ResourceEstimate e = estimate_resources(config, *f.device);
  f.fits = e.over_mask == 0;
  f.closes_clock = !e.misses_clock;
  f.fmax_mhz = e.clock.fmax_mhz;
  f.verdict = verdict_text(e, *f.device);
  return f;
}

nlohmann::json to_json(const Feasibility& f) {
  if (!f.device) return {{"device", nullptr}, {"judged", false}};
  return {{"device", f.device->name}, {"judged", true},       {"fits", f.fits},
          {"closes_clock", f.closes_clock}, {"fmax_mhz", f.fmax_mhz}, {"verdict", f.verdict}};
}

std::string feasibility_warning(const hw::HwConfig& config, const Feasibility& f) {
  if (!f.device || f.ok()) return "";
  return fmt::format("warning: these figures are for {} at {:g} MHz, which the {} cannot build as configured: {} "
                     "(tauvta hw resources)",
                     config.name(), config.timing.clock_mhz, f.device->board, f.verdict);
}

}  // namespace tauvta::fpga
