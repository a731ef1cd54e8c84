// The strategies' constructors (dse/strategy.h describes each); one file per strategy.
#pragma once

#include <memory>
#include <vector>

#include "dse/strategy.h"

namespace tauvta::dse {

std::unique_ptr<Strategy> make_exhaustive(const StrategyOptions& o, const DesignSpace& space,
                                          std::vector<Design> pruned);
std::unique_ptr<Strategy> make_halving(const StrategyOptions& o, const DesignSpace& space,
                                       std::vector<Design> pruned, const Evaluator& evaluator);
std::unique_ptr<Strategy> make_tau(const StrategyOptions& o, const DesignSpace& space, std::vector<Design> pruned);
std::unique_ptr<Strategy> make_vta_selection(const StrategyOptions& o, const DesignSpace& space,
                                             std::vector<Design> pruned, const Evaluator& evaluator);

// Up to `n` feasible evaluations of distinct timing (designs differing only in binding, DSP limit
// or array options time the same), best GOPS first.
std::vector<Design> best_distinct(const DesignSpace& space, std::span<const Evaluation> evals, size_t n);

}  // namespace tauvta::dse
