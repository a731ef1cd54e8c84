#include "ml/cost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::ml {

namespace {

// XGBoost's error text is per thread, so reading it right after the failing call is safe with
// other instances training on other threads.
void check(int rc, const char* call) {
  if (rc != 0) throw Error(fmt::format("cost model: {} failed: {}", call, XGBGetLastError()));
}

struct MatrixFree {
  void operator()(void* m) const { XGDMatrixFree(m); }
};
using Matrix = std::unique_ptr<void, MatrixFree>;

size_t row_count(std::span<const float> rows, size_t num_features, const char* what) {
  if (num_features == 0) throw Error("cost model: used after it was moved from");
  if (rows.size() % num_features != 0)
    throw Error(fmt::format("cost model: {} has {} values, not a multiple of the {} features",
                            what, rows.size(), num_features));
  return rows.size() / num_features;
}

Matrix make_matrix(std::span<const float> rows, size_t n, size_t num_features) {
  DMatrixHandle h = nullptr;
  check(XGDMatrixCreateFromMat(rows.data(), n, num_features, NAN, &h), "XGDMatrixCreateFromMat");
  return Matrix(h);
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Parameters that are not part of the saved model and must be set again after load().
void set_runtime_params(BoosterHandle b, const CostModelOptions& o) {
  check(XGBoosterSetParam(b, "nthread", std::to_string(o.nthread).c_str()), "XGBoosterSetParam");
  check(XGBoosterSetParam(b, "verbosity", "0"), "XGBoosterSetParam");
}

}  // namespace

void CostModel::BoosterFree::operator()(void* booster) const { XGBoosterFree(booster); }

const char* cost_objective_name(CostObjective o) {
  switch (o) {
    case CostObjective::kRank:
      return "rank";
    case CostObjective::kRegression:
      return "regression";
  }
  throw InternalError("unknown cost objective");
}

CostObjective parse_cost_objective(const std::string& name) {
  for (CostObjective o : {CostObjective::kRank, CostObjective::kRegression})
    if (name == cost_objective_name(o)) return o;
  throw Error(fmt::format("unknown cost model objective '{}' (rank or regression)", name));
}

CostModel::CostModel(std::vector<std::string> feature_names, CostModelOptions options)
    : feature_names_(std::move(feature_names)), options_(options) {
  if (feature_names_.empty()) throw Error("cost model: no features");
  std::set<std::string> seen;
  for (const std::string& f : feature_names_)
    if (!seen.insert(f).second) throw Error(fmt::format("cost model: feature '{}' named twice", f));
  auto require = [](bool ok, const char* option, auto value, const char* range) {
    if (!ok) throw Error(fmt::format("cost model: {} = {} ({})", option, value, range));
  };
  const CostModelOptions& o = options_;
  require(o.rounds >= 1, "rounds", o.rounds, "at least 1");
  require(o.max_depth >= 1, "max_depth", o.max_depth, "at least 1");
  require(o.eta > 0 && std::isfinite(o.eta), "eta", o.eta, "positive");
  require(o.subsample > 0 && o.subsample <= 1, "subsample", o.subsample, "in (0, 1]");
  require(o.min_child_weight >= 0, "min_child_weight", o.min_child_weight, "at least 0");
  require(o.max_bin >= 2, "max_bin", o.max_bin, "at least 2");
  require(o.nthread >= 1, "nthread", o.nthread, "at least 1");
}

CostModel::~CostModel() = default;
CostModel::CostModel(CostModel&&) noexcept = default;
CostModel& CostModel::operator=(CostModel&&) noexcept = default;

void CostModel::fit(std::span<const float> rows, std::span<const float> scores,
                    std::span<const unsigned> groups) {
  const size_t n = row_count(rows, num_features(), "training rows");
  if (n == 0) throw Error("cost model: no training rows");
  if (scores.size() != n)
    throw Error(fmt::format("cost model: {} scores for {} training rows", scores.size(), n));
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(scores[i]))
      throw Error(fmt::format("cost model: score of row {} is {}", i, scores[i]));
  const bool rank = options_.objective == CostObjective::kRank;
  if (rank && !groups.empty()) {
    uint64_t total = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g] == 0) throw Error(fmt::format("cost model: query group {} is empty", g));
      total += groups[g];
    }
    if (total != n)
      throw Error(fmt::format("cost model: query groups cover {} rows, there are {} training rows",
                              total, n));
  }

  Matrix train = make_matrix(rows, n, num_features());
  check(XGDMatrixSetFloatInfo(train.get(), "label", scores.data(), n), "XGDMatrixSetFloatInfo");
  if (rank) {
    // One group of everything unless told otherwise: rank:pairwise needs the group sizes.
    const unsigned all = static_cast<unsigned>(n);
    std::span<const unsigned> sizes = groups.empty() ? std::span<const unsigned>(&all, 1) : groups;
    check(XGDMatrixSetUIntInfo(train.get(), "group", sizes.data(), sizes.size()),
          "XGDMatrixSetUIntInfo(group)");
  }

  DMatrixHandle cache[] = {train.get()};
  BoosterHandle raw = nullptr;
  check(XGBoosterCreate(cache, 1, &raw), "XGBoosterCreate");
  Booster booster(raw);
  const CostModelOptions& o = options_;
  const std::pair<const char*, std::string> params[] = {
      {"objective", rank ? "rank:pairwise" : "reg:squarederror"},
      {"tree_method", "hist"},  // histogram splits: fast, and reproducible under a seed
      {"max_depth", std::to_string(o.max_depth)},
      {"eta", fmt::format("{}", o.eta)},
      {"subsample", fmt::format("{}", o.subsample)},
      {"min_child_weight", std::to_string(o.min_child_weight)},
      {"max_bin", std::to_string(o.max_bin)},
      // XGBoost's seed is int64; the bit pattern keeps every uint64 seed distinct.
      {"seed", std::to_string(static_cast<int64_t>(o.seed))},
  };
  for (const auto& [name, value] : params)
    check(XGBoosterSetParam(booster.get(), name, value.c_str()),
          fmt::format("XGBoosterSetParam({}={})", name, value).c_str());
  set_runtime_params(booster.get(), o);
  for (int round = 0; round < o.rounds; ++round)
    check(XGBoosterUpdateOneIter(booster.get(), round, train.get()), "XGBoosterUpdateOneIter");
  booster_ = std::move(booster);
}

std::vector<float> CostModel::predict(std::span<const float> rows) const {
  if (!trained()) throw Error("cost model: predict before the model is trained");
  const size_t n = row_count(rows, num_features(), "rows to predict");
  if (n == 0) return {};
  Matrix m = make_matrix(rows, n, num_features());
  bst_ulong len = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(booster_.get(), m.get(), 0, 0, 0, &len, &out), "XGBoosterPredict");
  if (len != n)
    throw InternalError(fmt::format("cost model: {} predictions for {} rows", len, n));
  // `out` points into the booster's buffer, which the next call reuses.
  return std::vector<float>(out, out + len);
}

std::vector<std::pair<std::string, double>> CostModel::feature_importance(
    const std::string& type) const {
  constexpr const char* kTypes[] = {"gain", "total_gain", "weight", "cover", "total_cover"};
  if (std::find(std::begin(kTypes), std::end(kTypes), type) == std::end(kTypes))
    throw Error(fmt::format(
        "cost model: unknown importance type '{}' (gain, total_gain, weight, cover, total_cover)",
        type));
  if (!trained()) throw Error("cost model: feature importance before the model is trained");
  const std::string config =
      fmt::format("{{\"importance_type\": {}, \"feature_map\": \"\"}}", json_string(type));
  bst_ulong n_names = 0, dim = 0;
  const char** names = nullptr;
  const bst_ulong* shape = nullptr;
  const float* values = nullptr;
  check(XGBoosterFeatureScore(booster_.get(), config.c_str(), &n_names, &names, &dim, &shape,
                              &values),
        "XGBoosterFeatureScore");
  std::vector<double> score(num_features(), 0.0);
  for (bst_ulong i = 0; i < n_names; ++i) {
    // The booster carries no feature names, so XGBoost calls feature k "fk".
    const std::string name = names[i];
    size_t k = num_features();
    if (name.size() > 1 && name[0] == 'f' &&
        name.find_first_not_of("0123456789", 1) == std::string::npos)
      k = std::stoul(name.substr(1));
    if (k >= num_features())
      throw InternalError(fmt::format("cost model: XGBoost scored unknown feature '{}'", name));
    score[k] = values[i];
  }
  std::vector<std::pair<std::string, double>> out;
  for (size_t k = 0; k < num_features(); ++k) out.emplace_back(feature_names_[k], score[k]);
  // Stable: ties (unused features in particular) keep the feature order.
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

std::vector<char> CostModel::save() const {
  if (!trained()) throw Error("cost model: save before the model is trained");
  bst_ulong len = 0;
  const char* data = nullptr;
  check(XGBoosterSaveModelToBuffer(booster_.get(), "{\"format\": \"json\"}", &len, &data),
        "XGBoosterSaveModelToBuffer");
  return std::vector<char>(data, data + len);
}

void CostModel::load(std::span<const char> model) {
  BoosterHandle raw = nullptr;
  check(XGBoosterCreate(nullptr, 0, &raw), "XGBoosterCreate");
  Booster booster(raw);
  check(XGBoosterLoadModelFromBuffer(booster.get(), model.data(), model.size()),
        "XGBoosterLoadModelFromBuffer");
  set_runtime_params(booster.get(), options_);
  bst_ulong features = 0;
  check(XGBoosterGetNumFeature(booster.get(), &features), "XGBoosterGetNumFeature");
  if (features != num_features())
    throw Error(fmt::format("cost model: the loaded model has {} features, expected {}", features,
                            num_features()));
  booster_ = std::move(booster);
}

}  // namespace tauvta::ml
