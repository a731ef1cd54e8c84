// Evaluating designs and the strategies behind the ask/tell interface, on a small convolution:
// cycles equal the tuner's own measurement of the same schedule, the cache survives a killed run
// and answers a second run, and every strategy keeps its contract (exhaustive screens every
// resource-feasible design and their Pareto front is not dominated, halving halves, tau is
// deterministic under a seed, vta goes by peak GOPS).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "dse/design_mapping.h"
#include "dse/dse_report.h"
#include "dse/explorer.h"
#include "dse/strategy.h"
#include "fpga/device.h"
#include "lower/conv_plan.h"
#include "tune/measurer.h"

namespace tauvta::dse {
namespace {

namespace fs = std::filesystem;
constexpr const char* kSpec = "conv2d,ci=64,h=14,w=14,co=64,k=3,s=1,p=1";

DesignSpace space(int precision) {
  SpaceOptions o;
  o.precision = precision;
  o.device = &fpga::find_device("pynq-z1");
  return DesignSpace(o);
}

fs::path temp_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("tauvta_dse_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(DseEvaluator, CyclesAreTheTunersMeasurementOfTheSameSchedule) {
  DseWorkload w(kSpec);
  Evaluator ev(w, {}, nullptr);
  const DesignSpace s = space(8);
  const Evaluation e = ev.evaluate(s, s.default_design(), 0);
  ASSERT_TRUE(e.feasible) << e.reason;
  ASSERT_EQ(e.tasks.size(), 1u);
  const MappedDesign m = map_design(s, s.default_design(), hw::HwConfig{});
  const tune::TuneTask t = tune::workload_task(m.config, tune::parse_workload_spec(kSpec));
  tune::Measurer meter(m.config, 1);
  const lower::Schedule sch = lower::default_schedule(m.config, t.workload(), t.needs);
  const tune::Measurement x = meter.measure(t.spec, std::span(&sch, 1))[0];
  EXPECT_EQ(e.cycles, x.cycles);
  EXPECT_NEAR(e.gops, x.gops, 1e-9);
  EXPECT_EQ(e.clock_mhz, 100);
  // An infeasible design says why.
  Design big = s.default_design();
  big[size_t(Knob::kBlockIn)] = *s.index_of(Knob::kBlockIn, 64);
  big[size_t(Knob::kBlockOut)] = *s.index_of(Knob::kBlockOut, 64);
  big[size_t(Knob::kDspLimit)] = 0;
  const Evaluation f = ev.evaluate(s, big, 0);
  EXPECT_FALSE(f.feasible);
  EXPECT_NE(f.reason.find("does not fit"), std::string::npos) << f.reason;
  EXPECT_EQ(f.cycles, 0u);
}

TEST(DseEvaluator, CacheSurvivesAKilledRunAndAnswersTheNext) {
  const fs::path dir = temp_dir("cache");
  DseWorkload w(kSpec);
  const DesignSpace s = space(4);
  Evaluation first;
  {
    ResultCache cache(dir / "evaluations.jsonl");
    Evaluator ev(w, {}, &cache);
    first = ev.evaluate(s, s.default_design(), 0);
    EXPECT_EQ(ev.computed(), 1);
  }
  // A kill mid-line leaves half a record behind.
  { std::ofstream(dir / "evaluations.jsonl", std::ios::app) << "{\"key\":\"half"; }
  ResultCache cache(dir / "evaluations.jsonl");
  EXPECT_NE(cache.repair_note().find("cut off"), std::string::npos);
  EXPECT_EQ(cache.size(), 1u);
  Evaluator ev(w, {}, &cache);
  const Evaluation again = ev.evaluate(s, s.default_design(), 0);
  EXPECT_EQ(ev.computed(), 0);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(to_json(again).dump(), to_json(first).dump());
  fs::remove_all(dir);
}

PrecisionResult run(const std::string& kind, int precision, int64_t budget, uint64_t seed, ResultCache* cache,
                    int64_t* computed = nullptr) {
  DseWorkload w(kSpec);
  EvaluatorOptions eo;
  eo.seed = seed;
  Evaluator ev(w, eo, cache);
  const DesignSpace s = space(precision);
  ExploreOptions o;
  o.strategy.kind = kind;
  o.strategy.budget = budget;
  o.strategy.seed = seed;
  o.strategy.overlays = 6;
  o.strategy.sprint = 3;
  o.strategy.initial = 8;
  o.strategy.candidates = 4;
  o.strategy.finalists = 2;
  o.threads = 2;
  PrecisionResult r = explore(s, ev, o);
  if (computed) *computed = ev.computed();
  return r;
}

// One exhaustive screen (a few thousand designs) checks the strategy and the Pareto front.
TEST(DseStrategy, ExhaustiveScreensEveryResourceFeasibleDesignAndItsParetoFrontIsNotDominated) {
  const PrecisionResult r = run("exhaustive", 2, 0, 1, nullptr);
  const size_t feasible = r.strategy_summary["resource_feasible"].get<size_t>();
  ASSERT_GT(feasible, 100u);
  EXPECT_EQ(r.evaluations.size(), feasible);  // the resource pass is counted, not kept
  size_t rejected = 0;
  for (const auto& [why, n] : r.strategy_summary["rejected_by_resource_model"].items()) rejected += n.get<size_t>();
  EXPECT_EQ(rejected + feasible, r.pruned_size);
  ASSERT_TRUE(r.best);
  for (const Evaluation& e : r.evaluations) EXPECT_LE(e.gops, r.evaluations[*r.best].gops);
  EXPECT_FALSE(r.importance.targets.empty());
  const auto front = pareto_front(r.evaluations, fpga::ResourceKind::kLut);
  ASSERT_FALSE(front.empty());
  for (const Evaluation* f : front) {
    for (const Evaluation& e : r.evaluations) {
      if (!e.feasible || e.cycles == 0) continue;
      const bool dominates = e.latency_ms < f->latency_ms && e.resources.lut < f->resources.lut;
      EXPECT_FALSE(dominates) << e.key << " dominates " << f->key;
    }
  }
}

TEST(DseStrategy, HalvingKeepsTheBetterHalfAndAddsBudget) {
  const PrecisionResult r = run("halving", 8, 30, 1, nullptr);
  const auto& rounds = r.strategy_summary["rounds"];
  ASSERT_EQ(rounds.size(), 3u);  // 4, 2, 1 candidates
  int64_t last = 0;
  size_t n = 4;
  for (const auto& round : rounds) {
    EXPECT_EQ(round["candidates"].get<size_t>(), n);
    EXPECT_GT(round["trials_per_task"].get<int64_t>(), last);
    last = round["trials_per_task"].get<int64_t>();
    n = (n + 1) / 2;
  }
  EXPECT_EQ(r.evaluations.size(), 7u);
  // The one left is the fastest of the last pair.
  const Evaluation& final = r.evaluations.back();
  const Evaluation& other = r.evaluations[r.evaluations.size() - 2];
  EXPECT_TRUE(final.design == other.design || final.design == r.evaluations[r.evaluations.size() - 3].design);
}

TEST(DseStrategy, BadOptionsAreRefusedBeforeAnythingRuns) {
  StrategyOptions o;
  o.kind = "halving";
  o.budget = 0;  // halving doubles a trial budget: without one it would evaluate no design
  EXPECT_THROW(check_strategy(o), Error);
  o.budget = 8;
  EXPECT_NO_THROW(check_strategy(o));
  o.budget = -1;
  EXPECT_THROW(check_strategy(o), Error);
  o = StrategyOptions{};
  o.kind = "anneal";
  EXPECT_THROW(check_strategy(o), Error);
  o.kind = "exhaustive";
  o.budget = 0;  // screening only
  EXPECT_NO_THROW(check_strategy(o));
}

TEST(DseStrategy, TauIsDeterministicUnderASeedAndResumesFromTheCache) {
  const fs::path dir = temp_dir("tau");
  std::vector<std::string> keys[2];
  for (int i = 0; i < 2; ++i) {
    ResultCache cache(dir / "evaluations.jsonl");
    int64_t computed = 0;
    const PrecisionResult r = run("tau", 4, 8, 11, &cache, &computed);
    for (const Evaluation& e : r.evaluations) {
      if (e.budget >= 0) keys[i].push_back(e.key + "/" + std::to_string(e.budget) + "/" + std::to_string(e.cycles));
    }
    if (i == 1) {
      EXPECT_EQ(computed, 0);  // every timed evaluation came from the cache
    }
    size_t tuned = 0;
    for (const Evaluation& e : r.evaluations) tuned += e.budget > 0 ? 1 : 0;
    EXPECT_EQ(tuned, 6u);
    EXPECT_FALSE(r.importance.targets.empty());
  }
  EXPECT_EQ(keys[0], keys[1]);
  fs::remove_all(dir);
}

TEST(DseStrategy, VtaSelectionGoesByPeakGops) {
  const PrecisionResult r = run("vta", 8, 4, 1, nullptr);
  ASSERT_GE(r.evaluations.size(), 6u);
  EXPECT_EQ(r.feasible(), 6u);  // it goes on until 6 designs fit
  for (size_t i = 1; i < r.evaluations.size(); ++i) {
    EXPECT_LE(r.evaluations[i].peak_gops, r.evaluations[i - 1].peak_gops);
  }
}

}  // namespace
}  // namespace tauvta::dse
