// tauvta sim: run a raw instruction stream as a board would. DRAM and every SRAM start zeroed;
// --mem places file bytes at byte addresses; after FINISH --dump writes DRAM regions to files.
#include <cstdint>
#include <fstream>
#include <iostream>
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
#include "common/error.h"
#include "sim/simulator.h"
#include "backend/rtl_program.h"
#include "rtl/accelerator_sim.h"

namespace tauvta::cli {
namespace {

struct SimArgs {
  std::string config;
  std::string insns;
  std::vector<std::string> mems;
  std::vector<std::string> dumps;
  bool timing_only = false;
  bool check_hazards = false;
  bool portable = false;
  bool force = false;
  bool quiet = false;
  bool rtl = false;
  std::string report;
  uint64_t dram_size = 1ull << 30;
};

uint64_t parse_number(const std::string& text, const std::string& what) {
  try {
    size_t used = 0;
    const uint64_t v = std::stoull(text, &used, 0);  // decimal or 0x-prefixed hex
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("{}: '{}' is not a number (decimal or 0x hex)", what, text));
}

void run_sim(const SimArgs& a) {
  const hw::HwConfig config = hw::load_config(a.config);
  const std::vector<hw::RawInsn> program = hw::read_program(a.insns);
  sim::Dram dram(a.dram_size);
  for (const std::string& m : a.mems) {
    const size_t eq = m.find('=');
    if (eq == std::string::npos) {
      throw Error(fmt::format("--mem '{}': expected ADDR=FILE", m));
    }
    const uint64_t addr = parse_number(m.substr(0, eq), "--mem " + m);
    const std::vector<uint8_t> bytes = read_binary(m.substr(eq + 1));
    dram.write(addr, bytes, fmt::format("--mem {}", m));
  }
  struct Dump {
    uint64_t addr, bytes;
    std::string file;
  };
  std::vector<Dump> dumps;
  for (const std::string& d : a.dumps) {
    const size_t eq = d.find('='), colon = d.find(':');
    if (eq == std::string::npos || colon == std::string::npos || colon > eq) {
      throw Error(fmt::format("--dump '{}': expected ADDR:BYTES=FILE", d));
    }
    Dump x{parse_number(d.substr(0, colon), "--dump " + d),
           parse_number(d.substr(colon + 1, eq - colon - 1), "--dump " + d), d.substr(eq + 1)};
    dram.check(x.addr, x.bytes, "--dump " + d);
    check_can_write(x.file, a.force);
    dumps.push_back(x);
  }
  check_can_write(a.report, a.force);

  // With --rtl the timing model runs with the generated datapath's depths (backend::rtl_timing).
  const rtl::RtlOptions rtl_options = backend::rtl_options_for(config);
  sim::Simulator simulator(a.rtl ? backend::rtl_timing(config, rtl_options) : config, dram);
  sim::RunOptions options;
  options.timing_only = a.timing_only;
  options.check_hazards = a.check_hazards;
  options.portable_kernels = a.portable;
  std::optional<backend::RtlProgramResult> rtl_result;
  if (a.rtl) {
    if (a.timing_only) throw Error("--rtl runs the data too: it cannot be combined with --timing-only");
    if (!a.quiet) std::cerr << "building the Verilated accelerator (cached once built)...\n";
    rtl::AcceleratorSim accelerator(config, rtl_options);
    rtl_result = backend::run_program_on_rtl(simulator, accelerator, program, options);
  }
  const sim::RunReport report = rtl_result ? rtl_result->model : simulator.run(program, options);

  for (const Dump& d : dumps) {
    std::vector<uint8_t> bytes(d.bytes);
    dram.read(d.addr, bytes, "--dump");
    write_binary(d.file, bytes, a.force);
  }
  if (!a.report.empty()) {
    nlohmann::json j = report.to_json(config);
    j["program"] = a.insns;
    if (rtl_result) j["rtl"] = rtl_result->to_json();
    write_text(a.report, j.dump(2) + "\n", a.force);
  }
  if (!a.quiet) {
    std::cout << fmt::format("config {}  program {} ({} instructions){}\n\n", config.name(),
                             a.insns, program.size(), a.timing_only ? "  [timing only]" : "");
    std::cout << report.summary_table(config);
    if (rtl_result) std::cout << "\nRTL (tauvta_accelerator in Verilator) against the timing model\n" << rtl_result->table();
  }
  if (rtl_result && !rtl_result->bit_exact) {
    throw Error("the RTL's DRAM differs from the simulator's: " + rtl_result->difference);
  }
  if (!report.hazards.empty()) {
    for (const sim::Hazard& h : report.hazards) std::cerr << "hazard: " << h.message() << "\n";
    throw Error(fmt::format("{} hazard(s) found", report.hazards.size()));
  }
}

}  // namespace

void add_sim_command(CLI::App& app) {
  auto args = std::make_shared<SimArgs>();
  CLI::App* cmd = app.add_subcommand("sim", "Run a raw VTA instruction stream on the simulator");
  cmd->add_option("--config", args->config, "Hardware config JSON (default: built-in pynq)");
  cmd->add_option("--insns", args->insns, "Instruction stream, 16 bytes per instruction")
      ->required();
  cmd->add_option("--mem", args->mems, "ADDR=FILE: place FILE's bytes at byte address ADDR");
  cmd->add_option("--dump", args->dumps, "ADDR:BYTES=FILE: after FINISH, write DRAM bytes to FILE");
  cmd->add_flag("--timing-only", args->timing_only, "Cycles only; no data is read or written");
  cmd->add_flag("--check-hazards", args->check_hazards,
                "Report SRAM accesses on different modules not ordered by tokens");
  cmd->add_flag("--portable", args->portable, "Use the portable kernels (no SIMD)");
  cmd->add_flag("--rtl", args->rtl,
                "Also run the generated accelerator (Verilator) and compare its DRAM and cycles");
  cmd->add_option("--report", args->report, "Write the run report as JSON");
  cmd->add_option("--dram-size", args->dram_size, "Simulated DRAM bytes (default 1 GiB)");
  cmd->add_flag("--force", args->force, "Overwrite existing --dump and --report files");
  cmd->add_flag("-q,--quiet", args->quiet, "Print nothing on success");
  cmd->callback([args] { run_sim(*args); });
}

static const CommandRegistrar kSimRegistrar("sim", add_sim_command);

}  // namespace tauvta::cli
