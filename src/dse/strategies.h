// The strategies' constructors (dse/strategy.h describes each); one file per strategy.
#pragma once

#include <memory>
#include <vector>

#include "dse/strategy.h"

namespace tauvta::dse {

std::unique_ptr<Strategy> make_exhaustive(const StrategyOptions& o, const DesignSpace& space,
                                          std::vector<Design> pruned);
std::unique_ptr<Strategy> make_halving(const StrategyOptions& o, std::vector<Design> pruned);
std::unique_ptr<Strategy> make_tau(const StrategyOptions& o, const DesignSpace& space, std::vector<Design> pruned);
std::unique_ptr<Strategy> make_vta_selection(const StrategyOptions& o, const DesignSpace& space,
                                             std::vector<Design> pruned);

// The next chunk of the resource model's pass over `pruned` from `pos` (asks of budget -1, told
// to the strategy but not kept); false, asking nothing, once the pass is over.
bool next_resource_chunk(const std::vector<Design>& pruned, size_t& pos, std::vector<Ask>& asks);

// Up to `n` feasible evaluations of distinct timing (designs differing only in binding, DSP limit
// or array options time the same), best GOPS first.
std::vector<Design> best_distinct(std::span<const Evaluation> evals, size_t n);

}  // namespace tauvta::dse
