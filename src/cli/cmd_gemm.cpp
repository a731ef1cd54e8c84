// tauvta gemm: the runtime's demo. Random matrices of the config's widths, a tiled GEMM with one
// or two virtual threads on the simulated board, checked against the CPU reference; prints
// cycles, throughput at the clock, utilization, micro-op cache behaviour and simulation speed.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "common/error.h"
#include "runtime/device.h"
#include "runtime/tiled_gemm.h"

namespace tauvta::cli {
namespace {

struct GemmArgs {
  uint32_t m = 0, k = 0, n = 0;
  std::string config;
  uint64_t seed = 1;
  int virtual_threads = 2;
  bool timing_only = false;
  bool check_hazards = false;
  uint32_t tile_m = 0, tile_n = 0, tile_k = 0;
  std::string report;
  bool force = false;
};

void run_gemm(const GemmArgs& a) {
  const hw::HwConfig config = hw::load_config(a.config);
  const runtime::GemmShape shape{a.m, a.k, a.n};
  check_can_write(a.report, a.force);
  runtime::GemmRunOptions opts;
  opts.virtual_threads = a.virtual_threads;
  opts.timing_only = a.timing_only;
  opts.check_hazards = a.check_hazards;
  if (a.tile_m || a.tile_n || a.tile_k) {
    runtime::GemmTiling t = runtime::choose_gemm_tiling(config, shape, a.virtual_threads);
    if (a.tile_m) t.tile_m = a.tile_m;
    if (a.tile_n) t.tile_n = a.tile_n;
    if (a.tile_k) t.tile_k = a.tile_k;
    opts.tiling = t;
  }

  std::vector<int32_t> A, B;
  if (!a.timing_only) {
    std::mt19937_64 rng(a.seed);
    A = runtime::random_operand(config.inp_width(), size_t(a.m) * a.k, rng);
    B = runtime::random_operand(config.wgt_width(), size_t(a.k) * a.n, rng);
  }
  runtime::Device device(config);
  const runtime::GemmRun run = runtime::run_tiled_gemm(device, A, B, shape, opts);

  std::optional<runtime::GemmMismatch> bad;
  if (!a.timing_only) bad = runtime::first_mismatch(runtime::reference_gemm(config, A, B, shape),
                                                    run.c, shape);
  const sim::RunReport& r = run.report;
  const double seconds_at_clock = double(r.cycles) / (config.timing.clock_mhz * 1e6);
  const double gops = r.cycles ? double(shape.ops()) / seconds_at_clock / 1e9 : 0.0;
  const double wall_gops = r.sim_wall_seconds > 0 ? double(shape.ops()) / r.sim_wall_seconds / 1e9
                                                  : 0.0;

  if (!a.report.empty()) {
    nlohmann::json j = r.to_json(config);
    j["m"] = a.m;
    j["k"] = a.k;
    j["n"] = a.n;
    j["seed"] = a.seed;
    j["verified"] = !a.timing_only && !bad;
    j["useful_gops_at_clock"] = gops;
    j["tiling"] = {{"tile_m", run.tiling.tile_m}, {"tile_n", run.tiling.tile_n},
                   {"tile_k", run.tiling.tile_k}, {"virtual_threads", run.tiling.virtual_threads}};
    j["runs"] = run.runs;
    j["uop_cache"] = {{"hits", run.uop_stats.hits},       {"misses", run.uop_stats.misses},
                      {"evictions", run.uop_stats.evictions},
                      {"uops_loaded", run.uop_stats.uops_loaded},
                      {"kernels", run.uop_stats.kernels}, {"splits", run.uop_stats.splits}};
    write_text(a.report, j.dump(2) + "\n", a.force);
  }

  std::string s;
  s += fmt::format("gemm {}x{}x{} (M x K x N) on {}, seed {}{}\n", a.m, a.k, a.n, config.name(),
                   a.seed, a.timing_only ? "  [timing only]" : "");
  s += fmt::format("tiling: {}\n\n", run.tiling.to_string());
  s += fmt::format("{:<28}{:>16}\n", "result",
                   a.timing_only ? "not computed" : bad ? "MISMATCH" : "verified");
  s += fmt::format("{:<28}{:>16}\n", "cycles", r.cycles);
  s += fmt::format("{:<28}{:>16.3f}\n", fmt::format("time at {} MHz (us)", config.timing.clock_mhz),
                   seconds_at_clock * 1e6);
  s += fmt::format("{:<28}{:>16.2f}  (peak {:.1f})\n", "GOPS at clock (2*M*K*N)", gops,
                   config.peak_gops());
  s += fmt::format("{:<28}{:>15.1f}%\n", "GEMM utilization", 100.0 * r.gemm_utilization());
  s += fmt::format("{:<28}{:>16}  ({} program run(s))\n", "instructions", run.insns, run.runs);
  s += fmt::format("{:<28}{:>16}\n", "uop cache hits", run.uop_stats.hits);
  s += fmt::format("{:<28}{:>16}\n", "uop cache misses", run.uop_stats.misses);
  s += fmt::format("{:<28}{:>16}\n", "uop cache evictions", run.uop_stats.evictions);
  s += fmt::format("{:<28}{:>16}\n", "micro-ops loaded", run.uop_stats.uops_loaded);
  s += fmt::format("{:<28}{:>16.4f}\n", "simulation wall seconds", r.sim_wall_seconds);
  s += fmt::format("{:<28}{:>16.2f}\n", "simulated GOPS / wall-s", wall_gops);
  s += fmt::format("\n{:<9}{:>8}{:>13}{:>13}{:>13}{:>13}\n", "module", "insns", "busy",
                   "stall:token", "stall:queue", "stall:dram");
  for (int m = 0; m < hw::kNumModules; ++m) {
    const sim::ModuleStats& st = r.modules[size_t(m)];
    s += fmt::format("{:<9}{:>8}{:>13}{:>13}{:>13}{:>13}\n", hw::module_name(hw::Module(m)),
                     st.insns, st.busy_cycles, st.stall_token_cycles, st.stall_queue_cycles,
                     st.stall_dram_cycles);
  }
  std::cout << s;
  if (bad) throw Error(fmt::format("gemm result mismatch: {}", bad->message()));
  if (!r.hazards.empty()) {
    for (const sim::Hazard& h : r.hazards) std::cerr << "hazard: " << h.message() << "\n";
    throw Error(fmt::format("{} hazard(s) found", r.hazards.size()));
  }
}

}  // namespace

void add_gemm_command(CLI::App& app) {
  auto args = std::make_shared<GemmArgs>();
  CLI::App* cmd = app.add_subcommand(
      "gemm", "Run a random tiled GEMM C = A*B on the simulated accelerator and verify it");
  cmd->add_option("--m", args->m, "Rows of A and C")->required()->check(CLI::Range(1u, 1u << 16));
  cmd->add_option("--k", args->k, "Columns of A, rows of B")->required()->check(CLI::Range(1u, 1u << 16));
  cmd->add_option("--n", args->n, "Columns of B and C")->required()->check(CLI::Range(1u, 1u << 16));
  cmd->add_option("--config", args->config, "Hardware config JSON (default: built-in pynq)");
  cmd->add_option("--seed", args->seed, "Random seed for A and B (default 1)");
  cmd->add_option("--virtual-threads", args->virtual_threads,
                  "1 = serialized, 2 = double-buffered (default 2)")
      ->check(CLI::IsMember({1, 2}));
  cmd->add_flag("--timing-only", args->timing_only, "Cycles only: nothing computed or verified");
  cmd->add_flag("--check-hazards", args->check_hazards,
                "Report SRAM accesses on different modules not ordered by tokens");
  cmd->add_option("--tile-m", args->tile_m, "Override the tile height (BATCH-row blocks)");
  cmd->add_option("--tile-n", args->tile_n, "Override the tile width (BLOCK_OUT blocks)");
  cmd->add_option("--tile-k", args->tile_k, "Override the k-step (BLOCK_IN blocks)");
  cmd->add_option("--report", args->report, "Write the run report as JSON");
  cmd->add_flag("--force", args->force, "Overwrite an existing --report file");
  cmd->callback([args] { run_gemm(*args); });
}

static const CommandRegistrar kGemmRegistrar("gemm", add_gemm_command);

}  // namespace tauvta::cli
