// The tuner's log: records TVM's reader format and ours parse back identically (a folded layer's
// exact workload too), a run killed mid-record resumes without losing a finished trial and
// without measuring one twice, and pick-best keeps one best record per workload.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "tune/trial_log.h"
#include "tune/tuner.h"
#include "tune_test_util.h"

namespace tauvta::tune {
namespace {

using testing::preset;
using testing::temp_dir;

std::vector<std::string> lines_of(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(TrialLog, RecordRoundTripsThroughTheTuningRecordReader) {
  const hw::HwConfig c = preset("pynq");
  const lower::ConvWorkload w = testing::reference_layer();
  const lower::Schedule s = lower::Schedule::parse("tile_b=1x1,tile_h=2x6,tile_w=1x12,tile_ci=4x4,tile_co=4x4,oc_nthread=2,h_nthread=1");
  Measurement m;
  m.cycles = 123456;
  m.seconds = 0.00123456;
  m.gops = 10;
  const nlohmann::json j = trial_record(c, w, s, 77, m, 1700000000, {{"tuner", "xgb"}});
  const std::optional<lower::TuningRecord> r = lower::parse_tuning_record(j, "mem", 1);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->workload, w);
  EXPECT_EQ(r->schedule, s);
  EXPECT_EQ(r->config_index, 77);
  EXPECT_EQ(lower::record_config_name(*r), c.name());
  EXPECT_DOUBLE_EQ(lower::record_seconds(*r), 0.00123456);
  EXPECT_EQ(j["tauvta"]["cycles"], 123456);
  // A failed trial: AutoTVM's 1e9 cost and its error number; never the best.
  Measurement bad;
  bad.error_no = kInstantiationError;
  bad.error = "too big";
  const auto rb = lower::parse_tuning_record(trial_record(c, w, s, 1, bad, 0, {}), "mem", 2);
  EXPECT_EQ(rb->error_no, 1);
  EXPECT_TRUE(std::isinf(lower::record_seconds(*rb)));
  // A column-folded first layer (21 channels) keeps its exact workload.
  lower::ConvWorkload folded = parse_workload_spec("conv2d,ci=21,h=230,w=112,co=64,k=7x1,s=2x1,p=0");
  const auto rf = lower::parse_tuning_record(trial_record(c, folded, lower::Schedule{}, 0, m, 0, {}), "mem", 3);
  EXPECT_EQ(rf->workload, folded);
}

TEST(TrialLog, ResumeAfterAKillLosesNoFinishedTrialAndMeasuresNoneTwice) {
  const hw::HwConfig c = preset("pynq");
  const std::filesystem::path dir = temp_dir("resume");
  const std::filesystem::path log_path = dir / "log.jsonl";
  const TuneTask task = workload_task(c, parse_workload_spec("conv2d,ci=64,h=28,w=28,co=64,k=3,s=1,p=1"));
  Measurer m(c, 1);
  TuneOptions o;
  o.searcher.kind = "xgb";
  o.trials = 60;
  o.batch = 16;
  o.verify = false;
  // An uninterrupted run for reference.
  TaskResult whole;
  {
    TrialLog log(dir / "whole.jsonl");
    whole = tune_task(task, o, m, &log);
  }
  // A run stopped after 40 trials, its last record torn in half.
  {
    TuneOptions first = o;
    first.trials = 40;
    TrialLog log(log_path);
    tune_task(task, first, m, &log);
  }
  std::vector<std::string> lines = lines_of(log_path);
  ASSERT_EQ(lines.size(), 40u);
  {
    std::ofstream out(log_path, std::ios::app);
    out << lines.back().substr(0, lines.back().size() / 2);
  }
  TrialLog log(log_path);
  EXPECT_NE(log.repair_note().find("removed an unfinished last record"), std::string::npos) << log.repair_note();
  EXPECT_EQ(log.records(), 40u);
  const TaskResult resumed = tune_task(task, o, m, &log);
  EXPECT_EQ(resumed.resumed, 40);
  EXPECT_EQ(resumed.measured, 20);
  EXPECT_EQ(resumed.trials, 60);
  lines = lines_of(log_path);
  ASSERT_EQ(lines.size(), 60u);
  std::set<std::string> entities;
  for (const std::string& l : lines) {
    const nlohmann::json j = nlohmann::json::parse(l);  // every line whole
    EXPECT_TRUE(entities.insert(j["config"]["entity"].dump()).second) << "measured twice: " << l;
  }
  // The resumed run continues exactly as the uninterrupted one (deterministic for its seed)
  // only up to the point it was stopped; its best is at least that of the first 40 trials.
  EXPECT_GE(resumed.best_measure.gops, whole.best_so_far[39] - 1e-9);
  // Running again with the budget spent measures nothing.
  TrialLog again(log_path);
  const TaskResult done = tune_task(task, o, m, &again);
  EXPECT_EQ(done.measured, 0);
  EXPECT_EQ(done.trials, 60);
  EXPECT_EQ(*done.best, *resumed.best);
}

TEST(TrialLog, PickBestKeepsTheBestRecordPerWorkload) {
  const hw::HwConfig c = preset("pynq");
  const std::filesystem::path dir = temp_dir("pick");
  const std::filesystem::path in = dir / "all.jsonl", out = dir / "best.jsonl";
  Measurer m(c, 1);
  TuneOptions o;
  o.searcher.kind = "random";
  o.trials = 25;
  o.verify = false;
  std::map<std::string, double> best_seconds;
  {
    TrialLog log(in);
    for (const char* spec : {"conv2d,ci=64,h=28,w=28,co=64,k=3,s=1,p=1", "conv2d,ci=64,h=14,w=14,co=128,k=1,s=1,p=0"}) {
      const TaskResult r = tune_task(workload_task(c, parse_workload_spec(spec)), o, m, &log);
      best_seconds[r.task.workload().to_string()] = r.best_measure.seconds;
    }
  }
  const PickBestSummary s = pick_best(in, out, false);
  EXPECT_EQ(s.lines, 50u);
  EXPECT_EQ(s.kept, 2u);
  const lower::TuningLog best = lower::read_tuning_log(out);
  ASSERT_EQ(best.records.size(), 2u);
  for (const lower::TuningRecord& r : best.records) {
    EXPECT_DOUBLE_EQ(lower::record_seconds(r), best_seconds.at(r.workload.to_string()));
  }
  try {
    pick_best(in, out, false);
    FAIL() << "overwrote";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("file exists"), std::string::npos) << e.what();
  }
}

TEST(TrialLog, MalformedLineInTheMiddleIsAnErrorNamingTheLine) {
  const std::filesystem::path dir = temp_dir("bad");
  const std::filesystem::path p = dir / "bad.jsonl";
  std::ofstream(p) << "{not json\n{}\n";
  try {
    TrialLog log(p);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:1: not a JSON record"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tauvta::tune

namespace tauvta::tune {
namespace {

// A schedule the functional check found wrong (a WRONG_ANSWER record after its timing record)
// never wins: not in pick-best, not on resume, not in `run --tuning-log`.
TEST(TrialLog, ASchedulesFoundWrongNeverWins) {
  const hw::HwConfig c = preset("pynq");
  const std::filesystem::path dir = temp_dir("wrong");
  const std::filesystem::path in = dir / "log.jsonl", out = dir / "best.jsonl";
  const TuneTask task = workload_task(c, parse_workload_spec("conv2d,ci=64,h=28,w=28,co=64,k=3,s=1,p=1"));
  const KnobSpace space(c, task.workload(), task.needs);
  Measurer m(c, 1);
  const lower::Schedule fast = space.schedule(0), slow = space.schedule(1);
  {
    TrialLog log(in);
    Measurement mf;
    mf.cycles = 1000;
    mf.seconds = 1e-5;
    Measurement ms = mf;
    ms.seconds = 2e-5;
    log.append(trial_record(c, task.workload(), fast, space.config_index(0), mf, 0, {}));
    log.append(trial_record(c, task.workload(), slow, space.config_index(1), ms, 0, {}));
    Measurement wrong;
    wrong.error_no = kWrongAnswer;
    log.append(trial_record(c, task.workload(), fast, space.config_index(0), wrong, 0, {}));
  }
  const PickBestSummary s = pick_best(in, out, false);
  EXPECT_EQ(s.kept, 1u);
  const lower::TuningLog best = lower::read_tuning_log(out);
  ASSERT_EQ(best.records.size(), 1u);
  EXPECT_EQ(best.records[0].schedule, slow);
  TrialLog log(in);
  TuneOptions o;
  o.trials = 2;
  o.verify = false;
  const TaskResult r = tune_task(task, o, m, &log);
  EXPECT_EQ(r.resumed, 2);
  EXPECT_EQ(r.wrong, 1);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_EQ(*r.best, slow);
}

}  // namespace
}  // namespace tauvta::tune
