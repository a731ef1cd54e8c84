#include "dse/design_models.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace tauvta::dse {

const char* target_name(Target t) {
  switch (t) {
    case Target::kGops: return "GOPS";
    case Target::kLut: return "LUT";
    case Target::kFf: return "FF";
    case Target::kDsp: return "DSP";
    case Target::kBram: return "BRAM";
    case Target::kCount: break;
  }
  return "?";
}

double target_value(const Evaluation& e, Target t) {
  switch (t) {
    case Target::kGops: return e.feasible ? e.gops : 0.0;
    case Target::kLut: return e.resources.lut;
    case Target::kFf: return e.resources.ff;
    case Target::kDsp: return e.resources.dsp;
    case Target::kBram: return e.resources.bram36;
    case Target::kCount: break;
  }
  return 0;
}

namespace {

ml::CostModelOptions regression(uint64_t seed) {
  ml::CostModelOptions o;
  o.objective = ml::CostObjective::kRegression;
  o.rounds = 60;
  o.max_depth = 5;
  o.eta = 0.3;
  o.seed = seed;
  return o;
}

std::vector<float> rows_of(const DesignSpace& space, std::span<const Evaluation* const> evals) {
  std::vector<float> rows;
  rows.reserve(evals.size() * kNumKnobs);
  for (const Evaluation* e : evals) {
    const std::vector<float> f = space.features(e->design);
    rows.insert(rows.end(), f.begin(), f.end());
  }
  return rows;
}

std::vector<std::pair<std::string, double>> normalized(std::vector<std::pair<std::string, double>> imp) {
  double sum = 0;
  for (const auto& [name, v] : imp) sum += v;
  if (sum > 0) {
    for (auto& [name, v] : imp) v /= sum;
  }
  return imp;
}

}  // namespace

DesignModels::DesignModels(uint64_t seed, std::vector<Target> targets) : seed_(seed), targets_(std::move(targets)) {
  gops_importance_.fill(1.0 / kNumKnobs);
}

void DesignModels::fit(const DesignSpace& space, std::span<const Evaluation> evals) {
  if (evals.size() < 5) return;
  std::vector<const Evaluation*> all;
  for (const Evaluation& e : evals) all.push_back(&e);
  const std::vector<float> rows = rows_of(space, all);
  std::vector<std::optional<ml::CostModel>> models(kNumTargets);
  for (Target t : targets_) {
    std::vector<float> y;
    for (const Evaluation& e : evals) y.push_back(float(target_value(e, t)));
    ml::CostModel m(DesignSpace::feature_names(), regression(seed_ + uint64_t(t)));
    m.fit(rows, y);
    models[size_t(t)] = std::move(m);
  }
  models_ = std::move(models);
  trained_ = true;
  if (!models_[size_t(Target::kGops)]) return;
  const auto imp = normalized(models_[size_t(Target::kGops)]->feature_importance("gain"));
  const auto names = DesignSpace::feature_names();
  double sum = 0;
  for (int k = 0; k < kNumKnobs; ++k) {
    double v = 0;
    for (const auto& [name, x] : imp) {
      if (name == names[size_t(k)]) v = x;
    }
    gops_importance_[size_t(k)] = v;
    sum += v;
  }
  if (sum <= 0) gops_importance_.fill(1.0 / kNumKnobs);
}

std::vector<float> DesignModels::predict(Target t, std::span<const float> rows) const {
  if (!trained_ || !models_[size_t(t)]) throw InternalError(fmt::format("no {} model fitted", target_name(t)));
  return models_[size_t(t)]->predict(rows);
}

std::array<double, kNumKnobs> DesignModels::gops_importance() const { return gops_importance_; }

ImportanceReport analyze_importance(const DesignSpace& space, std::span<const Evaluation* const> evals,
                                    uint64_t seed) {
  ImportanceReport r;
  r.precision = space.precision();
  r.samples = evals.size();
  if (evals.size() < 5) return r;
  std::vector<size_t> order(evals.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  const size_t held = std::max<size_t>(1, evals.size() / 5);
  std::vector<const Evaluation*> train, test;
  for (size_t i = 0; i < order.size(); ++i) (i < held ? test : train).push_back(evals[order[i]]);
  const std::vector<float> train_rows = rows_of(space, train), test_rows = rows_of(space, test);
  const std::vector<float> all_rows = rows_of(space, evals);
  for (int t = 0; t < kNumTargets; ++t) {
    TargetReport tr;
    tr.target = Target(t);
    tr.train = train.size();
    tr.heldout = test.size();
    std::vector<float> y;
    for (const Evaluation* e : train) y.push_back(float(target_value(*e, Target(t))));
    ml::CostModel m(DesignSpace::feature_names(), regression(seed + uint64_t(t)));
    m.fit(train_rows, y);
    const std::vector<float> p = m.predict(test_rows);
    double largest = 0;
    for (const Evaluation* e : evals) largest = std::max(largest, target_value(*e, Target(t)));
    if (largest <= 0) {  // every design scores 0 (none feasible): nothing to learn or rank
      tr.within10 = 1;
      r.targets.push_back(std::move(tr));
      continue;
    }
    std::vector<double> errors;
    size_t within = 0;
    for (size_t i = 0; i < test.size(); ++i) {
      const double truth = target_value(*test[i], Target(t));
      const double err = std::abs(double(p[i]) - truth);
      const double rel = truth > 0 ? err / truth : (err <= 0.1 * largest ? 0.0 : 1.0);
      errors.push_back(rel);
      if (rel <= 0.1) ++within;
    }
    std::sort(errors.begin(), errors.end());
    tr.within10 = test.empty() ? 0 : double(within) / double(test.size());
    tr.median_error = errors.empty() ? 0 : errors[errors.size() / 2];
    // Importance from a model of every sample (the split is only for the accuracy).
    std::vector<float> ya;
    for (const Evaluation* e : evals) ya.push_back(float(target_value(*e, Target(t))));
    ml::CostModel full(DesignSpace::feature_names(), regression(seed + uint64_t(t)));
    full.fit(all_rows, ya);
    tr.importance = normalized(full.feature_importance("gain"));
    r.targets.push_back(std::move(tr));
  }
  return r;
}

nlohmann::json to_json(const ImportanceReport& r) {
  nlohmann::json j;
  j["precision"] = r.precision;
  j["samples"] = r.samples;
  j["targets"] = nlohmann::json::array();
  for (const TargetReport& t : r.targets) {
    nlohmann::json imp = nlohmann::json::object();
    for (const auto& [name, v] : t.importance) imp[name] = v;
    j["targets"].push_back({{"target", target_name(t.target)},
                            {"train", t.train},
                            {"heldout", t.heldout},
                            {"heldout_within_10pct", t.within10},
                            {"heldout_median_error", t.median_error},
                            {"importance", imp}});
  }
  return j;
}

}  // namespace tauvta::dse
