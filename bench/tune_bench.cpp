// The schedule autotuner's benchmark: on the conv2d layer of the VTA and tau-VTA figures
// (IC=256, OC=256, H=W=14, 3x3, stride 1, padding 0, pynq) and on every ResNet-18 conv/dense
// task, the trials xgb and random search need to reach 95% of the best schedule any run found
// (median over seeds; xgb with and without its analytic prior, "cold" being AutoTVM's random
// start), and the measured trials per second with 1 and 2 threads.
//   build/bench/tune_bench [--model build/models/resnet18.onnx] [--seeds 5] [--trials 1000]
//                          [--skip-resnet] [--json OUT]
#include <algorithm>
#include <chrono>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/compile_network.h"
#include "bench_models.h"
#include "common/atomic_file.h"
#include "model/pipeline.h"
#include "tune/task.h"
#include "tune/tuner.h"

#include "bench_stats.h"

using namespace tauvta;

namespace {

using bench::median;

// Trials until best-so-far reaches `target` (the run's length + 1 when it never does).
double trials_to(const std::vector<double>& best_so_far, double target) {
  for (size_t i = 0; i < best_so_far.size(); ++i) {
    if (best_so_far[i] >= target) return double(i + 1);
  }
  return double(best_so_far.size() + 1);
}

struct Comparison {
  std::string task;
  size_t space = 0;
  double best_gops = 0, heuristic_gops = 0;
  double xgb_median = 0, random_median = 0, cold_median = 0;  // cold: xgb without the analytic prior
};

Comparison compare(const tune::TuneTask& task, int seeds, int64_t trials, tune::Measurer& m) {
  Comparison out;
  out.task = task.name;
  std::map<std::string, std::vector<std::vector<double>>> curves;
  for (const std::string variant : {"xgb", "xgb-cold", "random"}) {
    for (int s = 1; s <= seeds; ++s) {
      tune::TuneOptions o;
      o.searcher.kind = variant == "random" ? "random" : "xgb";
      o.searcher.analytic_prior = variant != "xgb-cold";
      o.searcher.seed = uint64_t(s);
      o.searcher.model.seed = uint64_t(s);
      o.trials = trials;
      o.verify = false;  // the search is compared here; tests and `tauvta tune` verify
      const tune::TaskResult r = tune::tune_task(task, o, m, nullptr);
      out.space = r.space_size;
      out.heuristic_gops = r.default_measure.gops;
      out.best_gops = std::max(out.best_gops, r.best_measure.gops);
      curves[variant].push_back(r.best_so_far);
    }
  }
  for (const auto& [kind, runs] : curves) {
    std::vector<double> t;
    for (const auto& curve : runs) t.push_back(trials_to(curve, 0.95 * out.best_gops));
    (kind == "xgb" ? out.xgb_median : kind == "xgb-cold" ? out.cold_median : out.random_median) = median(t);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Schedule autotuner: convergence of xgb against random, trials per second");
  std::string model = "build/models/resnet18.onnx", json_out;
  int seeds = 5;
  int64_t trials = 1000;
  bool skip_resnet = false;
  app.add_option("--model", model, "ResNet-18 ONNX (scripts/make-models)");
  app.add_option("--seeds", seeds, "Seeds per tuner (the median is reported)");
  app.add_option("--trials", trials, "Trial budget per run");
  app.add_flag("--skip-resnet", skip_resnet, "Only the reference layer");
  app.add_option("--json", json_out, "Write the figures as JSON");
  CLI11_PARSE(app, argc, argv);
  try {
    const hw::HwConfig c;  // pynq
    nlohmann::json j;
    std::vector<tune::TuneTask> tasks = {
        tune::workload_task(c, tune::parse_workload_spec("conv2d,ci=256,h=14,w=14,co=256,k=3,s=1,p=0"))};
    tasks[0].name = "ref " + tasks[0].workload().to_string();
    if (!skip_resnet) {
      const model::LoadedModel m = bench::load_quantized(model, c);
      const backend::CompiledNetwork net = backend::compile_network(m.quant.graph, c);
      for (tune::TuneTask& t : tune::extract_tasks(net)) tasks.push_back(std::move(t));
    }
    tune::Measurer m2(c, 2);
    std::cout << fmt::format("{:<56} {:>6} {:>9} {:>9} {:>10} {:>10} {:>10} {:>7} {:>7}\n", "task (pynq, 100 MHz)",
                             "space", "heur GOPS", "best GOPS", "xgb to95%", "cold to95%", "rand to95%", "ratio",
                             "cold");
    nlohmann::json rows = nlohmann::json::array();
    for (const tune::TuneTask& t : tasks) {
      const Comparison r = compare(t, seeds, trials, m2);
      const double ratio = r.xgb_median > 0 ? r.random_median / r.xgb_median : 0;
      const double cold = r.cold_median > 0 ? r.random_median / r.cold_median : 0;
      std::cout << fmt::format("{:<56} {:>6} {:>9.2f} {:>9.2f} {:>10.1f} {:>10.1f} {:>10.1f} {:>6.2f}x {:>6.2f}x\n",
                               r.task.substr(0, 56), r.space, r.heuristic_gops, r.best_gops, r.xgb_median,
                               r.cold_median, r.random_median, ratio, cold)
                << std::flush;
      rows.push_back({{"task", r.task}, {"space", r.space}, {"heuristic_gops", r.heuristic_gops},
                      {"best_gops", r.best_gops}, {"xgb_median_trials_to_95", r.xgb_median},
                      {"xgb_cold_median_trials_to_95", r.cold_median},
                      {"random_median_trials_to_95", r.random_median}, {"random_over_xgb", ratio},
                      {"random_over_xgb_cold", cold}});
    }
    j["convergence"] = rows;
    // Measured trials per second on the same tasks with the default tuner (xgb, the budget
    // above, verification on), with 1 and 2 measurement threads in this process: the rate
    // inside measurement and the overall rate (model fits, annealing, verification included).
    std::cout << fmt::format("\nmeasured trials per second (xgb, {} trials per task, verified):\n", trials);
    nlohmann::json tps;
    double rate1 = 0;
    for (int threads : {1, 2}) {
      tune::Measurer m(c, threads);
      int64_t n = 0;
      double measure_s = 0;
      const auto t0 = std::chrono::steady_clock::now();
      for (const tune::TuneTask& t : tasks) {
        tune::TuneOptions o;
        o.trials = trials;
        const tune::TaskResult r = tune::tune_task(t, o, m, nullptr);
        n += r.measured;
        measure_s += r.measure_seconds;
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double rate = double(n) / measure_s;
      if (threads == 1) rate1 = rate;
      std::cout << fmt::format("  {} thread(s): {} trials, {:.0f} trials/s in measurement ({:.2f} s), {:.0f} trials/s "
                               "overall ({:.2f} s){}\n",
                               threads, n, rate, measure_s, double(n) / wall, wall,
                               threads == 2 ? fmt::format("; measurement {:.2f}x one thread", rate / rate1) : "");
      tps[fmt::format("threads_{}", threads)] = {{"trials", n}, {"wall_seconds", wall}, {"measure_seconds", measure_s},
                                                 {"trials_per_second", double(n) / wall},
                                                 {"measure_trials_per_second", rate}};
    }
    j["trials_per_second"] = tps;
    j["config"] = c.to_json();
    j["seeds"] = seeds;
    j["trials"] = trials;
    if (!json_out.empty()) tauvta::write_file_atomic(json_out, j.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
