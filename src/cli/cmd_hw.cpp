// tauvta hw resources [CONFIG] [--device D|all]: what the design takes on an FPGA (per part
// LUT/FF/DSP/BRAM/URAM, totals, utilization), the clock its datapath closes and whether it fits.
#include <iostream>
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "cli/hw_resources.h"
#include "cli/rtl_option_args.h"
#include "common/error.h"
#include "fpga/design_options.h"
#include "fpga/implementation_reports.h"
#include "fpga/resource_model.h"

namespace tauvta::cli {
namespace {

nlohmann::json resources_json(const fpga::Resources& r) {
  return {{"LUT", r.lut}, {"FF", r.ff}, {"DSP", r.dsp}, {"BRAM36", r.bram36}, {"URAM", r.uram}};
}

nlohmann::json estimate_json(const fpga::ResourceEstimate& e, const fpga::Device& d) {
  nlohmann::json parts = nlohmann::json::object();
  for (int p = 0; p < fpga::kNumParts; ++p) {
    parts[fpga::part_name(fpga::Part(p))] = resources_json(e.parts[size_t(p)]);
  }
  nlohmann::json util = nlohmann::json::object();
  for (int k = 0; k < fpga::kNumResourceKinds; ++k) {
    util[fpga::resource_name(fpga::ResourceKind(k))] = e.utilization[size_t(k)];
  }
  nlohmann::json stages = nlohmann::json::object();
  for (int s = 0; s < fpga::kNumStages; ++s) {
    stages[fpga::stage_name(fpga::Stage(s))] = e.clock.stage_ns[s];
  }
  return {{"device", d.name},
          {"part", d.part},
          {"family", fpga::family_name(d.family)},
          {"speed_grade", d.speed_grade},
          {"device_total", resources_json(d.total)},
          {"device_clock_mhz", d.target_mhz},
          {"parts", parts},
          {"total", resources_json(e.total)},
          {"utilization", util},
          {"stage_ns", stages},
          {"critical_stage", fpga::stage_name(e.clock.critical)},
          {"fmax_mhz", e.clock.fmax_mhz},
          {"target_mhz", e.target_mhz},
          {"feasible", e.feasible()},
          {"verdict", fpga::verdict_text(e, d)}};
}

std::string estimate_table(const fpga::ResourceEstimate& e, const fpga::Device& d) {
  std::string s = fmt::format("device      {} ({}, {}, speed grade {}); VTA's clock there {:.0f} MHz\n",
                              d.board, d.part, fpga::family_name(d.family), d.speed_grade,
                              d.target_mhz);
  s += fmt::format("{:<16} {:>9} {:>9} {:>6} {:>7} {:>5}\n", "part", "LUT", "FF", "DSP", "BRAM36",
                   "URAM");
  auto row = [&](const std::string& name, const fpga::Resources& r) {
    s += fmt::format("{:<16} {:>9.0f} {:>9.0f} {:>6.0f} {:>7.1f} {:>5.0f}\n", name, r.lut, r.ff,
                     r.dsp, r.bram36, r.uram);
  };
  for (int p = 0; p < fpga::kNumParts; ++p) row(fpga::part_name(fpga::Part(p)), e.parts[size_t(p)]);
  row("total", e.total);
  row("device", d.total);
  s += fmt::format("{:<16} {:>8.1f}% {:>8.1f}% {:>5.1f}% {:>6.1f}% {:>4.1f}%\n", "utilization",
                   100 * e.utilization[0], 100 * e.utilization[1], 100 * e.utilization[2],
                   100 * e.utilization[3], 100 * e.utilization[4]);
  s += "clock       ";
  for (int k = 0; k < fpga::kNumStages; ++k) {
    if (e.clock.stage_ns[k] <= 0) continue;
    s += fmt::format("{}{} {:.2f} ns", k ? ", " : "", fpga::stage_name(fpga::Stage(k)),
                     e.clock.stage_ns[k]);
  }
  s += fmt::format("\n            fmax {:.0f} MHz (critical: {}); the config's clock {:.0f} MHz\n",
                   e.clock.fmax_mhz, fpga::stage_name(e.clock.critical), e.target_mhz);
  s += fmt::format("verdict     {}\n", fpga::verdict_text(e, d));
  return s;
}

}  // namespace

nlohmann::json hw_resources(const HwResourcesArgs& a, std::string* text) {
  const hw::HwConfig c = apply_rtl_option_args(a.rtl, a.config);
  if (!(a.max_util > 0 && a.max_util <= 1)) {
    throw Error(fmt::format("--max-utilization = {} is out of range (0, 1]", a.max_util));
  }
  std::vector<const fpga::Device*> devs;
  if (a.device == "all") {
    for (const fpga::Device& d : fpga::devices()) devs.push_back(&d);
  } else {
    devs.push_back(&fpga::device_of(c, a.device));
  }
  nlohmann::json out = {{"config", c.to_json()},
                        {"name", c.name()},
                        {"max_utilization", a.max_util},
                        {"estimates", nlohmann::json::array()}};
  std::string table = fmt::format("config      {}\n", c.name());
  bool fits_any = false;
  const fpga::ModelLimits limits{a.max_util};
  std::optional<fpga::ImplementationReports> reports;
  std::optional<fpga::ResourceCorrection> correction;
  if (!a.reports.empty()) {
    reports = fpga::ImplementationReports::load(a.reports);
    if (reports->designs().size() >= 3) correction = fpga::ResourceCorrection::train(*reports);
  }
  for (const fpga::Device* d : devs) {
    const rtl::RtlOptions opts = fpga::rtl_options(c, *d);
    fpga::ResourceEstimate e = fpga::estimate_resources(c, opts, *d, limits);
    std::string source = "model";
    if (reports) {
      if (const fpga::ImplementedDesign* r = reports->find(c, opts, *d)) {
        e = fpga::from_report(*r, e, *d, limits);
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

namespace {

void add_reports_command(CLI::App* hw);

void add_hw_command(CLI::App& app) {
  CLI::App* hw = app.add_subcommand("hw", "The hardware as a thing to build: FPGA resources and clock");
  hw->require_subcommand(1);
  CLI::App* res = hw->add_subcommand(
      "resources", "LUT/FF/DSP/BRAM/URAM per part, utilization, achievable clock, feasibility");
  struct Options {
    std::string config;
    std::string device;
    RtlOptionArgs rtl;
    double max_util = 1.0;
    std::string reports;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  res->add_option("CONFIG", o->config, "vta_config.json-style file or VTA name (default: Pynq)");
  res->add_option("--device", o->device,
                  "pynq-z1, ultra96, zcu104 or all (default: the config's TARGET board); exits 3 when the "
                  "design fits none of them");
  res->add_option("--max-utilization", o->max_util,
                  "A design fits when no resource is above this share of the device")
      ->capture_default_str();
  res->add_option("--reports", o->reports,
                  "CSV of implemented designs: a design it holds takes the report's figures; "
                  "others the model corrected by what the reports teach (3 or more)");
  res->add_flag("--json", o->json, "Print JSON (config, options and every figure)");
  add_reports_command(hw);
  add_rtl_option_args(res, o->rtl);
  res->callback([o] {
    HwResourcesArgs a;
    a.config = hw::load_config(o->config);
    a.device = o->device;
    a.rtl = o->rtl;
    a.max_util = o->max_util;
    a.reports = o->reports;
    std::string text;
    const nlohmann::json out = hw_resources(a, &text);
    std::cout << (o->json ? out.dump(2) + "\n" : text);
    // A design that fits none of the devices asked for is an answer, not an error: the table is
    // printed, and the exit code (3) lets a script tell.
    if (!out.at("fits").get<bool>()) {
      std::cout << std::flush;
      throw ExitStatus{3};
    }
  });
}

void add_reports_command(CLI::App* hw) {
  CLI::App* cmd = hw->add_subcommand(
      "reports", "Implementation reports against the model, alone and corrected (leave one out)");
  struct Options {
    std::string file;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("FILE", o->file, "CSV of implemented designs (docs/fpga_model.md)")->required();
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->callback([o] {
    const fpga::ImplementationReports reports = fpga::ImplementationReports::load(o->file);
    const std::vector<fpga::ReportCheck> checks = fpga::cross_validate(reports);
    nlohmann::json out = {{"file", o->file}, {"designs", nlohmann::json::array()}};
    std::string text = fmt::format("{:>5} {:<9} {:<28} {:<7} {:>9} {:>9} {:>7} {:>9} {:>7}\n", "line",
                                   "device", "config", "what", "report", "model", "error",
                                   "corrected", "error");
    std::array<std::vector<double>, 5> err_model, err_corr;
    for (const fpga::ReportCheck& c : checks) {
      const fpga::ImplementedDesign& d = *c.design;
      nlohmann::json j = {{"line", d.line}, {"device", d.device->name}, {"config", d.config.name()}};
      for (int t = 0; t < 5; ++t) {
        const bool clock = t == 4;
        const double rep = clock ? d.fmax_mhz : fpga::get(d.resources, fpga::ResourceKind(t));
        if (clock && rep <= 0) continue;
        const double mod = clock ? c.model.clock.fmax_mhz : fpga::get(c.model.total, fpga::ResourceKind(t));
        const double cor = clock ? c.corrected.clock.fmax_mhz
                                 : fpga::get(c.corrected.total, fpga::ResourceKind(t));
        const std::string what = clock ? "MHz" : fpga::resource_name(fpga::ResourceKind(t));
        auto rel = [&](double v) { return rep > 0 ? (v - rep) / rep : (v > 0 ? 1.0 : 0.0); };
        err_model[size_t(t)].push_back(std::abs(rel(mod)));
        err_corr[size_t(t)].push_back(std::abs(rel(cor)));
        j[what] = {{"report", rep}, {"model", mod}, {"corrected", cor}};
        text += fmt::format("{:>5} {:<9} {:<28} {:<7} {:>9.0f} {:>9.0f} {:>+6.1f}% {:>9.0f} {:>+6.1f}%\n",
                            d.line, d.device->name, d.config.name(), what, rep, mod, 100 * rel(mod),
                            cor, 100 * rel(cor));
      }
      out["designs"].push_back(j);
    }
    auto median = [](std::vector<double> v) {
      if (v.empty()) return 0.0;
      std::sort(v.begin(), v.end());
      return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    };
    text += "median |error|:";
    for (int t = 0; t < 5; ++t) {
      if (err_model[size_t(t)].empty()) continue;
      const std::string what = t == 4 ? "MHz" : fpga::resource_name(fpga::ResourceKind(t));
      text += fmt::format("  {} model {:.1f}% corrected {:.1f}%", what,
                          100 * median(err_model[size_t(t)]), 100 * median(err_corr[size_t(t)]));
      out["median_error"][what] = {{"model", median(err_model[size_t(t)])},
                                   {"corrected", median(err_corr[size_t(t)])}};
    }
    text += "\n";
    std::cout << (o->json ? out.dump(2) + "\n" : text);
  });
}

}  // namespace

static const CommandRegistrar kHwRegistrar("hw", add_hw_command);

}  // namespace tauvta::cli
