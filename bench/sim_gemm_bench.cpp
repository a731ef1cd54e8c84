// End-to-end simulator benchmark: a GEMM-heavy program (M x K x N tiled GEMM through the runtime,
// default 1024^3 on the pynq config) run on the functional core, beside oneDNN's u8 x s8 int8
// matmul of the same size in the same process (the practical limit for int8 on this CPU), and
// the same program in timing-only mode; then the GEMM kernels alone (every SIMD kernel this CPU
// runs against the portable one, 8-bit and 16-bit lanes). Prints tables, the ratios, and
// optionally JSON.
//
//   build/sim_gemm_bench [--m 1024 --k 1024 --n 1024] [--config FILE] [--repeats 3] [--json F]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "hw/hw_config.h"
#include "runtime/device.h"
#include "runtime/tiled_gemm.h"
#include "sim/compute_kernels.h"
#include "sim/onchip_memory.h"

#ifdef TAUVTA_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif
#ifdef TAUVTA_HAVE_OPENMP
#include <omp.h>
#endif

namespace {

using namespace tauvta;

// oneDNN u8 x s8 -> s32 matmul on one thread (the simulator uses one core), best of `repeats`;
// returns seconds (or a negative value when oneDNN is not available).
double onednn_matmul_seconds(uint32_t m, uint32_t k, uint32_t n, int repeats) {
#ifdef TAUVTA_HAVE_DNNL
#ifdef TAUVTA_HAVE_OPENMP
  omp_set_num_threads(1);
#endif
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const dnnl::memory::desc a_md({m, k}, dt::u8, tag::ab);
  const dnnl::memory::desc b_md({k, n}, dt::s8, tag::ab);
  const dnnl::memory::desc c_md({m, n}, dt::s32, tag::ab);
  const dnnl::matmul::desc desc(a_md, b_md, c_md);  // oneDNN 2.x API (Debian bookworm)
  dnnl::matmul::primitive_desc pd(desc, eng);
  dnnl::memory a(a_md, eng), b(b_md, eng), c(c_md, eng);
  std::mt19937 rng(7);
  auto* ap = static_cast<uint8_t*>(a.get_data_handle());
  auto* bp = static_cast<int8_t*>(b.get_data_handle());
  for (size_t i = 0; i < size_t(m) * k; ++i) ap[i] = uint8_t(rng());
  for (size_t i = 0; i < size_t(k) * n; ++i) bp[i] = int8_t(rng());
  dnnl::matmul prim(pd);
  prim.execute(strm, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
  strm.wait();  // warm-up: JIT and page faults
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    prim.execute(strm, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    strm.wait();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
#else
  (void)m, (void)k, (void)n, (void)repeats;
  return -1.0;
#endif
}

// One GEMM instruction shape for the kernel table: micro-ops and the loop nest around them.
struct KernelShape {
  const char* name;
  std::vector<hw::Uop> uops;
  uint32_t iter_out, iter_in;
  uint32_t dst_out, dst_in, src_out, src_in, wgt_out, wgt_in;
};

// The shapes VGG-7's layers compile to, and one with no two updates in the same row.
std::vector<KernelShape> kernel_shapes() {
  std::vector<hw::Uop> taps, rows;
  for (uint32_t k = 0; k < 9; ++k) taps.push_back({0, k, k});  // one output pixel, 3x3 taps
  for (uint32_t u = 0; u < 16; ++u) rows.push_back({u, u, u});
  return {{"conv3x3", taps, 14, 14, 14, 1, 16, 1, 0, 0},
          {"dense", {{0, 0, 0}}, 72, 4, 0, 1, 1, 0, 1, 72},
          {"16 rows", rows, 8, 8, 128, 16, 1, 16, 0, 16}};
}

// One kernel on one shape, best of `repeats`: MACs per wall-second.
double kernel_gmacs(const hw::HwConfig& c, sim::SimdGemm kernel, const KernelShape& shape,
                    int repeats) {
  sim::OnChipMemory m(c, kernel);
  std::mt19937_64 rng(3);
  auto random_bytes = [&](int bits, uint32_t depth, int lanes) {
    std::vector<uint8_t> b((size_t(depth) * lanes * bits + 7) / 8);
    for (uint8_t& x : b) x = uint8_t(rng());
    return b;
  };
  m.write_inp(0, random_bytes(c.inp_width(), c.inp_depth(), m.inp_lanes()).data(), c.inp_depth());
  m.write_wgt(0, random_bytes(c.wgt_width(), c.wgt_depth(), m.wgt_lanes()).data(), c.wgt_depth());
  sim::LoopNest l;
  l.uops = shape.uops.data();
  l.n_uops = uint32_t(shape.uops.size());
  l.iter_out = shape.iter_out, l.iter_in = shape.iter_in;
  l.dst_out = shape.dst_out, l.dst_in = shape.dst_in;
  l.src_out = shape.src_out, l.src_in = shape.src_in;
  l.wgt_out = shape.wgt_out, l.wgt_in = shape.wgt_in;
  uint64_t top_dst = 0, top_src = 0, top_wgt = 0;
  for (const hw::Uop& u : shape.uops) {
    top_dst = std::max<uint64_t>(top_dst, u.dst + (l.iter_out - 1) * l.dst_out + (l.iter_in - 1) * l.dst_in);
    top_src = std::max<uint64_t>(top_src, u.src + (l.iter_out - 1) * l.src_out + (l.iter_in - 1) * l.src_in);
    top_wgt = std::max<uint64_t>(top_wgt, u.wgt + (l.iter_out - 1) * l.wgt_out + (l.iter_in - 1) * l.wgt_in);
  }
  if (top_dst >= c.acc_depth() || top_src >= c.inp_depth() || top_wgt >= c.wgt_depth()) {
    throw Error("kernel benchmark: config " + c.name() + " has buffers too shallow for " + shape.name);
  }
  const double macs = double(l.n_uops) * l.iter_out * l.iter_in * double(c.macs_per_cycle());
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    int runs = 0;
    double seconds = 0;
    do {  // at least 20 ms per measurement
      sim::run_gemm(m, l, false, kernel != sim::SimdGemm::kNone, nullptr);
      ++runs;
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (seconds < 0.02);
    best = std::min(best, seconds / runs);
  }
  return macs / best / 1e9;
}

// The kernel table: every SIMD kernel this CPU runs for each config, against the portable one.
nlohmann::json kernel_table(int repeats) {
  const std::pair<const char*, const char*> configs[] = {
      {"8-bit, 32-bit acc (pynq)", "1x16_i8w8a32_15_15_18_17"},
      {"16-bit, 64-bit acc (pynq_w16)", "1x16_i16w16a64_15_16_19_18"},
      {"16-bit, 32-bit acc", "1x16_i16w16a32_15_16_19_17"},
  };
  nlohmann::json rows = nlohmann::json::array();
  std::printf("\nGEMM kernels alone on one instruction, GMAC per wall-s\n");
  std::printf("%-31s %-9s %-13s %9s %11s\n", "config", "shape", "kernel", "GMAC/s", "x portable");
  for (const auto& [label, name] : configs) {
    const hw::HwConfig c = hw::HwConfig::from_name(name);
    for (const KernelShape& shape : kernel_shapes()) {
      const double portable = kernel_gmacs(c, sim::SimdGemm::kNone, shape, repeats);
      std::printf("%-31s %-9s %-13s %9.2f %11.2f\n", label, shape.name, "portable", portable, 1.0);
      for (sim::SimdGemm k : {sim::SimdGemm::kVnni, sim::SimdGemm::kAvx2}) {
        if (!sim::simd_gemm_supported(k, c)) continue;
        const double g = kernel_gmacs(c, k, shape, repeats);
        std::printf("%-31s %-9s %-13s %9.2f %11.2f\n", label, shape.name, sim::simd_gemm_name(k),
                    g, g / portable);
        rows.push_back({{"config", name}, {"shape", shape.name}, {"kernel", sim::simd_gemm_name(k)},
                        {"gmacs", g}, {"portable_gmacs", portable}, {"ratio", g / portable}});
      }
    }
  }
  return rows;
}

int run(int argc, char** argv) {
  CLI::App app{"tauvta simulator GEMM benchmark"};
  uint32_t m = 1024, k = 1024, n = 1024;
  int repeats = 3;
  std::string config_path, json_path;
  app.add_option("--m", m);
  app.add_option("--k", k);
  app.add_option("--n", n);
  app.add_option("--repeats", repeats, "Best of this many runs for each measurement");
  app.add_option("--config", config_path);
  app.add_option("--json", json_path, "Also write the figures as JSON");
  CLI11_PARSE(app, argc, argv);

  const hw::HwConfig config = config_path.empty() ? hw::HwConfig{} : hw::HwConfig::load(config_path);
  const runtime::GemmShape shape{m, k, n};
  std::mt19937_64 rng(42);
  const auto a = runtime::random_operand(config.inp_width(), size_t(m) * k, rng);
  const auto b = runtime::random_operand(config.wgt_width(), size_t(k) * n, rng);

  std::printf("tauvta sim GEMM benchmark: %ux%ux%u on %s, SIMD GEMM kernel: %s\n", m, k, n,
              config.name().c_str(), sim::simd_gemm_name(sim::best_simd_gemm(config)));
  // Functional + timing run, best of `repeats` (sim_wall_seconds counts the simulator only, not
  // packing the matrices or reading them back).
  runtime::GemmRun best_full;
  double full_wall = 1e30;
  bool verified = false;
  for (int r = 0; r < repeats; ++r) {
    runtime::Device device(config);
    runtime::GemmRun run = runtime::run_tiled_gemm(device, a, b, shape);
    if (!verified) {
      const auto expected = runtime::reference_gemm(config, a, b, shape);
      if (auto mm = runtime::first_mismatch(expected, run.c, shape)) {
        throw Error("benchmark GEMM is wrong: " + mm->message());
      }
      verified = true;
    }
    if (run.report.sim_wall_seconds < full_wall) {
      full_wall = run.report.sim_wall_seconds;
      best_full = std::move(run);
    }
  }
  // Timing-only runs of the same program, best of many (each is a fraction of a millisecond),
  // alternating the memory system's fast path with its reference path (every DRAM burst booked
  // through the port calendars, as the model did before idle rows were replayed as runs).
  double timing_wall = 1e30, reference_wall = 1e30;
  uint64_t timing_cycles = 0, timing_insns = 0, reference_cycles = 0;
  for (int r = 0; r < std::max(repeats, 20); ++r) {
    for (bool reference : {false, true}) {
      runtime::Device device(config);
      runtime::GemmRunOptions o;
      o.timing_only = true;
      o.reference_memory = reference;
      const runtime::GemmRun run = runtime::run_tiled_gemm(device, {}, {}, shape, o);
      (reference ? reference_wall : timing_wall) =
          std::min(reference ? reference_wall : timing_wall, run.report.sim_wall_seconds);
      (reference ? reference_cycles : timing_cycles) = run.report.cycles;
      timing_insns = run.report.insns;
    }
  }
  const double onednn_s = onednn_matmul_seconds(m, k, n, std::max(repeats, 5));

  const double ops = double(shape.ops());
  const double sim_gops = ops / full_wall / 1e9;
  const double dnnl_gops = onednn_s > 0 ? ops / onednn_s / 1e9 : 0.0;
  const double insn_rate = double(timing_insns) / timing_wall;
  std::printf("\n%-44s %14s\n", "measurement", "value");
  std::printf("%-44s %14.1f\n", "functional core: simulated GOPS per wall-s", sim_gops);
  if (onednn_s > 0) {
    std::printf("%-44s %14.1f\n", "oneDNN u8 x s8 matmul, 1 thread: GOPS", dnnl_gops);
    std::printf("%-44s %14.3f\n", "ratio sim / oneDNN", sim_gops / dnnl_gops);
  } else {
    std::printf("%-44s %14s\n", "oneDNN u8 x s8 matmul", "not built");
  }
  std::printf("%-44s %14.2f\n", "timing-only: million instructions per wall-s", insn_rate / 1e6);
  std::printf("%-44s %14.2f\n", "  every burst through the calendar (reference)",
              double(timing_insns) / reference_wall / 1e6);
  std::printf("%-44s %14.2f\n", "  speedup over the reference path", reference_wall / timing_wall);
  std::printf("%-44s %14.3f\n", "timing-only wall / full-run wall", timing_wall / full_wall);
  std::printf("%-44s %14llu\n", "instructions", static_cast<unsigned long long>(timing_insns));
  std::printf("%-44s %14llu\n", "simulated cycles", static_cast<unsigned long long>(best_full.report.cycles));
  std::printf("%-44s %14.2f\n", "GOPS at clock (simulated board)", best_full.report.gops_at_clock(config));
  std::printf("%-44s %13.1f%%\n", "GEMM utilization", 100.0 * best_full.report.gemm_utilization());
  std::printf("%-44s %14s\n", "tiling", best_full.tiling.to_string().c_str());
  if (reference_cycles != timing_cycles) {
    throw Error(fmt::format("timing-only cycles {} differ from the reference memory path's {}",
                            timing_cycles, reference_cycles));
  }
  if (timing_cycles != best_full.report.cycles) {
    throw Error(fmt::format("timing-only cycles {} differ from the full run's {}", timing_cycles,
                            best_full.report.cycles));
  }
  const nlohmann::json kernels = kernel_table(repeats);
  if (!json_path.empty()) {
    nlohmann::json j = {{"m", m}, {"k", k}, {"n", n},
                        {"config", config.to_json()},
                        {"sim_gops_per_wall_second", sim_gops},
                        {"sim_wall_seconds", full_wall},
                        {"onednn_gops_per_wall_second", dnnl_gops},
                        {"ratio_sim_over_onednn", onednn_s > 0 ? sim_gops / dnnl_gops : 0.0},
                        {"timing_only_insns_per_second", insn_rate},
                        {"timing_only_reference_memory_insns_per_second",
                         double(timing_insns) / reference_wall},
                        {"insns", timing_insns},
                        {"cycles", best_full.report.cycles},
                        {"gops_at_clock", best_full.report.gops_at_clock(config)},
                        {"gemm_utilization", best_full.report.gemm_utilization()},
                        {"simd", sim::simd_gemm_name(sim::best_simd_gemm(config))},
                        {"kernels", kernels}};
    tauvta::write_file_atomic(json_path, j.dump(2) + "\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sim_gemm_bench: error: %s\n", e.what());
    return 1;
  }
}
