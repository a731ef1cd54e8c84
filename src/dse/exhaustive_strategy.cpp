// Exhaustive screening: every design of the pruned space with the default heuristic schedules (the
// resource model rejects most in microseconds; designs that time alike are timed once), then the
// best few tuned.
#include <algorithm>
#include <set>

#include "dse/strategies.h"

namespace tauvta::dse {

std::vector<Design> best_distinct(const DesignSpace& space, std::span<const Evaluation> evals, size_t n) {
  std::vector<const Evaluation*> ok;
  for (const Evaluation& e : evals) {
    if (e.feasible && e.cycles > 0) ok.push_back(&e);
  }
  std::stable_sort(ok.begin(), ok.end(), [](const Evaluation* a, const Evaluation* b) {
    if (a->gops != b->gops) return a->gops > b->gops;
    return a->resources.lut < b->resources.lut;
  });
  std::vector<Design> out;
  std::set<std::string> seen;
  for (const Evaluation* e : ok) {
    if (out.size() >= n) break;
    if (!seen.insert(e->config.to_json().dump()).second) continue;
    out.push_back(e->design);
  }
  (void)space;
  return out;
}

namespace {

class Exhaustive final : public Strategy {
 public:
  Exhaustive(const StrategyOptions& o, const DesignSpace& space, std::vector<Design> pruned)
      : o_(o), space_(space), pruned_(std::move(pruned)) {}

  std::vector<Ask> next() override {
    std::vector<Ask> asks;
    if (pos_ < pruned_.size()) {
      const size_t end = std::min(pruned_.size(), pos_ + kChunk);
      for (; pos_ < end; ++pos_) asks.push_back({pruned_[pos_], 0});
      return asks;
    }
    if (finals_done_ || o_.budget == 0) return asks;
    finals_done_ = true;
    for (const Design& d : best_distinct(space_, screened_, size_t(o_.finalists))) asks.push_back({d, o_.budget});
    return asks;
  }
  void report(std::span<const Evaluation> results) override {
    for (const Evaluation& e : results) {
      if (e.budget == 0 && e.feasible) screened_.push_back(e);
    }
  }
  std::string name() const override { return "exhaustive"; }

 private:
  static constexpr size_t kChunk = 2048;
  StrategyOptions o_;
  const DesignSpace& space_;
  std::vector<Design> pruned_;
  size_t pos_ = 0;
  bool finals_done_ = false;
  std::vector<Evaluation> screened_;
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(const StrategyOptions& o, const DesignSpace& space,
                                          std::vector<Design> pruned) {
  return std::make_unique<Exhaustive>(o, space, std::move(pruned));
}

}  // namespace tauvta::dse
