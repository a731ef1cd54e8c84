// ResNet-18 (224x224, batch 1) on the pynq preset with the default heuristic: per conv layer
// cycles and GOPS at the clock, aggregate conv GOPS, compile (lowering) time, full bit-exact
// simulation and timing-only wall time, each beside the float reference's forward time measured
// in the same process. The model comes from scripts/make-models (build/models/resnet18.onnx).
//   build/bench/resnet18_bench [--model PATH] [--config CFG.json] [--repeat N] [--json OUT]
#include <chrono>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/compile_network.h"
#include "backend/network_report.h"
#include "backend/network_runner.h"
#include "bench_models.h"
#include "common/atomic_file.h"
#include "cpu/float_executor.h"
#include "cpu/int_executor.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"

using namespace tauvta;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

template <class F>
double best_of(int n, F&& f) {
  double best = 1e30;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, since(t0));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("ResNet-18 on the simulated accelerator");
  std::string model = "build/models/resnet18.onnx", config_path, json_out;
  int repeat = 3;
  app.add_option("--model", model, "ONNX model (scripts/make-models writes build/models/resnet18.onnx)");
  app.add_option("--config", config_path, "Hardware config (default: built-in pynq)");
  app.add_option("--repeat", repeat, "Runs per timing (the best is reported)");
  app.add_option("--json", json_out, "Write the figures as JSON");
  CLI11_PARSE(app, argc, argv);
  try {
    const hw::HwConfig c = config_path.empty() ? hw::HwConfig{} : hw::HwConfig::load(config_path);
    const std::filesystem::path input = bench::sample_input(model);
    const model::LoadedModel m = bench::load_quantized(model, c);
    cpu::TensorMap in;
    in[m.quant.graph.inputs.at(0)] = !input.empty()
                                         ? io::read_npy(input)
                                         : graph::Tensor(graph::DType::kFloat32, {1, 3, 224, 224});

    backend::CompiledNetwork net;
    const double compile_s = best_of(1, [&] { net = backend::compile_network(m.quant.graph, c); });
    // Lowering with the heuristic's per-workload cache warm (what a second compile costs).
    double lower_warm = 0;
    {
      const auto t0 = Clock::now();
      const backend::CompiledNetwork again = backend::compile_network(m.quant.graph, c);
      lower_warm = again.lower_seconds;
      (void)t0;
    }
    backend::NetworkRunner runner(net);
    backend::NetworkRun full;
    const double full_s = best_of(repeat, [&] { full = runner.run(in); });
    const double vta_sim_s = full.sim_wall_seconds;
    backend::NetworkRun timed;
    const double timing_s = best_of(repeat, [&] { timed = backend::time_network(net); });
    const double float_s = best_of(repeat, [&] { (void)cpu::run_float(m.float_graph, in); });
    const double int_s = best_of(repeat, [&] { (void)cpu::run_int(m.quant.graph, in); });
    const bool exact = cpu::run_int(m.quant.graph, in) == full.outputs;

    std::cout << backend::network_report_table(net, full);
    const backend::NetworkTotals t = backend::network_totals(net, full);
    std::cout << fmt::format("\nResNet-18 on {} ({} MHz, peak {:.1f} GOPS)\n", c.name(), c.timing.clock_mhz, c.peak_gops());
    std::cout << fmt::format("{:<48}{:>12.2f}\n", "aggregate conv/dense GOPS at the clock", t.conv_gops);
    std::cout << fmt::format("{:<48}{:>12.3f}\n", "accelerator time at the clock (ms)", t.seconds_at_clock * 1e3);
    std::cout << fmt::format("{:<48}{:>12}\n", "outputs equal the integer reference", exact ? "yes" : "NO");
    std::cout << fmt::format("{:<48}{:>12.4f}\n", "compile, cold heuristic cache (s)", compile_s);
    std::cout << fmt::format("{:<48}{:>12.4f}\n", "lowering, warm heuristic cache (s)", lower_warm);
    std::cout << fmt::format("{:<48}{:>12.4f}\n", "full run: accelerator simulation wall (s)", vta_sim_s);
    std::cout << fmt::format("{:<48}{:>12.4f}\n", "full run incl. CPU layers and transfers (s)", full_s);
    std::cout << fmt::format("{:<48}{:>12.3f}\n", "timing-only run (ms)", timing_s * 1e3);
    std::cout << fmt::format("{:<48}{:>12.4f}\n", "float reference forward (s)", float_s);
    std::cout << fmt::format("{:<48}{:>12.4f}\n", "integer reference forward (s)", int_s);
    std::cout << fmt::format("{:<48}{:>12.2f}\n", "full simulation / float forward", vta_sim_s / float_s);
    std::cout << fmt::format("{:<48}{:>12.3f}\n", "timing-only / float forward", timing_s / float_s);
    if (!json_out.empty()) {
      nlohmann::json j = backend::network_report_json(net, full);
      j["bench"] = {{"conv_gops", t.conv_gops}, {"compile_seconds", compile_s}, {"lower_warm_seconds", lower_warm},
                    {"sim_seconds", vta_sim_s}, {"full_run_seconds", full_s}, {"timing_only_seconds", timing_s},
                    {"float_forward_seconds", float_s}, {"int_forward_seconds", int_s}, {"bit_exact", exact}};
      tauvta::write_file_atomic(json_out, j.dump(2) + "\n");
    }
    return exact ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
