// CostModel: a gradient-boosted tree model (XGBoost) that predicts how good a candidate is from
// its feature vector, so a search measures only the candidates the model ranks best. Each
// instance owns its booster and keeps no global state; a seed makes training reproducible.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tauvta::ml {

// kRank learns the order within each query group ("rank:pairwise"), so scores of different tasks
// (one group each) need not share a scale; kRegression fits the scores ("reg:squarederror").
enum class CostObjective { kRank, kRegression };

const char* cost_objective_name(CostObjective o);  // "rank", "regression"
// Throws tauvta::Error naming the value.
CostObjective parse_cost_objective(const std::string& name);

struct CostModelOptions {
  CostObjective objective = CostObjective::kRank;
  int rounds = 50;  // boosting rounds per fit
  int max_depth = 6;
  double eta = 0.3;
  double subsample = 1.0;
  int min_child_weight = 1;
  int max_bin = 64;  // histogram bins per feature: fewer bins, faster fits (the tuner refits often)
  int nthread = 1;  // XGBoost threads (the tuner measures on the other cores)
  uint64_t seed = 0;
};

// Rows are row-major float matrices of n x num_features(); NaN marks a missing feature. Separate
// instances may be used from separate threads; one instance must not be used by two threads at
// once, not even through const methods (XGBoost caches predictions inside the booster).
class CostModel {
 public:
  // Throws tauvta::Error for no features, duplicate names or an option out of range.
  explicit CostModel(std::vector<std::string> feature_names, CostModelOptions options = {});
  ~CostModel();
  CostModel(CostModel&&) noexcept;
  CostModel& operator=(CostModel&&) noexcept;
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  size_t num_features() const { return feature_names_.size(); }
  const std::vector<std::string>& feature_names() const { return feature_names_; }
  const CostModelOptions& options() const { return options_; }

  // Trains a fresh booster on `rows` with `scores` (higher = better, e.g. GOPS), replacing the
  // previous one only on success. `groups`: sizes of consecutive query groups for kRank (empty:
  // one group of all rows); ignored for kRegression. Throws tauvta::Error when there are no rows,
  // sizes disagree, a score is not finite or XGBoost reports an error.
  void fit(std::span<const float> rows, std::span<const float> scores,
           std::span<const unsigned> groups = {});
  bool trained() const { return booster_ != nullptr; }

  // Predicted scores (higher = better) of rows.size() / num_features() rows; for kRank they
  // order candidates but are not on the scale of the scores. Throws if not trained or the size
  // is not a multiple of num_features().
  std::vector<float> predict(std::span<const float> rows) const;

  // (feature name, score) for every feature, best first; features no tree uses score 0.
  // `type`: "gain", "total_gain", "weight", "cover" or "total_cover". Throws if not trained.
  std::vector<std::pair<std::string, double>> feature_importance(
      const std::string& type = "gain") const;

  // The booster as XGBoost's JSON model. load() replaces the booster (its objective comes from
  // the model, not from options()); it throws if the model has a different feature count.
  std::vector<char> save() const;
  void load(std::span<const char> model);

 private:
  struct BoosterFree {
    void operator()(void* booster) const;
  };
  using Booster = std::unique_ptr<void, BoosterFree>;

  std::vector<std::string> feature_names_;
  CostModelOptions options_;
  Booster booster_;
};

}  // namespace tauvta::ml
