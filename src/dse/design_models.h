// tau-VTA's prediction models (section III-B1): one XGBoost regressor per target (GOPS, LUT, FF,
// DSP, BRAM) over the design features, trained on evaluated designs of one precision. Reports
// each model's accuracy on a 20% held-out split (as the paper does) and its feature importance
// (gain), which Algorithm 1 samples new overlays by. Deterministic for a seed.
#pragma once

#include <array>
#include <optional>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dse/design_space.h"
#include "dse/evaluator.h"
#include "ml/cost_model.h"

namespace tauvta::dse {

enum class Target : uint8_t { kGops = 0, kLut, kFf, kDsp, kBram, kCount };
inline constexpr int kNumTargets = int(Target::kCount);
const char* target_name(Target t);  // "GOPS", "LUT", ...
double target_value(const Evaluation& e, Target t);

struct TargetReport {
  Target target = Target::kGops;
  size_t train = 0, heldout = 0;
  // Held-out accuracy: the share of held-out designs predicted within 10% (GOPS of infeasible
  // designs is 0 and counts when predicted below 10% of the largest), and the median relative error.
  double within10 = 0, median_error = 0;
  std::vector<std::pair<std::string, double>> importance;  // gain, best first, summing to 1
};

struct ImportanceReport {
  int precision = 8;
  size_t samples = 0;
  std::vector<TargetReport> targets;
};
nlohmann::json to_json(const ImportanceReport& r);

class DesignModels {
 public:
  // Models of `targets` only (a search that learns GOPS and resources from different data keeps
  // two instances).
  DesignModels(uint64_t seed, std::vector<Target> targets);
  // Fits the targets on `evals` (one precision). Needs at least 5 designs; fewer leaves the
  // models untrained.
  void fit(const DesignSpace& space, std::span<const Evaluation> evals);
  bool trained() const { return trained_; }
  // Predictions of target `t` (one of the instance's targets) for `rows` (n x kNumKnobs features).
  std::vector<float> predict(Target t, std::span<const float> rows) const;
  // Normalized GOPS importance per knob (uniform before training or without a GOPS model).
  std::array<double, kNumKnobs> gops_importance() const;

 private:
  uint64_t seed_;
  std::vector<Target> targets_;
  bool trained_ = false;
  std::vector<std::optional<ml::CostModel>> models_;  // by target
  std::array<double, kNumKnobs> gops_importance_{};
};

// Trains on 80% of `evals` and measures on the rest; every design's importance from a model
// trained on all of them.
ImportanceReport analyze_importance(const DesignSpace& space, std::span<const Evaluation* const> evals,
                                    uint64_t seed);

}  // namespace tauvta::dse
