// The exploration loop for one precision: enumerate the pruned space, then ask the strategy for
// batches, evaluate each batch with a runner (dse/batch_runner.h: threads here, or a Slurm job
// array), tell the strategy, until it has nothing more to ask. Every evaluation is kept in order (the convergence curve and the CSV), and the feature
// importance of GOPS and resources is measured over what was evaluated. A library call with no
// global state.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "dse/batch_runner.h"
#include "dse/design_models.h"
#include "dse/evaluator.h"
#include "dse/strategy.h"

namespace tauvta::dse {

struct ExploreProgress {
  int precision = 8;
  size_t evaluated = 0, feasible = 0, pruned = 0;  // evaluated: resource-only ones included
  size_t timed = 0;  // evaluations with timing (the rest: the resource model's verdict alone)
  double best_gops = 0;
  double designs_per_second = 0;
};

struct ExploreOptions {
  StrategyOptions strategy;
  int threads = 0;  // <= 0: every core (the default runner's threads)
  BatchRunner* runner = nullptr;  // null: a ThreadRunner of `threads`
  std::function<void(const ExploreProgress&)> progress;
};

struct PrecisionResult {
  int precision = 8;
  std::string device;
  double raw_size = 0;
  size_t pruned_size = 0;
  std::vector<Evaluation> evaluations;  // in the order they were asked (resources-only included)
  std::optional<size_t> best;           // index of the feasible evaluation of highest GOPS
  nlohmann::json strategy_summary;
  ImportanceReport importance;
  double wall_seconds = 0;
  size_t feasible() const;
  // Designs evaluated with timing (budget >= 0): what convergence counts.
  size_t performance_evaluations() const;
  // How many performance evaluations it took to reach `fraction` of `target` GOPS (0: never).
  size_t evaluations_to_reach(double target, double fraction = 0.95) const;
};

PrecisionResult explore(const DesignSpace& space, Evaluator& evaluator, const ExploreOptions& o);

}  // namespace tauvta::dse
