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
#include "fpga/resource_report.h"
#include "cli/rtl_option_args.h"
#include "common/error.h"
#include "fpga/design_options.h"
#include "fpga/implementation_reports.h"
#include "fpga/resource_model.h"

namespace tauvta::cli {
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
    hw::ImplementationOverrides rtl;
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
    fpga::ResourceReportRequest a;
    a.config = hw::with_overrides(hw::load_config(o->config), o->rtl);
    a.device = o->device;
    a.max_util = o->max_util;
    a.reports = o->reports;
    std::string text;
    const nlohmann::json out = fpga::resource_report(a, &text);
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
