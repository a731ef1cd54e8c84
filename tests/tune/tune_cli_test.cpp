// `tauvta tune` end to end: a workload and a model (VGG-7) tuned into a log that `tauvta run
// --tuning-log` applies, the end table, convergence CSV and report; the same command again
// resumes and measures nothing; pick-best; and the must-fail messages.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "tune_test_util.h"

namespace tauvta::tune {
namespace {

using tauvta::testing::run_tauvta;
using testing::temp_dir;

size_t count_lines(const std::filesystem::path& p) {
  std::ifstream in(p);
  size_t n = 0;
  for (std::string l; std::getline(in, l);) n += !l.empty();
  return n;
}

TEST(TuneCli, WorkloadTunesLogsResumesAndPicksBest) {
  const std::filesystem::path dir = temp_dir("cli_workload");
  const std::string log = (dir / "t.jsonl").string();
  const std::string base = "tune --workload conv2d,ci=64,h=14,w=14,co=64,k=3,s=1,p=1 --trials 48 --seed 3 --log " + log;
  const auto r = run_tauvta(base + " --csv " + (dir / "c.csv").string() + " --report " + (dir / "r.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("heur GOPS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("trials/s"), std::string::npos) << r.out;
  EXPECT_EQ(count_lines(log), 48u);
  EXPECT_EQ(count_lines(dir / "c.csv"), 49u);
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "r.json"));
  EXPECT_EQ(j["tune"]["config_name"], "1x16_i8w8a32_15_15_18_17");
  EXPECT_EQ(j["tasks"][0]["trials"], 48);
  EXPECT_TRUE(j["tasks"][0]["best"]["verified"].get<bool>());
  ASSERT_TRUE(j["tasks"][0].contains("feature_importance")) << j["tasks"][0].dump();
  EXPECT_GT(j["tasks"][0]["feature_importance"][0][1].get<double>(), 0);
  EXPECT_GE(j["tasks"][0]["best"]["measure"]["gops"].get<double>(), j["tasks"][0]["default"]["measure"]["gops"].get<double>() * 0.5);
  // The same command again: everything resumed, nothing measured.
  const auto again = run_tauvta(base + " --report " + (dir / "r2.json").string());
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("48 records already there"), std::string::npos) << again.out;
  EXPECT_EQ(count_lines(log), 48u);
  const nlohmann::json j2 = nlohmann::json::parse(std::ifstream(dir / "r2.json"));
  EXPECT_EQ(j2["tasks"][0]["measured"], 0);
  EXPECT_EQ(j2["tasks"][0]["best"]["schedule"], j["tasks"][0]["best"]["schedule"]);
  // pick-best, then `op --log` and the record round trip.
  const std::string best = (dir / "best.jsonl").string();
  const auto pb = run_tauvta("tune pick-best " + log + " -o " + best);
  ASSERT_EQ(pb.code, 0) << pb.out;
  EXPECT_EQ(count_lines(best), 1u);
  const auto op = run_tauvta("op --log " + best);
  ASSERT_EQ(op.code, 0) << op.out;
  EXPECT_NE(op.out.find("verified"), std::string::npos) << op.out;
  const auto pb2 = run_tauvta("tune pick-best " + log + " -o " + best);
  EXPECT_EQ(pb2.code, 1);
  EXPECT_NE(pb2.out.find("file exists"), std::string::npos) << pb2.out;
}

// A real kill: the tuner is stopped with SIGKILL part way, then the same command finishes the
// budget. Every finished trial is kept, none is measured twice, the log stays valid JSON lines.
TEST(TuneCli, KilledRunResumesWithTheSameCommand) {
  const std::filesystem::path dir = temp_dir("cli_kill");
  const std::string log = (dir / "k.jsonl").string();
  const std::string cmd = "tune --workload conv2d,ci=256,h=14,w=14,co=256,k=3,s=1,p=0 --tuner random --trials 1500 "
                          "--no-verify -q --log " + log;
  const std::string shell = "timeout -s KILL 0.6 " + std::string(TAUVTA_CLI_PATH) + " " + cmd + " > /dev/null 2>&1";
  const int status = std::system(shell.c_str());
  (void)status;
  const size_t after_kill = count_lines(log);
  const auto r = run_tauvta(cmd + " --report " + (dir / "r.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(log);
  std::set<std::string> entities;
  size_t lines = 0;
  for (std::string l; std::getline(in, l);) {
    if (l.empty()) continue;
    ++lines;
    const nlohmann::json j = nlohmann::json::parse(l);
    EXPECT_TRUE(entities.insert(j["config"]["entity"].dump()).second) << "measured twice: " << l;
  }
  EXPECT_EQ(lines, 1500u);
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "r.json"));
  EXPECT_EQ(j["tasks"][0]["trials"], 1500);
  EXPECT_GE(j["tasks"][0]["resumed"].get<size_t>(), after_kill > 0 ? after_kill - 1 : 0);
  EXPECT_EQ(j["tasks"][0]["resumed"].get<size_t>() + j["tasks"][0]["measured"].get<size_t>(), 1500u);
}

TEST(TuneCli, ModelTasksTunedAndAppliedByRun) {
  const std::filesystem::path dir = temp_dir("cli_model");
  const std::string log = (dir / "vgg.jsonl").string();
  const std::string model = std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist.onnx";
  const auto r = run_tauvta("tune " + model + " --trials 24 --tuner xgb --log " + log + " --report " + (dir / "r.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("end to end"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "r.json"));
  ASSERT_GE(j["tasks"].size(), 3u);
  EXPECT_LE(j["end_to_end"]["after"]["cycles"].get<uint64_t>(), j["end_to_end"]["before"]["cycles"].get<uint64_t>() * 21 / 20);
  // The compute floor is every schedule's: the best stays under the ceiling the default shows.
  for (const nlohmann::json& t : j["tasks"]) {
    const nlohmann::json& d = t["default"]["measure"];
    EXPECT_GT(d["ceiling_gops"].get<double>(), 0.0) << t.dump();
    EXPECT_LE(t["best"]["measure"]["gops"].get<double>(), d["ceiling_gops"].get<double>()) << t.dump();
    EXPECT_EQ(t["best"]["measure"]["floor_cycles"], d["floor_cycles"]) << t.dump();
  }
  EXPECT_GE(j["end_to_end"]["conv_ceiling_gops"].get<double>(), j["end_to_end"]["after"]["conv_gops"].get<double>());
  // The log applies to the model through run --tuning-log.
  const auto run = run_tauvta("run " + model + " --timing-only --tuning-log " + log + " --report " + (dir / "run.json").string());
  ASSERT_EQ(run.code, 0) << run.out;
  const nlohmann::json rj = nlohmann::json::parse(std::ifstream(dir / "run.json"));
  EXPECT_EQ(rj["tuning_log"]["workloads"].get<size_t>(), j["tasks"].size()) << rj["tuning_log"].dump();
  int64_t successful = 0;
  for (const auto& t : j["tasks"]) successful += t["trials"].get<int64_t>() - t["errors"].get<int64_t>();
  EXPECT_EQ(rj["tuning_log"]["for_this_config"].get<int64_t>(), successful) << rj["tuning_log"].dump();
}

}  // namespace
}  // namespace tauvta::tune
