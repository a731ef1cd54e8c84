#include "dse/rtl_check.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/build_network.h"
#include "backend/compile_network.h"
#include "backend/network_runner.h"
#include "common/error.h"
#include "cpu/int_executor.h"
#include "io/tensor_files.h"

namespace tauvta::dse {

namespace {

// The layers the exploration times: convolutions and dense layers on the accelerator.
bool explored_layer(const backend::NetworkLayer& l) {
  return l.placement == backend::Placement::kVta && backend::is_gemm_op(l.op);
}

cpu::TensorMap check_input(const std::filesystem::path& model, const graph::Graph& g) {
  cpu::TensorMap in;
  const std::string name = g.inputs.at(0);
  const std::filesystem::path sample = model.parent_path() / (model.stem().string() + "_input.npy");
  if (std::filesystem::exists(sample)) {
    in[name] = io::read_npy(sample);
    return in;
  }
  graph::Tensor t(graph::DType::kFloat32, g.info(name)->shape);
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& x : t.floats()) x = u(rng);
  in[name] = std::move(t);
  return in;
}

}  // namespace

std::vector<RtlCheck> rtl_check(DseWorkload& workload, const Evaluator& evaluator,
                                const std::vector<PrecisionResult>& results, int k,
                                const std::function<void(const std::string&)>& progress) {
  if (!workload.is_model()) throw Error("dse: --rtl-check runs a network: give a model, not --workload");
  std::vector<RtlCheck> checks;
  for (const PrecisionResult& r : results) {
    std::vector<const Evaluation*> best;
    for (const Evaluation& e : r.evaluations) {
      if (e.feasible && e.cycles > 0) best.push_back(&e);
    }
    std::sort(best.begin(), best.end(), [](const Evaluation* a, const Evaluation* b) { return a->gops > b->gops; });
    if (best.size() > size_t(k)) best.resize(size_t(k));
    for (size_t i = 0; i < best.size(); ++i) {
      const Evaluation& e = *best[i];
      RtlCheck c;
      c.precision = r.precision;
      c.design = e.config.name();
      c.gops = e.gops;
      c.explored_cycles = e.cycles;
      if (progress) progress(fmt::format("rtl-check W{}A{} design {} of {}: {} on the RTL", r.precision, r.precision,
                                         i + 1, best.size(), c.design));
      const auto t0 = std::chrono::steady_clock::now();
      try {
        const auto loaded = workload.loaded(e.config);
        backend::CompileOptions o;
        nlohmann::json unused;
        const std::filesystem::path log = evaluator.log_path(e.config);
        if (!log.empty() && std::filesystem::exists(log)) o = backend::tuning_log_options(log.string(), e.config, unused);
        const backend::CompiledNetwork net = backend::compile_network(loaded->quant.graph, e.config, o);
        const cpu::TensorMap in = check_input(workload.model_path(), net.graph);
        backend::NetworkRunner runner(net, 1, true);
        const backend::NetworkRun run = runner.run(in);
        for (size_t l = 0; l < net.layers.size(); ++l) {
          if (!explored_layer(net.layers[l])) continue;
          c.rtl_cycles += run.layers[l].rtl_cycles;
          c.model_cycles += run.layers[l].report.cycles;
        }
        c.bit_exact = run.outputs == cpu::run_int(net.graph, in);
        if (!c.bit_exact) c.problem = "outputs differ from the integer reference";
      } catch (const Error& err) {
        c.problem = err.what();  // a program whose DRAM differed names itself here
      }
      c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      checks.push_back(std::move(c));
    }
  }
  return checks;
}

std::string rtl_check_table(const std::vector<RtlCheck>& checks) {
  std::string s = fmt::format(
      "\nRTL check: the best designs' networks on the generated accelerator (Verilator)\n"
      "{:<6} {:<30} {:>8} {:>14} {:>14} {:>8} {:>10} {:>7}\n",
      "prec", "design", "GOPS", "explored cyc", "RTL cyc", "diff", "bit-exact", "s");
  for (const RtlCheck& c : checks) {
    const double diff = c.explored_cycles ? (double(c.rtl_cycles) - double(c.explored_cycles)) / double(c.explored_cycles) : 0;
    s += fmt::format("W{}A{:<3} {:<30} {:>8.2f} {:>14} {:>14} {:>+7.2f}% {:>10} {:>7.1f}\n", c.precision, c.precision,
                     c.design, c.gops, c.explored_cycles, c.rtl_cycles, 100 * diff,
                     c.bit_exact ? "yes" : "NO", c.seconds);
    if (!c.problem.empty()) s += "       " + c.problem + "\n";
  }
  return s;
}

nlohmann::json rtl_check_json(const std::vector<RtlCheck>& checks) {
  nlohmann::json a = nlohmann::json::array();
  for (const RtlCheck& c : checks) {
    a.push_back({{"precision", c.precision}, {"design", c.design}, {"gops", c.gops},
                 {"explored_cycles", c.explored_cycles}, {"rtl_cycles", c.rtl_cycles},
                 {"model_cycles_at_rtl_depths", c.model_cycles}, {"bit_exact", c.bit_exact},
                 {"problem", c.problem}, {"seconds", c.seconds}});
  }
  return a;
}

}  // namespace tauvta::dse
