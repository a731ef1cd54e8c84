#include "fpga/resource_report.h"

#include <optional>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "fpga/design_options.h"
#include "fpga/implementation_reports.h"
#include "fpga/resource_model.h"

namespace tauvta::fpga {
namespace {

nlohmann::json resources_json(const Resources& r) {
  return {{"LUT", r.lut}, {"FF", r.ff}, {"DSP", r.dsp}, {"BRAM36", r.bram36}, {"URAM", r.uram}};
}

nlohmann::json estimate_json(const ResourceEstimate& e, const Device& d) {
  nlohmann::json parts = nlohmann::json::object();
  for (int p = 0; p < kNumParts; ++p) {
    parts[part_name(Part(p))] = resources_json(e.parts[size_t(p)]);
  }
  nlohmann::json util = nlohmann::json::object();
  for (int k = 0; k < kNumResourceKinds; ++k) {
    util[resource_name(ResourceKind(k))] = e.utilization[size_t(k)];
  }
  nlohmann::json stages = nlohmann::json::object();
  for (int s = 0; s < kNumStages; ++s) {
    stages[stage_name(Stage(s))] = e.clock.stage_ns[s];
  }
  return {{"device", d.name},
          {"part", d.part},
          {"family", family_name(d.family)},
          {"speed_grade", d.speed_grade},
          {"device_total", resources_json(d.total)},
          {"device_clock_mhz", d.target_mhz},
          {"parts", parts},
          {"total", resources_json(e.total)},
          {"utilization", util},
          {"stage_ns", stages},
          {"critical_stage", stage_name(e.clock.critical)},
          {"fmax_mhz", e.clock.fmax_mhz},
          {"target_mhz", e.target_mhz},
          {"feasible", e.feasible()},
          {"verdict", verdict_text(e, d)}};
}

std::string estimate_table(const ResourceEstimate& e, const Device& d) {
  std::string s = fmt::format("device      {} ({}, {}, speed grade {}); VTA's clock there {:.0f} MHz\n",
                              d.board, d.part, family_name(d.family), d.speed_grade,
                              d.target_mhz);
  s += fmt::format("{:<16} {:>9} {:>9} {:>6} {:>7} {:>5}\n", "part", "LUT", "FF", "DSP", "BRAM36",
                   "URAM");
  auto row = [&](const std::string& name, const Resources& r) {
    s += fmt::format("{:<16} {:>9.0f} {:>9.0f} {:>6.0f} {:>7.1f} {:>5.0f}\n", name, r.lut, r.ff,
                     r.dsp, r.bram36, r.uram);
  };
  for (int p = 0; p < kNumParts; ++p) row(part_name(Part(p)), e.parts[size_t(p)]);
  row("total", e.total);
  row("device", d.total);
  s += fmt::format("{:<16} {:>8.1f}% {:>8.1f}% {:>5.1f}% {:>6.1f}% {:>4.1f}%\n", "utilization",
                   100 * e.utilization[0], 100 * e.utilization[1], 100 * e.utilization[2],
                   100 * e.utilization[3], 100 * e.utilization[4]);
  s += "clock       ";
  for (int k = 0; k < kNumStages; ++k) {
    if (e.clock.stage_ns[k] <= 0) continue;
    s += fmt::format("{}{} {:.2f} ns", k ? ", " : "", stage_name(Stage(k)),
                     e.clock.stage_ns[k]);
  }
  s += fmt::format("\n            fmax {:.0f} MHz (critical: {}); the config's clock {:.0f} MHz\n",
                   e.clock.fmax_mhz, stage_name(e.clock.critical), e.target_mhz);
  s += fmt::format("verdict     {}\n", verdict_text(e, d));
  return s;
}

}  // namespace

nlohmann::json resource_report(const ResourceReportRequest& a, std::string* text) {
  const hw::HwConfig& c = a.config;
  if (!(a.max_util > 0 && a.max_util <= 1)) {
    throw Error(fmt::format("--max-utilization = {} is out of range (0, 1]", a.max_util));
  }
  std::vector<const Device*> devs;
  if (a.device == "all") {
    for (const Device& d : devices()) devs.push_back(&d);
  } else {
    devs.push_back(&device_of(c, a.device));
  }
  nlohmann::json out = {{"config", c.to_json()},
                        {"name", c.name()},
                        {"max_utilization", a.max_util},
                        {"estimates", nlohmann::json::array()}};
  std::string table = fmt::format("config      {}\n", c.name());
  bool fits_any = false;
  const ModelLimits limits{a.max_util};
  std::optional<ImplementationReports> reports;
  std::optional<ResourceCorrection> correction;
  if (!a.reports.empty()) {
    reports = ImplementationReports::load(a.reports);
    if (reports->designs().size() >= 3) correction = ResourceCorrection::train(*reports);
  }
  for (const Device* d : devs) {
    const rtl::RtlOptions opts = rtl_options(c, *d);
    ResourceEstimate e = estimate_resources(c, opts, *d, limits);
    std::string source = "model";
    if (reports) {
      if (const ImplementedDesign* r = reports->find(c, opts, *d)) {
        e = from_report(*r, e, *d, limits);
        source = fmt::format("implementation report {}:{}", a.reports, r->line);
      } else if (correction) {
        e = correction->apply(e, c, opts, *d, limits);
        source = fmt::format("model corrected by {} implementation reports", correction->trained_on());
      }
    }
    nlohmann::json j = estimate_json(e, *d);
    j["source"] = source;
    // The implementation as built on this device (the DSP limit "board" resolved).
    j["options"] = {{"binding", rtl::binding_name(opts.binding)},
                    {"tree_levels_per_stage", opts.tree_levels_per_stage},
                    {"acc_read_ports", opts.acc_read_ports},
                    {"max_dsp_products", opts.max_dsp_products},
                    {"acc_array", hw::array_kind_name(opts.acc_array.kind)}};
    fits_any |= e.feasible();
    out["estimates"].push_back(j);
    table += estimate_table(e, *d) +
             fmt::format("built as    products {}{}, {} tree level(s) per stage, {} ACC read port(s), ALU {}{}\n",
                         rtl::binding_name(opts.binding),
                         opts.max_dsp_products > 0 ? fmt::format(" (at most {} in DSP slices)", opts.max_dsp_products)
                                                   : std::string(),
                         opts.tree_levels_per_stage, opts.acc_read_ports,
                         c.impl.alu_lanes == 0 ? std::string("all lanes") : fmt::format("{} lanes", c.impl.alu_lanes),
                         c.impl.alu_mul ? " with MUL" : " without MUL") +
             fmt::format("source      {}\n\n", source);
  }
  out["fits"] = fits_any;
  if (text) *text = table;
  return out;
}

}  // namespace tauvta::fpga
