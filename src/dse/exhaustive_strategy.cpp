// Exhaustive screening: the resource model over every design of the pruned space (microseconds
// each; rejected designs are counted by verdict, not kept), then every feasible design timed with
// the default heuristic schedules (designs that time alike are timed once), then the best few
// tuned.
#include <algorithm>
#include <map>
#include <set>

#include "dse/design_mapping.h"
#include "dse/strategies.h"

namespace tauvta::dse {

bool next_resource_chunk(const std::vector<Design>& pruned, size_t& pos, std::vector<Ask>& asks) {
  constexpr size_t kChunk = 2048;  // large enough to keep the threads busy, small for progress
  if (pos >= pruned.size()) return false;
  const size_t end = std::min(pruned.size(), pos + kChunk);
  for (; pos < end; ++pos) asks.push_back({pruned[pos], -1, false});
  return true;
}

std::vector<Design> best_distinct(std::span<const Evaluation> evals, size_t n) {
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
    if (!seen.insert(timing_key(e->config)).second) continue;
    out.push_back(e->design);
  }
  return out;
}

namespace {

class Exhaustive final : public Strategy {
 public:
  Exhaustive(const StrategyOptions& o, std::vector<Design> pruned) : o_(o), pruned_(std::move(pruned)) {}

  std::vector<Ask> next() override {
    std::vector<Ask> asks;
    if (next_resource_chunk(pruned_, pos_, asks)) return asks;
    if (fpos_ < feasible_.size()) {
      const size_t end = std::min(feasible_.size(), fpos_ + kChunk);
      for (; fpos_ < end; ++fpos_) asks.push_back({feasible_[fpos_], 0});
      return asks;
    }
    if (finals_done_ || o_.budget == 0) return asks;
    finals_done_ = true;
    for (const Design& d : best_distinct(screened_, size_t(o_.finalists))) asks.push_back({d, o_.budget});
    return asks;
  }
  void report(std::span<const Evaluation> results) override {
    for (const Evaluation& e : results) {
      if (e.budget < 0) {
        if (e.feasible) {
          feasible_.push_back(e.design);
        } else {
          ++rejected_[e.verdict];
        }
      }
      if (e.budget == 0 && e.feasible) screened_.push_back(e);
    }
  }
  std::string name() const override { return "exhaustive"; }
  nlohmann::json summary() const override {
    nlohmann::json rej = nlohmann::json::object();
    for (const auto& [why, n] : rejected_) rej[why] = n;
    return {{"resource_feasible", feasible_.size()}, {"rejected_by_resource_model", rej}};
  }

 private:
  static constexpr size_t kChunk = 2048;
  StrategyOptions o_;
  std::vector<Design> pruned_;
  size_t pos_ = 0, fpos_ = 0;
  std::vector<Design> feasible_;
  std::map<std::string, size_t> rejected_;
  bool finals_done_ = false;
  std::vector<Evaluation> screened_;
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(const StrategyOptions& o, const DesignSpace& /*space: screened whole*/,
                                          std::vector<Design> pruned) {
  return std::make_unique<Exhaustive>(o, std::move(pruned));
}

}  // namespace tauvta::dse
