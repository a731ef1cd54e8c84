// The model-guided searcher ("xgb"), tau-VTA's Algorithm 1 lines 4-10 (TVM's model-based tuner):
// an XGBoost cost model retrained on every report, parallel simulated-annealing chains over the
// model's predictions kept across rounds collect the most promising unmeasured points, and each
// batch takes (1 - epsilon) of its candidates from the annealer's best and epsilon at random.
// Until the model has something to learn from (no transfer set, too few measurements) the
// annealer ranks points by the analytic cycle estimate (one of the features), or, without that
// prior, batches are random. The model is refit when the measurements have grown by half since
// the last fit (TVM refits every 64 trials): early batches get a fresh model, long runs do not
// spend their time in training.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_set>

#include "common/error.h"
#include "tune/features.h"
#include "tune/searcher.h"

namespace tauvta::tune {

namespace {

constexpr size_t kMinTrain = 8;            // measurements before the first fit
constexpr size_t kPrefill = size_t(1) << 16;  // spaces up to this size are predicted at once
constexpr int kStall = 40;                 // annealing steps without a new top candidate

class ModelSearcher final : public Searcher {
 public:
  ModelSearcher(const SearcherOptions& o, const KnobSpace& space, std::span<const float> features)
      : Searcher(space, o.seed),
        o_(o),
        features_(features),
        model_(feature_names(), o.model),
        pred_(space.size(), std::numeric_limits<float>::quiet_NaN()) {
    if (o_.transfer && o_.transfer->size() > 0) fit();
    if (!model_.trained() && o_.analytic_prior) use_prior();
  }

  std::vector<size_t> next(size_t batch) override {
    std::vector<size_t> out;
    if (model_.trained() || prior_) {
      const size_t from_model = size_t(std::llround(double(batch) * (1.0 - std::clamp(o_.epsilon, 0.0, 1.0))));
      for (size_t p : anneal(std::max<size_t>(from_model, 1))) {
        if (out.size() >= from_model) break;
        if (take(p)) out.push_back(p);
      }
    }
    while (out.size() < batch) {
      const std::optional<size_t> p = take_random();
      if (!p) break;
      out.push_back(*p);
    }
    return out;
  }

  void report(std::span<const TrialResult> results) override {
    Searcher::report(results);
    for (const TrialResult& r : results) measured_.push_back(r);
    if (measured_.size() >= next_fit_) fit();
  }

  std::string name() const override { return "xgb"; }

  std::vector<std::pair<std::string, double>> feature_importance() const override {
    if (!model_.trained()) return {};
    return model_.feature_importance("gain");
  }

 private:
  size_t nf() const { return num_features(); }
  std::span<const float> row(size_t p) const { return features_.subspan(p * nf(), nf()); }

  void fit() {
    double best = 0;
    for (const TrialResult& r : measured_) best = std::max(best, r.score);
    const bool own = measured_.size() >= kMinTrain && best > 0;
    const TransferSet* t = o_.transfer && o_.transfer->size() > 0 ? o_.transfer : nullptr;
    if (!own && !t) return;
    next_fit_ = std::max(kMinTrain, measured_.size() + (measured_.size() + 1) / 2);
    prior_ = false;
    std::vector<float> rows, scores;
    std::vector<unsigned> groups;
    if (t) {
      rows = t->rows;
      scores = t->scores;
      groups = t->groups;
    }
    if (own) {
      for (const TrialResult& r : measured_) {
        const std::span<const float> x = row(r.point);
        rows.insert(rows.end(), x.begin(), x.end());
        scores.push_back(float(r.score / best));
      }
      groups.push_back(unsigned(measured_.size()));
    }
    model_.fit(rows, scores, groups);
    std::fill(pred_.begin(), pred_.end(), std::numeric_limits<float>::quiet_NaN());
    if (space_.size() <= kPrefill) {
      const std::vector<float> all = model_.predict(features_);
      std::copy(all.begin(), all.end(), pred_.begin());
    }
  }

  // Scores every point by minus its analytic cycle estimate.
  void use_prior() {
    const auto& names = feature_names();
    const size_t f = size_t(std::find(names.begin(), names.end(), "log2_estimate_cycles") - names.begin());
    for (size_t p = 0; p < space_.size(); ++p) pred_[p] = -row(p)[f];
    prior_ = true;
  }

  // Predictions of `points` not cached yet, in one call.
  void predict(const std::vector<size_t>& points) {
    std::vector<size_t> missing;
    std::vector<float> rows;
    for (size_t p : points) {
      if (!std::isnan(pred_[p])) continue;
      missing.push_back(p);
      const std::span<const float> x = row(p);
      rows.insert(rows.end(), x.begin(), x.end());
    }
    if (missing.empty() || prior_) return;
    const std::vector<float> y = model_.predict(rows);
    for (size_t i = 0; i < missing.size(); ++i) pred_[missing[i]] = y[i];
  }

  // The best `k` unproposed points the chains find, best first.
  std::vector<size_t> anneal(size_t k) {
    if (chains_.empty()) {
      std::uniform_int_distribution<size_t> pick(0, space_.size() - 1);
      for (int i = 0; i < std::max(1, o_.chains); ++i) chains_.push_back(pick(rng_));
    }
    predict(chains_);
    std::set<std::pair<float, size_t>> top;  // (prediction, point), smallest first
    std::unordered_set<size_t> in_top;
    auto offer = [&](size_t p) {
      if (was_proposed(p) || in_top.count(p)) return false;
      const float y = pred_[p];
      if (top.size() >= k && y <= top.begin()->first) return false;
      top.emplace(y, p);
      in_top.insert(p);
      if (top.size() > k) {
        in_top.erase(top.begin()->second);
        top.erase(top.begin());
      }
      return true;
    };
    float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
    for (size_t p : chains_) {
      offer(p);
      lo = std::min(lo, pred_[p]);
      hi = std::max(hi, pred_[p]);
    }
    // Predictions of the rank objective have no fixed scale: temperatures are relative to the
    // spread the chains start from.
    const double spread = std::max(1e-6, double(hi - lo));
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<size_t> moves(chains_.size());
    int stall = 0;
    for (int step = 0; step < o_.anneal_steps && stall < kStall; ++step) {
      const double temp = spread * (1.0 - double(step) / double(o_.anneal_steps)) + 1e-9;
      for (size_t c = 0; c < chains_.size(); ++c) moves[c] = space_.random_neighbor(chains_[c], rng_).value_or(chains_[c]);
      predict(moves);
      bool improved = false;
      for (size_t c = 0; c < chains_.size(); ++c) {
        const double d = double(pred_[moves[c]]) - double(pred_[chains_[c]]);
        if (d >= 0 || u(rng_) < std::exp(d / temp)) chains_[c] = moves[c];
        improved = offer(moves[c]) || improved;
      }
      stall = improved ? 0 : stall + 1;
    }
    std::vector<size_t> out;
    for (auto it = top.rbegin(); it != top.rend(); ++it) out.push_back(it->second);
    return out;
  }

  SearcherOptions o_;
  std::span<const float> features_;
  CostModel model_;
  std::vector<float> pred_;        // cached predictions of the current model (NaN: not yet)
  std::vector<size_t> chains_;     // annealing chains, kept across rounds
  std::vector<TrialResult> measured_;
  size_t next_fit_ = kMinTrain;  // refit once this many measurements are in
  bool prior_ = false;           // pred_ holds the analytic prior, not the model's
};

}  // namespace

std::unique_ptr<Searcher> make_model_searcher(const SearcherOptions& o, const KnobSpace& space,
                                              std::span<const float> features) {
  if (features.size() != space.size() * num_features()) {
    throw InternalError("model searcher: the feature table does not match the space");
  }
  return std::make_unique<ModelSearcher>(o, space, features);
}

}  // namespace tauvta::tune
