// The measurement pool (errors recorded, never thrown; results independent of the thread
// count), the cost model on real timing-model measurements (held-out candidates ranked better
// than chance), and tuned schedules verified bit-exact on the functional simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "ml/cost_model.h"
#include "tune/features.h"
#include "tune/measurer.h"
#include "tune/trial_log.h"
#include "tune/tuner.h"
#include "tune_test_util.h"

namespace tauvta::tune {
namespace {

using testing::preset;

TEST(Measurer, IllegalCandidatesAreRecordedErrorsAndThreadsDoNotChangeResults) {
  const hw::HwConfig c = preset("pynq");
  const TuneTask task = workload_task(c, testing::reference_layer());
  const KnobSpace space(c, task.workload(), task.needs);
  std::vector<lower::Schedule> batch;
  for (size_t p = 0; p < space.size(); p += space.size() / 20) batch.push_back(space.schedule(p));
  batch.push_back(lower::Schedule::parse("tile_h=1x12,tile_w=1x12,tile_ci=1x16,tile_co=1x16"));  // too big
  Measurer one(c, 1), two(c, 2);
  const std::vector<Measurement> a = one.measure(task.spec, batch), b = two.measure(task.spec, batch);
  ASSERT_EQ(a.size(), batch.size());
  for (size_t i = 0; i + 1 < batch.size(); ++i) {
    EXPECT_TRUE(a[i].ok()) << a[i].error;
    EXPECT_GT(a[i].cycles, 0u);
    EXPECT_EQ(a[i].cycles, b[i].cycles);
    EXPECT_NEAR(a[i].gops, 2.0 * double(task.macs()) / a[i].seconds / 1e9, 1e-9);
  }
  EXPECT_EQ(a.back().error_no, kInstantiationError);
  EXPECT_NE(a.back().error.find("exceeds"), std::string::npos) << a.back().error;
  EXPECT_EQ(b.back().error_no, kInstantiationError);
}

TEST(CostModelOnMeasurements, RanksHeldOutCandidatesBetterThanChance) {
  const hw::HwConfig c = preset("pynq");
  const TuneTask task = workload_task(c, testing::reference_layer());
  const KnobSpace space(c, task.workload(), task.needs);
  const std::vector<float> f = space_features(c, task.workload(), space);
  std::vector<size_t> points(space.size());
  for (size_t i = 0; i < points.size(); ++i) points[i] = i;
  std::mt19937_64 rng(5);
  std::shuffle(points.begin(), points.end(), rng);
  points.resize(std::min<size_t>(points.size(), 400));
  std::vector<lower::Schedule> ss;
  for (size_t p : points) ss.push_back(space.schedule(p));
  Measurer m(c, 2);
  const std::vector<Measurement> ms = m.measure(task.spec, ss);
  const size_t train = points.size() * 2 / 3, nf = num_features();
  std::vector<float> rows, scores;
  for (size_t i = 0; i < train; ++i) {
    rows.insert(rows.end(), f.begin() + ptrdiff_t(points[i] * nf), f.begin() + ptrdiff_t((points[i] + 1) * nf));
    scores.push_back(float(ms[i].gops));
  }
  std::vector<float> held;
  for (size_t i = train; i < points.size(); ++i) {
    held.insert(held.end(), f.begin() + ptrdiff_t(points[i] * nf), f.begin() + ptrdiff_t((points[i] + 1) * nf));
  }
  for (CostObjective obj : {CostObjective::kRank, CostObjective::kRegression}) {
    CostModelOptions o;
    o.objective = obj;
    CostModel model(feature_names(), o);
    model.fit(rows, scores);
    const std::vector<float> pred = model.predict(held);
    size_t agree = 0, pairs = 0;
    for (size_t i = 0; i < pred.size(); ++i) {
      for (size_t j = i + 1; j < pred.size(); ++j) {
        const double dm = ms[train + i].gops - ms[train + j].gops;
        if (std::abs(dm) < 1e-9) continue;
        ++pairs;
        agree += (dm > 0) == (pred[i] > pred[j]);
      }
    }
    const double accuracy = double(agree) / double(pairs);
    EXPECT_GT(accuracy, 0.75) << cost_objective_name(obj);
    // Importance is available for the design-space exploration to reuse.
    const auto imp = model.feature_importance("gain");
    EXPECT_EQ(imp.size(), nf);
    EXPECT_GT(imp[0].second, 0);
  }
}

TEST(Tuner, TunedSchedulesAreVerifiedBitExactAndBeatTheirStart) {
  for (const char* cfg : {"pynq", "pynq_w4a4", "pynq_b4_blk8"}) {
    const hw::HwConfig c = preset(cfg);
    const TuneTask task = workload_task(c, parse_workload_spec("conv2d,ci=64,h=14,w=14,co=64,k=3,s=1,p=1,n=4"));
    Measurer m(c, 2);
    TuneOptions o;
    o.trials = 64;
    o.batch = 16;
    o.verify_sample = 4;
    const TaskResult r = tune_task(task, o, m, nullptr);
    ASSERT_TRUE(r.best.has_value()) << cfg;
    EXPECT_TRUE(r.best_verified) << cfg;
    EXPECT_EQ(r.verified, 5) << cfg;  // the best and the sample
    EXPECT_EQ(r.wrong, 0) << cfg;
    EXPECT_EQ(r.trials, 64);
    EXPECT_EQ(r.best_so_far.size(), 64u);
    EXPECT_GE(r.trials_to_95, 1);
    EXPECT_LE(r.trials_to_95, 64);
    EXPECT_DOUBLE_EQ(r.best_so_far.back(), r.best_measure.gops);
    EXPECT_EQ(verify_schedule(c, task.spec, *r.best, 99), "") << cfg;
  }
}

// The tuner measures what it was given first: the default heuristic and a record of the task's own
// workload (TopHub's, here the best of another tuning), so its best is never slower than either,
// even on a budget too small for the search to find them.
TEST(Tuner, NeverReturnsSlowerThanTheHeuristicOrAGivenRecord) {
  const hw::HwConfig c = preset("pynq");
  const TuneTask task = workload_task(c, testing::reference_layer());
  Measurer m(c, 1);
  const std::filesystem::path dir = testing::temp_dir("given");
  TuneOptions wide;
  wide.searcher.kind = "random";
  wide.trials = 200;
  wide.verify = false;
  const TaskResult found = tune_task(task, wide, m, nullptr);
  ASSERT_TRUE(found.best.has_value());
  const std::vector<lower::TuningRecord> given = {
      *lower::parse_tuning_record(trial_record(c, task.workload(), *found.best, 0, found.best_measure, 0, {}), "given", 1)};
  TuneOptions tiny;
  tiny.searcher.kind = "random";
  tiny.searcher.seed = 7;
  tiny.trials = 3;
  tiny.verify = false;
  tiny.given = &given;
  TrialLog log(dir / "log.jsonl");
  const TaskResult r = tune_task(task, tiny, m, &log);
  EXPECT_EQ(r.trials, 3);
  EXPECT_GE(r.best_measure.gops, r.default_measure.gops);
  EXPECT_GE(r.best_measure.gops, found.best_measure.gops);
  const lower::TuningLog written = lower::read_tuning_log(dir / "log.jsonl");
  ASSERT_EQ(written.records.size(), 3u);
  // The first trial is the heuristic; the given record is measured among the first two (right after
  // the heuristic, or as the heuristic when it is the same schedule).
  EXPECT_NEAR(lower::record_seconds(written.records[0]), r.default_measure.seconds, 1e-12 * r.default_measure.seconds);
  const double want = found.best_measure.seconds;
  EXPECT_TRUE(std::abs(lower::record_seconds(written.records[0]) - want) <= 1e-12 * want ||
              std::abs(lower::record_seconds(written.records[1]) - want) <= 1e-12 * want);
}

TEST(Tuner, EarlyStoppingStopsAfterThePatience) {
  const hw::HwConfig c = preset("pynq");
  const TuneTask task = workload_task(c, testing::reference_layer());
  Measurer m(c, 1);
  TuneOptions o;
  o.searcher.kind = "random";
  o.trials = 100000;
  o.early_stopping = 40;
  o.batch = 8;
  o.verify = false;
  const TaskResult r = tune_task(task, o, m, nullptr);
  EXPECT_TRUE(r.early_stopped);
  int64_t last_better = 0;
  for (size_t i = 1; i < r.best_so_far.size(); ++i) {
    if (r.best_so_far[i] > r.best_so_far[i - 1]) last_better = int64_t(i) + 1;
  }
  EXPECT_GE(r.trials - last_better, 40);
  EXPECT_LT(r.trials - last_better, 40 + 8);
}

}  // namespace
}  // namespace tauvta::tune

namespace tauvta::tune {
namespace {

// --transfer: another workload's log becomes a training set (one group per workload and config)
// and the xgb searcher starts with a trained model, before measuring anything itself.
TEST(Transfer, AnotherWorkloadsLogWarmStartsTheModel) {
  const hw::HwConfig c = testing::preset("pynq");
  const std::filesystem::path dir = testing::temp_dir("transfer");
  const TuneTask other = workload_task(c, parse_workload_spec("conv2d,ci=64,h=28,w=28,co=64,k=3,s=1,p=1"));
  const TuneTask task = workload_task(c, testing::reference_layer());
  Measurer m(c, 1);
  {
    TrialLog log(dir / "other.jsonl");
    TuneOptions o;
    o.searcher.kind = "random";
    o.trials = 64;
    o.verify = false;
    o.stop_slower = false;
    tune_task(other, o, m, &log);
  }
  const lower::TuningLog log = lower::read_tuning_log(dir / "other.jsonl");
  const TransferSet t = transfer_set(log.records, c, &task.workload());
  ASSERT_EQ(t.size(), 64u);
  EXPECT_EQ(t.groups, std::vector<unsigned>{64});
  EXPECT_EQ(t.rows.size(), 64 * num_features());
  EXPECT_FLOAT_EQ(*std::max_element(t.scores.begin(), t.scores.end()), 1.0f);
  // Excluding the workload itself leaves nothing.
  EXPECT_EQ(transfer_set(log.records, c, &other.workload()).size(), 0u);
  const KnobSpace space(c, task.workload(), task.needs);
  const std::vector<float> f = space_features(c, task.workload(), space);
  SearcherOptions so;
  so.analytic_prior = false;
  so.transfer = &t;
  std::unique_ptr<Searcher> cold = make_searcher(so, space, f);
  EXPECT_FALSE(cold->feature_importance().empty()) << "the model is trained before any measurement";
  so.transfer = nullptr;
  EXPECT_TRUE(make_searcher(so, space, f)->feature_importance().empty());
}

}  // namespace
}  // namespace tauvta::tune
