// CostModel on synthetic data: regression and ranking generalize to held-out rows (and shuffled
// labels do not), training is reproducible under a seed, importance names the informative
// feature, save/load keeps predictions, and bad input throws with the problem named.
#include "ml/cost_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "common/error.h"

namespace {

using namespace tauvta;
using ml::CostModel;
using ml::CostModelOptions;
using ml::CostObjective;

struct Data {
  std::vector<float> rows, scores;
  size_t n = 0;
};

// n rows of `features` uniform values in [0, 1), scored by `f`.
Data make_data(std::mt19937& rng, size_t n, size_t features,
               const std::function<float(const float*)>& f) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Data d;
  d.n = n;
  d.rows.resize(n * features);
  for (float& x : d.rows) x = u(rng);
  for (size_t i = 0; i < n; ++i) d.scores.push_back(f(&d.rows[i * features]));
  return d;
}

std::vector<double> ranks(const std::vector<float>& v) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < v.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {  // ties share their mean rank
    size_t j = i;
    while (j < order.size() && v[order[j]] == v[order[i]]) ++j;
    for (size_t k = i; k < j; ++k) r[order[k]] = (i + j - 1) / 2.0;
    i = j;
  }
  return r;
}

double spearman(const std::vector<float>& a, const std::vector<float>& b) {
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double mean = (ra.size() - 1) / 2.0;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return cov / std::sqrt(va * vb);
}

// Fraction of pairs with different true scores that the prediction orders the same way.
double pairwise_accuracy(const std::vector<float>& truth, const std::vector<float>& pred) {
  size_t pairs = 0, right = 0;
  for (size_t i = 0; i < truth.size(); ++i)
    for (size_t j = i + 1; j < truth.size(); ++j) {
      if (truth[i] == truth[j]) continue;
      ++pairs;
      if ((truth[i] < truth[j]) == (pred[i] < pred[j]) && pred[i] != pred[j]) ++right;
    }
  return double(right) / double(pairs);
}

// Runs `f`, expecting tauvta::Error whose message contains `part`.
void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no tauvta::Error; expected one mentioning '" << part << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << part << "'";
  }
}

CostModelOptions regression() {
  CostModelOptions o;
  o.objective = CostObjective::kRegression;
  return o;
}

float linear(const float* x) { return 2 * x[0] - x[1]; }

TEST(CostModel, ObjectiveNames) {
  for (CostObjective o : {CostObjective::kRank, CostObjective::kRegression})
    EXPECT_EQ(ml::parse_cost_objective(ml::cost_objective_name(o)), o);
  EXPECT_STREQ(ml::cost_objective_name(CostObjective::kRank), "rank");
  expect_error([] { ml::parse_cost_objective("lambdamart"); }, "'lambdamart'");
}

TEST(CostModel, RegressionGeneralizes) {
  std::mt19937 rng(1);
  const Data train = make_data(rng, 300, 3, linear), test = make_data(rng, 100, 3, linear);
  CostModel m({"x0", "x1", "x2"}, regression());
  EXPECT_FALSE(m.trained());
  m.fit(train.rows, train.scores);
  ASSERT_TRUE(m.trained());
  const std::vector<float> pred = m.predict(test.rows);
  ASSERT_EQ(pred.size(), test.n);
  EXPECT_GT(spearman(test.scores, pred), 0.8);
  double err = 0;
  for (size_t i = 0; i < test.n; ++i) err += std::abs(pred[i] - test.scores[i]);
  EXPECT_LT(err / test.n, 0.2);  // regression also learns the scale (scores span [-1, 2])
}

TEST(CostModel, RankLearnsOrderWithinGroups) {
  // Two tasks whose scores have unrelated scales; only the order within each task matters.
  std::mt19937 rng(2);
  auto task_a = [](const float* x) { return 10 * (x[0] - x[1]); };
  auto task_b = [](const float* x) { return 500 + 3 * (x[0] - x[1]) + x[2]; };
  Data a = make_data(rng, 150, 3, task_a), b = make_data(rng, 150, 3, task_b);
  std::vector<float> rows = a.rows, scores = a.scores;
  rows.insert(rows.end(), b.rows.begin(), b.rows.end());
  scores.insert(scores.end(), b.scores.begin(), b.scores.end());
  const std::vector<unsigned> groups = {150, 150};
  const Data held_a = make_data(rng, 60, 3, task_a), held_b = make_data(rng, 60, 3, task_b);

  auto accuracy = [&](const CostModel& m) {
    return (pairwise_accuracy(held_a.scores, m.predict(held_a.rows)) +
            pairwise_accuracy(held_b.scores, m.predict(held_b.rows))) / 2;
  };
  CostModel m({"x0", "x1", "x2"});
  m.fit(rows, scores, groups);
  const double learned = accuracy(m);
  EXPECT_GT(learned, 0.75);

  std::vector<float> shuffled = scores;
  std::shuffle(shuffled.begin(), shuffled.begin() + 150, rng);
  std::shuffle(shuffled.begin() + 150, shuffled.end(), rng);
  CostModel noise({"x0", "x1", "x2"});
  noise.fit(rows, shuffled, groups);
  const double chance = accuracy(noise);
  EXPECT_LT(chance, 0.65);
  EXPECT_LT(chance, learned - 0.15);
}

TEST(CostModel, SameSeedSamePredictions) {
  std::mt19937 rng(3);
  const Data train = make_data(rng, 200, 4, linear), test = make_data(rng, 50, 4, linear);
  CostModelOptions o;
  o.subsample = 0.7;  // row sampling makes the seed matter
  o.seed = 42;
  auto predictions = [&](CostModelOptions opt) {
    CostModel m({"a", "b", "c", "d"}, opt);
    m.fit(train.rows, train.scores);
    return m.predict(test.rows);
  };
  const std::vector<float> first = predictions(o);
  EXPECT_EQ(predictions(o), first);
  o.seed = 43;
  EXPECT_NE(predictions(o), first);
}

TEST(CostModel, ImportanceNamesInformativeFeatureFirst) {
  std::mt19937 rng(4);
  Data d = make_data(rng, 300, 3, [](const float* x) { return std::sin(3 * x[1]); });
  for (size_t i = 0; i < d.n; ++i) d.rows[i * 3 + 2] = 0.5f;  // constant: never split on
  CostModel m({"noise", "signal", "constant"}, regression());
  m.fit(d.rows, d.scores);
  for (const std::string type : {"gain", "total_gain", "cover"}) {
    const auto imp = m.feature_importance(type);
    ASSERT_EQ(imp.size(), 3u) << type;
    EXPECT_EQ(imp.front().first, "signal") << type;
    EXPECT_GT(imp.front().second, 0) << type;
    EXPECT_EQ(imp.back().first, "constant") << type;
    EXPECT_EQ(imp.back().second, 0) << type;
  }
  EXPECT_GT(m.feature_importance("total_gain")[0].second,
            10 * m.feature_importance("total_gain")[1].second);
  expect_error([&] { m.feature_importance("shap"); }, "'shap'");
}

TEST(CostModel, SaveLoadKeepsPredictions) {
  std::mt19937 rng(5);
  const Data train = make_data(rng, 200, 3, linear), test = make_data(rng, 50, 3, linear);
  CostModel m({"x0", "x1", "x2"});
  m.fit(train.rows, train.scores);
  const std::vector<char> saved = m.save();
  ASSERT_FALSE(saved.empty());
  EXPECT_EQ(saved.front(), '{');

  CostModel restored({"x0", "x1", "x2"});
  restored.load(saved);
  EXPECT_TRUE(restored.trained());
  EXPECT_EQ(restored.predict(test.rows), m.predict(test.rows));
  EXPECT_EQ(restored.feature_importance(), m.feature_importance());

  CostModel moved = std::move(restored);
  EXPECT_EQ(moved.predict(test.rows), m.predict(test.rows));

  CostModel wider({"x0", "x1", "x2", "x3"});
  expect_error([&] { wider.load(saved); }, "3 features");
  EXPECT_FALSE(wider.trained());
  expect_error([&] { wider.load(std::vector<char>{'n', 'o', 'p', 'e'}); },
               "XGBoosterLoadModelFromBuffer");
}

TEST(CostModel, SeparateInstancesOnThreadsMatchSequential) {
  // The design-space exploration trains one model per thread; they must not interfere.
  std::mt19937 rng(6);
  const Data train = make_data(rng, 200, 3, linear), test = make_data(rng, 50, 3, linear);
  auto run = [&](uint64_t seed) {
    CostModelOptions o;
    o.subsample = 0.8;
    o.seed = seed;
    CostModel m({"x0", "x1", "x2"}, o);
    m.fit(train.rows, train.scores);
    return m.predict(test.rows);
  };
  const std::vector<float> alone1 = run(1), alone2 = run(2);
  std::vector<float> threaded1, threaded2;
  std::thread t1([&] { threaded1 = run(1); }), t2([&] { threaded2 = run(2); });
  t1.join();
  t2.join();
  EXPECT_EQ(threaded1, alone1);
  EXPECT_EQ(threaded2, alone2);
}

TEST(CostModel, BadInputThrows) {
  CostModel m({"x0", "x1"});
  const std::vector<float> rows = {0, 1, 2, 3, 4, 5}, scores = {1, 2, 3};
  expect_error([&] { m.predict(rows); }, "before the model is trained");
  expect_error([&] { m.save(); }, "before the model is trained");
  expect_error([&] { m.fit({}, {}); }, "no training rows");
  expect_error([&] { m.fit(std::vector<float>{0, 1, 2}, scores); }, "not a multiple of the 2");
  expect_error([&] { m.fit(rows, std::vector<float>{1, 2}); }, "2 scores for 3 training rows");
  expect_error([&] { m.fit(rows, std::vector<float>{1, NAN, 3}); }, "score of row 1");
  expect_error([&] { m.fit(rows, scores, std::vector<unsigned>{1, 1}); }, "cover 2 rows");
  expect_error([&] { m.fit(rows, scores, std::vector<unsigned>{3, 0}); }, "group 1 is empty");
  EXPECT_FALSE(m.trained());

  m.fit(rows, scores);
  expect_error([&] { m.predict(std::vector<float>{0, 1, 2}); }, "not a multiple of the 2");
  EXPECT_TRUE(m.predict({}).empty());

  expect_error([] { CostModel({}); }, "no features");
  expect_error([] { CostModel({"a", "a"}); }, "'a' named twice");
  CostModelOptions bad;
  bad.subsample = 0;
  expect_error([&] { CostModel({"a"}, bad); }, "subsample");

  CostModel moved = std::move(m);
  expect_error([&] { m.fit(rows, scores); }, "moved from");  // NOLINT(bugprone-use-after-move)
}

}  // namespace
