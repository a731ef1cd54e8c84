// VTA's SuccessiveHalving over hardware candidates (the VTA paper, section 4): the k feasible
// designs of highest peak GOPS (the analytic filter), each round tuned round-robin over the
// workload's tasks with the round's budget, the better half by end-to-end latency kept, the
// budget doubled. Rounds add trials to the same tuning logs, so a survivor keeps what it learned.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "dse/design_mapping.h"
#include "dse/strategies.h"

namespace tauvta::dse {

namespace {

class Halving final : public Strategy {
 public:
  Halving(const StrategyOptions& o, const DesignSpace& space, std::vector<Design> pruned, const Evaluator& ev)
      : o_(o) {
    // The analytic filter: feasible by the resource model, highest peak GOPS first, one design per
    // distinct timing.
    struct Cand {
      Design d;
      double peak, lut;
    };
    std::vector<Cand> feasible;
    for (const Design& d : pruned) {
      const Evaluation e = ev.cost_only(space, d);
      if (e.feasible) feasible.push_back({d, e.peak_gops, e.resources.lut});
    }
    std::stable_sort(feasible.begin(), feasible.end(), [](const Cand& a, const Cand& b) {
      if (a.peak != b.peak) return a.peak > b.peak;
      return a.lut < b.lut;
    });
    std::set<std::string> seen;
    for (const Cand& c : feasible) {
      if (survivors_.size() >= size_t(std::max(1, o.candidates))) break;
      if (!seen.insert(timing_key(map_design(space, c.d, ev.options().board))).second) continue;
      survivors_.push_back(c.d);
    }
    // Rounds until one is left; the winner's total trials per task is about the budget.
    int rounds = 1;
    for (size_t n = survivors_.size(); n > 1; n = (n + 1) / 2) ++rounds;
    const double total = double((int64_t(1) << rounds) - 1);
    step_ = std::max<int64_t>(1, int64_t(std::floor(double(o.budget) / total)));
  }

  std::vector<Ask> next() override {
    std::vector<Ask> asks;
    if (done_ || survivors_.empty() || o_.budget == 0) return asks;
    cumulative_ += step_ << round_;
    for (const Design& d : survivors_) asks.push_back({d, cumulative_});
    return asks;
  }
  void report(std::span<const Evaluation> results) override {
    std::vector<std::pair<double, Design>> ranked;
    for (const Evaluation& e : results) {
      const double latency = e.feasible && e.cycles > 0 ? e.latency_ms : std::numeric_limits<double>::infinity();
      ranked.push_back({latency, e.design});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    nlohmann::json round = {{"round", round_}, {"trials_per_task", cumulative_}, {"candidates", ranked.size()}};
    round["latency_ms"] = nlohmann::json::array();
    for (const auto& [l, d] : ranked) round["latency_ms"].push_back(std::isfinite(l) ? l : -1.0);
    rounds_.push_back(round);
    if (ranked.size() <= 1) {
      done_ = true;
      return;
    }
    survivors_.clear();
    for (size_t i = 0; i < (ranked.size() + 1) / 2; ++i) survivors_.push_back(ranked[i].second);
    ++round_;
  }
  std::string name() const override { return "halving"; }
  nlohmann::json summary() const override { return {{"rounds", rounds_}, {"first_round_trials", step_}}; }

 private:
  StrategyOptions o_;
  std::vector<Design> survivors_;
  int64_t step_ = 1, cumulative_ = 0;
  int round_ = 0;
  bool done_ = false;
  nlohmann::json rounds_ = nlohmann::json::array();
};

}  // namespace

std::unique_ptr<Strategy> make_halving(const StrategyOptions& o, const DesignSpace& space,
                                       std::vector<Design> pruned, const Evaluator& evaluator) {
  return std::make_unique<Halving>(o, space, std::move(pruned), evaluator);
}

}  // namespace tauvta::dse
