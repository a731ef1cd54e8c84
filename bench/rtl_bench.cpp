// The generated accelerator on the RTL backend: Verilator build time of a design (cold cache,
// beside the warm lookup), simulated cycles per wall-second, and a network end to end (default
// ResNet-18, batch 1) with every program bit-exact against the simulator, its wall time beside
// the simulator's run of the same network in the same process; then the RTL's cycles per layer
// against the timing model's (median and largest |difference|).
//   build/bench/rtl_bench [--model PATH] [--config CFG.json] [--json OUT] [--cold]
#include <chrono>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/compile_network.h"
#include "backend/network_runner.h"
#include "backend/rtl_program.h"
#include "backend/rtl_report.h"
#include "bench_models.h"
#include "common/atomic_file.h"
#include "cpu/int_executor.h"
#include "io/tensor_files.h"
#include "rtl/accelerator_sim.h"

using namespace tauvta;
using Clock = std::chrono::steady_clock;

namespace {
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
}  // namespace

int main(int argc, char** argv) {
  CLI::App app("The generated accelerator on the RTL backend");
  std::string model = "build/models/resnet18.onnx", config_path, json_out;
  bool cold = false;
  app.add_option("--model", model, "ONNX model (scripts/make-models writes build/models/resnet18.onnx)");
  app.add_option("--config", config_path, "Hardware config (default: built-in pynq)");
  app.add_option("--json", json_out, "Write the figures as JSON");
  app.add_flag("--cold", cold, "Also build the design once in an empty cache (its Verilator build time)");
  CLI11_PARSE(app, argc, argv);
  try {
    const hw::HwConfig c = config_path.empty() ? hw::HwConfig{} : hw::HwConfig::load(config_path);
    const rtl::RtlOptions options = backend::rtl_options_for(c);
    nlohmann::json j;
    // Build time: a private empty cache (cold), then the shared cache as a run finds it (warm).
    if (cold) {
      rtl::CosimToolchain tools = rtl::default_cosim_toolchain();
      tools.cache = std::filesystem::temp_directory_path() / fmt::format("tauvta_rtl_bench_{}", ::getpid());
      const auto t0 = Clock::now();
      { rtl::AcceleratorSim sim(c, options, tools); }
      const double cold_s = since(t0);
      std::filesystem::remove_all(tools.cache);
      std::cout << fmt::format("{:<52}{:>10.2f}\n", "Verilator build of the design, cold cache (s)", cold_s);
      j["build_cold_seconds"] = cold_s;
    }
    const auto w0 = Clock::now();
    { rtl::AcceleratorSim sim(c, options); }
    const double warm_s = since(w0);
    std::cout << fmt::format("{:<52}{:>10.3f}\n", "design from the warm cache, started (s)", warm_s);

    const std::filesystem::path input = bench::sample_input(model);
    const model::LoadedModel m = bench::load_quantized(model, c);
    cpu::TensorMap in;
    in[m.quant.graph.inputs.at(0)] = io::read_npy(input);
    const backend::CompiledNetwork net = backend::compile_network(m.quant.graph, c);

    const auto s0 = Clock::now();
    backend::NetworkRunner sim_runner(net);
    const backend::NetworkRun on_sim = sim_runner.run(in);
    const double sim_s = since(s0);

    const auto r0 = Clock::now();
    backend::NetworkRunner rtl_runner(net, 1, true);
    const backend::NetworkRun on_rtl = rtl_runner.run(in);
    const double rtl_s = since(r0);
    const bool exact = on_rtl.outputs == on_sim.outputs && on_rtl.outputs == cpu::run_int(m.quant.graph, in);

    std::cout << backend::rtl_comparison_table(net, on_rtl);
    const backend::RtlComparison cmp = backend::rtl_comparison(net, on_rtl);
    std::cout << fmt::format("\n{} on {} through the RTL backend\n", model, c.name());
    std::cout << fmt::format("{:<52}{:>10}\n", "outputs equal the simulator's and the integer reference", exact ? "yes" : "NO");
    std::cout << fmt::format("{:<52}{:>10.2f}\n", "RTL backend, whole network (s)", rtl_s);
    std::cout << fmt::format("{:<52}{:>10.2f}\n", "simulator, whole network (s)", sim_s);
    std::cout << fmt::format("{:<52}{:>10.1f}\n", "RTL / simulator wall time", rtl_s / sim_s);
    std::cout << fmt::format("{:<52}{:>10.0f}\n", "simulated RTL cycles per wall-second", double(on_rtl.rtl_cycles) / rtl_s);
    j.update({{"model", model}, {"config", c.to_json()}, {"bit_exact", exact}, {"rtl_seconds", rtl_s},
              {"sim_seconds", sim_s}, {"warm_start_seconds", warm_s},
              {"rtl_cycles_per_second", double(on_rtl.rtl_cycles) / rtl_s},
              {"rtl", backend::rtl_comparison_json(net, on_rtl)},
              {"median_abs_error", cmp.median_abs_error}, {"max_abs_error", cmp.max_abs_error}});
    if (!json_out.empty()) tauvta::write_file_atomic(json_out, j.dump(2) + "\n");
    return exact ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
