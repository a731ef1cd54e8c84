// Exploration strategies behind one ask/tell interface (the tuner's, Timeloop's): next() proposes
// designs with the budget to evaluate each at (-1: resources only, 0: default heuristic schedules,
// N: N tuner trials per task), report() tells their evaluations. The explorer drives every
// strategy the same way, evaluating a batch in parallel. Deterministic for a seed.
//   exhaustive: screen the whole pruned space, then tune the best few.
//   halving:    VTA's SuccessiveHalving: the k feasible designs of highest peak GOPS; each round
//               tunes every survivor round-robin over the tasks, keeps the better half by latency
//               and doubles the budget.
//   tau:        tau-VTA's Algorithm 1: a screened random sample trains XGBoost models of GOPS and
//               resources; each sprint proposes m overlays by mutating the best designs on their
//               most important features, ranked by the models, auto-tunes them, and refits.
//   vta:        VTA-style selection (the paper's baseline): VTA's knobs at the board's clock and
//               VTA's HLS implementation, pruned by a BRAM budget, then tuned in order of peak GOPS
//               until `overlays` of them fit the device.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dse/design_space.h"
#include "dse/evaluator.h"

namespace tauvta::dse {

struct Ask {
  Design design{};
  int64_t budget = 0;
  // false: the evaluation is told to the strategy but not kept in the results (the exhaustive
  // strategy's resource pass over the whole pruned space: it keeps counts by verdict instead).
  bool record = true;
};

struct StrategyOptions {
  std::string kind = "tau";   // exhaustive, halving, tau, vta
  int64_t budget = 200;       // tuner trials per task for tuned designs (halving: the winner's total)
  uint64_t seed = 1;
  int finalists = 3;          // exhaustive: designs tuned after screening
  int candidates = 8;         // halving: k
  int overlays = 32;          // tau: tuned designs; vta: feasible tuned designs (failed ones cost evaluations)
  int sprint = 4;             // tau: overlays per sprint (m); vta: designs per batch
  int initial = 24;           // tau: screened random designs the models start from
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::vector<Ask> next() = 0;  // empty: done
  virtual void report(std::span<const Evaluation> results) = 0;
  virtual std::string name() const = 0;
  // What the strategy learned (tau: the models' importance and accuracy per sprint).
  virtual nlohmann::json summary() const { return nlohmann::json::object(); }
};

// `pruned`: the space's pruned designs (DesignSpace::pruned()). Throws tauvta::Error for an
// unknown kind.
std::unique_ptr<Strategy> make_strategy(const StrategyOptions& o, const DesignSpace& space,
                                        std::vector<Design> pruned);
const char* strategy_kinds();  // "exhaustive, halving, tau, vta"
// Throws tauvta::Error naming the problem: an unknown kind (and the known ones), a negative budget,
// or halving without a budget (it would evaluate nothing).
void check_strategy(const StrategyOptions& o);

}  // namespace tauvta::dse
