#include "dse/strategy.h"

#include <fmt/format.h>

#include "common/error.h"
#include "dse/strategies.h"

namespace tauvta::dse {

const char* strategy_kinds() { return "exhaustive, halving, tau, vta"; }

void check_strategy(const StrategyOptions& o) {
  if (o.kind != "exhaustive" && o.kind != "halving" && o.kind != "tau" && o.kind != "vta") {
    throw Error(fmt::format("dse: unknown strategy '{}' (expected one of {})", o.kind, strategy_kinds()));
  }
  if (o.budget < 0) throw Error(fmt::format("dse: budget {} is negative", o.budget));
  // Halving's rounds double a trial budget; without one it would evaluate nothing at all.
  if (o.kind == "halving" && o.budget == 0) {
    throw Error("dse: halving needs --budget N > 0 (its rounds tune the survivors); --strategy exhaustive --budget 0 "
                "screens every design with heuristic schedules");
  }
}

std::unique_ptr<Strategy> make_strategy(const StrategyOptions& o, const DesignSpace& space,
                                        std::vector<Design> pruned) {
  check_strategy(o);
  if (o.kind == "exhaustive") return make_exhaustive(o, space, std::move(pruned));
  if (o.kind == "halving") return make_halving(o, std::move(pruned));
  if (o.kind == "tau") return make_tau(o, space, std::move(pruned));
  return make_vta_selection(o, space, std::move(pruned));
}

}  // namespace tauvta::dse
