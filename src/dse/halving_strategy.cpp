// VTA's SuccessiveHalving over hardware candidates (the VTA paper, section 4): the k feasible
// designs of highest peak GOPS (the analytic filter), each round tuned round-robin over the
// workload's tasks with the round's budget, the better half by end-to-end latency kept, the
// budget doubled. Rounds add trials to the same tuning logs, so a survivor keeps what it learned.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "dse/design_mapping.h"
#include "dse/strategies.h"

namespace tauvta::dse {

namespace {

class Halving final : public Strategy {
 public:
  Halving(const StrategyOptions& o, std::vector<Design> pruned) : o_(o), pruned_(std::move(pruned)) {}

  std::vector<Ask> next() override {
    std::vector<Ask> asks;
    // The analytic filter's input: the resource model over the pruned space, on the explorer's
    // threads (counted there, not kept).
    if (next_resource_chunk(pruned_, pos_, asks)) return asks;
    if (!selected_) select();
    if (done_ || survivors_.empty() || o_.budget == 0) return asks;
    cumulative_ += step_ << round_;
    for (const Design& d : survivors_) asks.push_back({d, cumulative_});
    return asks;
  }
  void report(std::span<const Evaluation> results) override {
    if (!selected_) {
      for (const Evaluation& e : results) {
        if (e.feasible) feasible_.push_back({e.design, e.peak_gops, e.resources.lut, timing_key(e.config)});
      }
      return;
    }
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
  // The k feasible designs of highest peak GOPS (fewest LUTs first among equals), one per
  // distinct timing; the first round's trials so that the winner's total is about the budget.
  void select() {
    selected_ = true;
    std::stable_sort(feasible_.begin(), feasible_.end(), [](const Cand& a, const Cand& b) {
      if (a.peak != b.peak) return a.peak > b.peak;
      return a.lut < b.lut;
    });
    std::set<std::string> seen;
    for (const Cand& c : feasible_) {
      if (survivors_.size() >= size_t(std::max(1, o_.candidates))) break;
      if (!seen.insert(c.timing).second) continue;
      survivors_.push_back(c.d);
    }
    int rounds = 1;
    for (size_t n = survivors_.size(); n > 1; n = (n + 1) / 2) ++rounds;
    const double total = double((int64_t(1) << rounds) - 1);
    step_ = std::max<int64_t>(1, int64_t(std::floor(double(o_.budget) / total)));
  }

  struct Cand {
    Design d;
    double peak, lut;
    std::string timing;
  };
  StrategyOptions o_;
  std::vector<Design> pruned_;
  size_t pos_ = 0;
  bool selected_ = false;
  std::vector<Cand> feasible_;
  std::vector<Design> survivors_;
  int64_t step_ = 1, cumulative_ = 0;
  int round_ = 0;
  bool done_ = false;
  nlohmann::json rounds_ = nlohmann::json::array();
};

}  // namespace

std::unique_ptr<Strategy> make_halving(const StrategyOptions& o, std::vector<Design> pruned) {
  return std::make_unique<Halving>(o, std::move(pruned));
}

}  // namespace tauvta::dse
