// Every searcher through the ask/tell contract: only legal points of the space, never one twice
// (resumed points included), the whole space when the budget allows, deterministic for a seed;
// and on a synthetic score with a known optimum each finds it, the guided ones faster than random.
#include <gtest/gtest.h>

#include <iostream>
#include <set>

#include "common/error.h"
#include "tune/features.h"
#include "tune/searcher.h"
#include "tune_test_util.h"

namespace tauvta::tune {
namespace {

using testing::preset;
using testing::reference_layer;
using testing::SyntheticScore;

const std::vector<std::string> kKinds = {"random", "grid", "sa", "xgb"};

struct Fixture {
  hw::HwConfig c = preset("pynq");
  lower::ConvWorkload w = reference_layer();
  KnobSpace space{c, w, lower::LayerNeeds{0, false}};
  std::vector<float> features = space_features(c, w, space);
};

// Trials until the optimum is proposed (or the space runs out).
size_t trials_to_optimum(const std::string& kind, uint64_t seed, const Fixture& f, const SyntheticScore& score) {
  SearcherOptions o;
  o.kind = kind;
  o.seed = seed;
  o.model.seed = seed;
  // The synthetic score has nothing to do with cycles: the analytic prior would not help, the
  // model has to learn it from the measurements.
  o.analytic_prior = false;
  std::unique_ptr<Searcher> s = make_searcher(o, f.space, f.features);
  size_t trials = 0;
  for (;;) {
    const std::vector<size_t> batch = s->next(16);
    if (batch.empty()) return trials;
    std::vector<TrialResult> told;
    for (size_t p : batch) {
      ++trials;
      if (p == score.optimum) return trials;
      told.push_back({p, score(p)});
    }
    s->report(told);
  }
}

TEST(Searcher, AskTellContractNoDuplicatesOnlyLegalWholeSpace) {
  const Fixture f;
  ASSERT_GT(f.space.size(), 100u);
  SyntheticScore score{f.space, f.space.size() / 3};
  for (const std::string& kind : kKinds) {
    SearcherOptions o;
    o.kind = kind;
    std::unique_ptr<Searcher> s = make_searcher(o, f.space, f.features);
    EXPECT_EQ(s->name(), kind);
    // Points measured by an earlier run are never proposed again.
    std::vector<TrialResult> prior = {{0, score(0)}, {5, score(5)}, {17, score(17)}};
    s->report(prior);
    std::set<size_t> seen = {0, 5, 17};
    for (;;) {
      const std::vector<size_t> batch = s->next(24);
      if (batch.empty()) break;
      EXPECT_LE(batch.size(), 24u);
      std::vector<TrialResult> told;
      for (size_t p : batch) {
        ASSERT_LT(p, f.space.size()) << kind;
        EXPECT_TRUE(seen.insert(p).second) << kind << " proposed point " << p << " twice";
        const lower::Schedule& sch = f.space.schedule(p);
        EXPECT_EQ(f.space.find(sch), p);
        told.push_back({p, score(p)});
      }
      s->report(told);
    }
    EXPECT_EQ(seen.size(), f.space.size()) << kind << " stopped before the space ran out";
    EXPECT_EQ(s->remaining(), 0u);
  }
}

TEST(Searcher, DeterministicForASeed) {
  const Fixture f;
  SyntheticScore score{f.space, 7};
  for (const std::string& kind : kKinds) {
    std::vector<size_t> runs[2];
    for (auto& run : runs) {
      SearcherOptions o;
      o.kind = kind;
      o.seed = 42;
      std::unique_ptr<Searcher> s = make_searcher(o, f.space, f.features);
      for (int round = 0; round < 6; ++round) {
        const std::vector<size_t> b = s->next(16);
        std::vector<TrialResult> told;
        for (size_t p : b) told.push_back({p, score(p)});
        run.insert(run.end(), b.begin(), b.end());
        s->report(told);
      }
    }
    EXPECT_EQ(runs[0], runs[1]) << kind;
  }
}

TEST(Searcher, EachFindsTheKnownOptimumGuidedOnesFasterThanRandom) {
  const Fixture f;
  // An optimum away from the grid's start, so grid order gives no head start.
  const SyntheticScore score{f.space, f.space.size() * 2 / 3};
  std::map<std::string, double> mean;
  for (const std::string& kind : kKinds) {
    double total = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const size_t t = trials_to_optimum(kind, seed, f, score);
      EXPECT_LE(t, f.space.size()) << kind;
      total += double(t);
    }
    mean[kind] = total / 3;
  }
  std::cout << "mean trials to the optimum of " << f.space.size() << " points: random " << mean["random"] << ", grid "
            << mean["grid"] << ", sa " << mean["sa"] << ", xgb " << mean["xgb"] << "\n";
  // Random needs about half the space on average; the guided searchers far fewer.
  EXPECT_GT(mean["random"], double(f.space.size()) / 5);
  EXPECT_LT(mean["xgb"], mean["random"] / 3) << "xgb " << mean["xgb"] << " random " << mean["random"];
  EXPECT_LT(mean["sa"], mean["random"]) << "sa " << mean["sa"] << " random " << mean["random"];
}

TEST(Searcher, UnknownKindIsAnError) {
  const Fixture f;
  SearcherOptions o;
  o.kind = "genetic";
  try {
    make_searcher(o, f.space, f.features);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown tuner 'genetic'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tauvta::tune
