// tau-VTA's Algorithm 1 over one precision. The models' data: the resource model's answers for a
// random sample of the pruned space (the paper's offline implementation dataset) and a screened
// random sample of feasible designs. Each sprint (lines 1-2) fits XGBoost models of GOPS, LUT, FF,
// DSP and BRAM, proposes m overlays by mutating the best designs so far on knobs drawn by their
// GOPS importance, keeps those the models predict fit the device, ranks them by predicted GOPS,
// and auto-tunes each (lines 4-10: the tuner's simulated annealing and epsilon-greedy batches);
// their results join the data for the next sprint.
#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "dse/design_models.h"
#include "dse/strategies.h"

namespace tauvta::dse {

namespace {

constexpr size_t kResourceSample = 4096;
constexpr int kProposals = 400;

class Tau final : public Strategy {
 public:
  Tau(const StrategyOptions& o, const DesignSpace& space, std::vector<Design> pruned)
      : o_(o), space_(space), pruned_(std::move(pruned)), rng_(o.seed),
        perf_(o.seed, {Target::kGops}),
        res_(o.seed + 17, {Target::kLut, Target::kFf, Target::kDsp, Target::kBram}) {}

  std::vector<Ask> next() override {
    std::vector<Ask> asks;
    if (pruned_.empty()) return asks;
    if (phase_ == 0) {  // resources of a random sample
      phase_ = 1;
      for (size_t i : sample(std::min(kResourceSample, pruned_.size()))) asks.push_back({pruned_[i], -1});
      return asks;
    }
    if (phase_ == 1) {  // a screened random sample of (known) feasible designs
      phase_ = 2;
      std::vector<Design> pool;
      for (const Evaluation& e : all_) {
        if (e.feasible) pool.push_back(e.design);
      }
      if (pool.empty()) pool = pruned_;
      std::shuffle(pool.begin(), pool.end(), rng_);
      for (size_t i = 0; i < pool.size() && asks.size() < size_t(std::max(1, o_.initial)); ++i) {
        asks.push_back({pool[i], 0});
      }
      return asks;
    }
    if (tuned_ >= o_.overlays || o_.budget == 0) return asks;
    const size_t m = size_t(std::min(o_.sprint, o_.overlays - tuned_));
    for (const Design& d : propose(m)) asks.push_back({d, o_.budget});
    tuned_ += int(asks.size());
    return asks;
  }

  void report(std::span<const Evaluation> results) override {
    for (const Evaluation& e : results) {
      all_.push_back(e);
      if (e.budget >= 0) perf_data_.push_back(e);
      if (e.budget > 0) proposed_.insert(space_.key(e.design));
    }
    perf_.fit(space_, perf_data_);
    res_.fit(space_, all_);
    if (phase_ == 2 && perf_.trained()) {
      nlohmann::json imp = nlohmann::json::object();
      const auto w = perf_.gops_importance();
      for (int k = 0; k < kNumKnobs; ++k) {
        if (w[size_t(k)] > 0.01) imp[knob_name(Knob(k))] = w[size_t(k)];
      }
      sprints_.push_back({{"after_evaluations", perf_data_.size()}, {"gops_importance", imp}});
    }
  }

  std::string name() const override { return "tau"; }
  nlohmann::json summary() const override { return {{"sprints", sprints_}}; }

 private:
  std::vector<size_t> sample(size_t n) {
    std::vector<size_t> idx(pruned_.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::shuffle(idx.begin(), idx.end(), rng_);
    idx.resize(n);
    return idx;
  }

  std::vector<Design> propose(size_t m) {
    std::vector<const Evaluation*> ranked;
    for (const Evaluation& e : perf_data_) {
      if (e.feasible && e.cycles > 0) ranked.push_back(&e);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) { return a->gops > b->gops; });
    std::vector<Design> out;
    std::set<std::string> taken;
    // The best screened design not tuned yet is the models' first choice by construction.
    if (!ranked.empty() && !proposed_.count(space_.key(ranked[0]->design))) {
      out.push_back(ranked[0]->design);
      taken.insert(space_.key(ranked[0]->design));
    }
    const size_t bases = std::min<size_t>(4, ranked.size());
    std::vector<Design> cands;
    if (bases > 0 && perf_.trained()) {
      std::array<double, kNumKnobs> w = perf_.gops_importance();
      for (int k = 0; k < kNumKnobs; ++k) w[size_t(k)] = space_.values(Knob(k)).size() > 1 ? w[size_t(k)] + 0.01 : 0;
      std::discrete_distribution<int> pick(w.begin(), w.end());
      std::uniform_int_distribution<size_t> base(0, bases - 1);
      for (int i = 0; i < kProposals; ++i) {
        Design d = ranked[base(rng_)]->design;
        const int changes = 1 + int(rng_() % 2);
        for (int c = 0; c < changes; ++c) {
          const int k = pick(rng_);
          const size_t n = space_.values(Knob(k)).size();
          d[size_t(k)] = uint8_t((d[size_t(k)] + 1 + rng_() % (n - 1)) % n);
        }
        const std::string key = space_.key(d);
        if (proposed_.count(key) || taken.count(key) || space_.violation(d)) continue;
        taken.insert(key);
        cands.push_back(d);
      }
    }
    if (!cands.empty() && res_.trained()) {
      std::vector<float> rows;
      for (const Design& d : cands) {
        const auto f = space_.features(d);
        rows.insert(rows.end(), f.begin(), f.end());
      }
      const auto gops = perf_.predict(Target::kGops, rows);
      std::array<std::vector<float>, kNumTargets> r;
      for (int t = 1; t < kNumTargets; ++t) r[size_t(t)] = res_.predict(Target(t), rows);
      const fpga::Resources& cap = space_.device().total;
      std::vector<std::pair<float, size_t>> order;
      for (size_t i = 0; i < cands.size(); ++i) {
        const bool fits = r[1][i] <= cap.lut && r[2][i] <= cap.ff && r[3][i] <= cap.dsp && r[4][i] <= cap.bram36;
        if (fits) order.push_back({gops[i], i});
      }
      std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first > b.first; });
      for (const auto& [g, i] : order) {
        if (out.size() >= m) break;
        out.push_back(cands[i]);
      }
    }
    // Too few proposals (no model yet, or a tiny space): random designs not tuned before.
    for (size_t i : sample(pruned_.size())) {
      if (out.size() >= m) break;
      const std::string key = space_.key(pruned_[i]);
      if (proposed_.count(key) || taken.count(key)) continue;
      taken.insert(key);
      out.push_back(pruned_[i]);
    }
    return out;
  }

  StrategyOptions o_;
  const DesignSpace& space_;
  std::vector<Design> pruned_;
  std::mt19937_64 rng_;
  DesignModels perf_, res_;
  int phase_ = 0, tuned_ = 0;
  std::vector<Evaluation> all_, perf_data_;
  std::set<std::string> proposed_;
  nlohmann::json sprints_ = nlohmann::json::array();
};

}  // namespace

std::unique_ptr<Strategy> make_tau(const StrategyOptions& o, const DesignSpace& space, std::vector<Design> pruned) {
  return std::make_unique<Tau>(o, space, std::move(pruned));
}

}  // namespace tauvta::dse
