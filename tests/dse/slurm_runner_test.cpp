// The DSE's Slurm pieces that need no cluster: the round's work list round trip and its errors,
// a worker's shard (what an earlier attempt finished is not evaluated again; a torn last line is
// evaluated again; a worker that keys designs differently stops), the sharing groups that keep a
// tuning log's asks in one worker, and the staged tuning log a killed tuning leaves untouched.
// (Through a real cluster, with node loss and a coordinator restart: tests/slurm/dse_slurm_test.sh.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/error_of.h"
#include "common/error.h"
#include "dse/batch_runner.h"
#include "dse/slurm_runner.h"
#include "fpga/device.h"
#include "tune/staged_log.h"

namespace tauvta::dse {
namespace {

using tauvta::testing::error_of;

namespace fs = std::filesystem;
constexpr const char* kSpec = "conv2d,ci=64,h=14,w=14,co=64,k=3,s=1,p=1";

DesignSpace space8() {
  SpaceOptions o;
  o.precision = 8;
  o.device = &fpga::find_device("pynq-z1");
  return DesignSpace(o);
}

fs::path temp_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("tauvta_slurmwork_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

Design with(const DesignSpace& s, Design d, Knob k, int value) {
  const auto i = s.index_of(k, value);
  EXPECT_TRUE(i.has_value()) << knob_name(k) << "=" << value;
  d[size_t(k)] = *i;
  return d;
}

// The same design scheduled and implemented at another clock (the space keeps the two equal).
Design clocked(const DesignSpace& s, Design d, int mhz) {
  return with(s, with(s, d, Knob::kHlsMhz, mhz), Knob::kImplMhz, mhz);
}

// Three screened designs and one tuned, over two tasks.
RoundWork small_round(const DesignSpace& s, const Evaluator& ev) {
  RoundWork w;
  w.precision = 8;
  w.tasks = 2;
  w.job = {{"note", "opaque to dse"}};
  const Design d0 = s.default_design();
  const Design d1 = clocked(s, d0, 120);
  const Design d2 = clocked(s, d0, 140);
  int t = 0;
  for (const auto& [d, budget] : std::vector<std::pair<Design, int64_t>>{{d0, 0}, {d1, 0}, {d2, 0}, {d0, 8}}) {
    w.items.push_back({d, budget, ev.cache_key(s, d, budget), t});
    t = 1 - t;
  }
  return w;
}

TEST(DseSlurmWork, WorkListRoundTripsAndBadOnesNameTheItem) {
  const DesignSpace s = space8();
  DseWorkload wl(kSpec);
  Evaluator ev(wl, {}, nullptr);
  const RoundWork w = small_round(s, ev);
  const RoundWork back = round_work_from_json(to_json(w), "work.json");
  EXPECT_EQ(to_json(back).dump(), to_json(w).dump());
  EXPECT_EQ(back.of_task(0), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(back.of_task(1), (std::vector<size_t>{1, 3}));
  nlohmann::json j = to_json(w);
  j["items"][1]["task"] = 5;
  EXPECT_EQ(error_of([&] { round_work_from_json(j, "r/work.json"); }), "r/work.json: item 1: task 5 outside 0..1");
  j = to_json(w);
  j["items"][2]["design"] = {1, 2};
  EXPECT_EQ(error_of([&] { round_work_from_json(j, "r/work.json"); }),
            fmt::format("r/work.json: item 2: 2 knobs, not {}", kNumKnobs));
  EXPECT_EQ(error_of([&] { round_work_from_json(nlohmann::json{{"format", "x"}}, "w.json"); }),
            "w.json: not a work list (format tauvta-dse-round-1)");
}

TEST(DseSlurmWork, ARequeuedShardTakesUpWhatTheKilledAttemptFinished) {
  const fs::path dir = temp_dir("shard");
  const DesignSpace s = space8();
  DseWorkload wl(kSpec);
  EvaluatorOptions eo;
  eo.log_dir = dir / "tuning";
  RoundWork w;
  {
    Evaluator probe(wl, eo, nullptr);
    w = small_round(s, probe);
  }
  // The first attempt of task 1 finishes both its items...
  std::string first_line;
  {
    ResultCache cache(shard_results_path(dir, 1, "7r0"));
    Evaluator ev(wl, eo, &cache);
    const ShardSummary r = run_shard(w, 1, s, ev, 1);
    EXPECT_EQ(r.items, 2u);
    EXPECT_EQ(r.computed, 2u);
    EXPECT_EQ(r.already, 0u);
  }
  // ... but its last line was torn by the kill: the requeued attempt takes the first result and
  // evaluates only the torn one again, into its own file.
  {
    const fs::path f = shard_results_path(dir, 1, "7r0");
    std::ifstream in(f);
    std::getline(in, first_line);
    std::ofstream(f, std::ios::trunc) << first_line << "\n" << "{\"cache_key\":\"half";
  }
  ResultCache cache(shard_results_path(dir, 1, "7r1"));
  absorb_earlier_attempts(cache, dir, 1);
  EXPECT_EQ(cache.size(), 1u);
  Evaluator ev(wl, eo, &cache);
  const ShardSummary r = run_shard(w, 1, s, ev, 1);
  EXPECT_EQ(r.already, 1u);
  EXPECT_EQ(r.computed, 1u);
  // The earlier attempt's file is not cut by a later reader (its writer might still be alive).
  EXPECT_EQ(ResultCache::read_lines(shard_results_path(dir, 1, "7r0")).size(), 1u);
  EXPECT_EQ(ResultCache::read_lines(shard_results_path(dir, 1, "7r1")).size(), 1u);
  fs::remove_all(dir);
}

TEST(DseSlurmWork, AWorkerThatKeysDesignsDifferentlyStops) {
  const DesignSpace s = space8();
  DseWorkload wl(kSpec);
  Evaluator ev(wl, {}, nullptr);
  RoundWork w = small_round(s, ev);
  w.items[0].cache_key = "from another build";
  const std::string e = error_of([&] { run_shard(w, 0, s, ev, 1); });
  EXPECT_NE(e.find("item 0: this worker keys the design as"), std::string::npos) << e;
  EXPECT_EQ(error_of([&] { run_shard(w, 2, s, ev, 1); }), "task 2 is outside the round's 0..1");
}

TEST(DseSlurmWork, SharingGroupsKeepATuningLogsAsksTogetherInOrder) {
  const DesignSpace s = space8();
  DseWorkload wl(kSpec);
  Evaluator ev(wl, {}, nullptr);
  const Design a = s.default_design();
  // Products in LUTs: resources differ, timing (so the tuning log) does not.
  const Design a_lut = with(s, with(s, a, Knob::kBinding, 2), Knob::kDspLimit, 0);
  const Design b = clocked(s, a, 140);
  const std::vector<Ask> asks = {{a, 8, true}, {b, 8, true}, {a_lut, 8, true}, {a, 0, true}, {a_lut, 0, true}};
  ASSERT_FALSE(s.violation(a_lut)) << *s.violation(a_lut);
  ASSERT_FALSE(s.violation(a)) << *s.violation(a);
  const auto groups = sharing_groups(s, ev, asks);
  // a and a_lut tuned share a log: one group, in ask order; screened asks share nothing.
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0], (std::vector<size_t>{0, 2}));
  EXPECT_EQ(groups[1], (std::vector<size_t>{1}));
  EXPECT_EQ(groups[2], (std::vector<size_t>{3}));
  EXPECT_EQ(groups[3], (std::vector<size_t>{4}));
}

TEST(DseSlurmWork, AnUncommittedStagedLogLeavesTheLogAsItWas) {
  const fs::path dir = temp_dir("staged");
  const fs::path log = dir / "t.jsonl";
  std::ofstream(log) << "{\"a\":1}\n";
  {
    tune::StagedLog staged(log);
    staged.mark();
    std::ofstream(staged.work(), std::ios::app) << "{\"b\":2}\n";
    EXPECT_EQ(staged.added(), "{\"b\":2}\n");
  }  // dropped: a killed tuning
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{\"a\":1}\n");
  {
    tune::StagedLog staged(log);
    std::ofstream(staged.work(), std::ios::app) << "{\"c\":3}\n";
    staged.commit();
  }
  std::ifstream in2(log);
  text.assign((std::istreambuf_iterator<char>(in2)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{\"a\":1}\n{\"c\":3}\n");
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1u);  // no copy left behind
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tauvta::dse
