#include "dse/strategy.h"

#include <fmt/format.h>

#include "common/error.h"
#include "dse/strategies.h"

namespace tauvta::dse {

const char* strategy_kinds() { return "exhaustive, halving, tau, vta"; }

void check_strategy_kind(const std::string& kind) {
  if (kind != "exhaustive" && kind != "halving" && kind != "tau" && kind != "vta") {
    throw Error(fmt::format("dse: unknown strategy '{}' (expected one of {})", kind, strategy_kinds()));
  }
}

std::unique_ptr<Strategy> make_strategy(const StrategyOptions& o, const DesignSpace& space,
                                        std::vector<Design> pruned) {
  check_strategy_kind(o.kind);
  if (o.budget < 0) throw Error(fmt::format("dse: budget {} is negative", o.budget));
  if (o.kind == "exhaustive") return make_exhaustive(o, space, std::move(pruned));
  if (o.kind == "halving") return make_halving(o, std::move(pruned));
  if (o.kind == "tau") return make_tau(o, space, std::move(pruned));
  return make_vta_selection(o, space, std::move(pruned));
}

}  // namespace tauvta::dse
