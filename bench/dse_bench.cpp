// tau-VTA's comparison (its Figure 7 and section IV-B) on the reference layer (conv2d IC=OC=256,
// 14x14, 3x3, stride 1, padding 0) on the Pynq-Z1 at W8A8, W4A4, W2A2 and W1A1: Algorithm 1
// (--strategy tau) against VTA-style selection (BRAM budget, then peak GOPS first), each design
// auto-tuned with random search and with the xgb tuner, `--trials` schedule trials per design,
// the same number of tuned designs for both, median over seeds. Printed as the paper gives them:
//   performance ratio = best GOPS of tau / best GOPS of vta,
//   convergence ratio = design evaluations vta needs to reach 95% of the best either found /
//                       those tau needs (a strategy that never gets there counts all it made, plus
//                       one: the ratio is then a lower bound, marked ">");
//   own convergence   = each strategy's evaluations to 95% of its own best.
//   build/bench/dse_bench [--seeds 5] [--trials 1000] [--overlays 12] [--precisions 8,4,2,1]
//                         [--tuners random,xgb] [--json OUT]
#include <algorithm>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "dse/explorer.h"
#include "fpga/device.h"

#include "bench_stats.h"

using namespace tauvta;

namespace {

using bench::median;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');) out.push_back(x);
  return out;
}

struct Run {
  double best = 0;
  size_t evaluations = 0;  // performance evaluations made
  const dse::PrecisionResult* result = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("tau-VTA Algorithm 1 against VTA-style selection on the reference layer");
  int seeds = 5, overlays = 12, threads = 0;
  int64_t trials = 1000;
  std::string precisions = "8,4,2,1", tuners = "random,xgb", json_out;
  app.add_option("--seeds", seeds);
  app.add_option("--trials", trials, "schedule trials per design");
  app.add_option("--overlays", overlays, "tuned designs per strategy");
  app.add_option("--precisions", precisions);
  app.add_option("--tuners", tuners);
  app.add_option("--threads", threads);
  app.add_option("--json", json_out);
  CLI11_PARSE(app, argc, argv);

  const std::string spec = "conv2d,ci=256,h=14,w=14,co=256,k=3,s=1,p=0";
  const fpga::Device& device = fpga::find_device("pynq-z1");
  nlohmann::json out = nlohmann::json::array();
  std::cout << fmt::format("reference layer {} on {}, {} trials per design, {} tuned designs, median of {} seeds\n\n",
                           spec, device.board, trials, overlays, seeds);
  std::cout << fmt::format("{:<7} {:<7} {:>9} {:>9} {:>12} {:>9} {:>9} {:>12} {:>8} {:>8}\n", "prec", "tuner",
                           "tau GOPS", "vta GOPS", "performance", "tau evals", "vta evals", "convergence", "tau own",
                           "vta own");
  for (const std::string& ptext : split(precisions)) {
    const int p = std::stoi(ptext);
    dse::SpaceOptions so;
    so.precision = p;
    so.device = &device;
    const dse::DesignSpace space(so);
    for (const std::string& tuner : split(tuners)) {
      std::vector<double> perf, conv, tau_best, vta_best, tau_evals, vta_evals, tau_own, vta_own;
      bool vta_never = false;
      for (int seed = 1; seed <= seeds; ++seed) {
        dse::DseWorkload w(spec);
        dse::EvaluatorOptions eo;
        eo.tuner = tuner;
        eo.seed = uint64_t(seed);
        dse::Evaluator ev(w, eo, nullptr);
        dse::PrecisionResult results[2];
        for (int s = 0; s < 2; ++s) {
          dse::ExploreOptions xo;
          xo.strategy.kind = s == 0 ? "tau" : "vta";
          xo.strategy.budget = trials;
          xo.strategy.seed = uint64_t(seed);
          xo.strategy.overlays = overlays;
          xo.threads = threads;
          results[s] = dse::explore(space, ev, xo);
        }
        double best[2];
        for (int s = 0; s < 2; ++s) best[s] = results[s].best ? results[s].evaluations[*results[s].best].gops : 0;
        const double target = std::max(best[0], best[1]);
        double evals[2];
        for (int s = 0; s < 2; ++s) {
          const size_t n = results[s].evaluations_to_reach(target);
          evals[s] = n ? double(n) : double(results[s].performance_evaluations() + 1);  // never: all + 1
          if (s == 1 && n == 0) vta_never = true;
        }
        tau_own.push_back(double(results[0].evaluations_to_reach(best[0])));
        vta_own.push_back(double(results[1].evaluations_to_reach(best[1])));
        tau_best.push_back(best[0]);
        vta_best.push_back(best[1]);
        tau_evals.push_back(evals[0]);
        vta_evals.push_back(evals[1]);
        perf.push_back(best[1] > 0 ? best[0] / best[1] : 0);
        conv.push_back(evals[1] / evals[0]);
        std::cerr << fmt::format("  W{}A{} {} seed {}: tau {:.2f} GOPS in {} evaluations, vta {:.2f} GOPS in {}\n", p, p,
                                 tuner, seed, best[0], evals[0], best[1], evals[1]);
      }
      std::cout << fmt::format(
          "W{}A{:<4} {:<7} {:>9.2f} {:>9.2f} {:>11.2f}x {:>9.0f} {:>9.0f} {:>1}{:>10.2f}x {:>8.0f} {:>8.0f}\n", p, p,
          tuner, median(tau_best), median(vta_best), median(perf), median(tau_evals), median(vta_evals),
          vta_never ? ">" : " ", median(conv), median(tau_own), median(vta_own));
      out.push_back({{"precision", p},
                     {"tuner", tuner},
                     {"tau_gops", tau_best},
                     {"vta_gops", vta_best},
                     {"tau_evaluations_to_95pct", tau_evals},
                     {"vta_evaluations_to_95pct", vta_evals},
                     {"vta_never_reached", vta_never},
                     {"tau_evaluations_to_95pct_of_own_best", tau_own},
                     {"vta_evaluations_to_95pct_of_own_best", vta_own},
                     {"performance_ratio_median", median(perf)},
                     {"convergence_ratio_median", median(conv)}});
    }
  }
  if (!json_out.empty()) tauvta::write_file_atomic(json_out, out.dump(2) + "\n");
  return 0;
}
