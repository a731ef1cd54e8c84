// No number without its caveat: run, op and tune say when the config's clock is above what its
// board closes or the design does not fit (and record it in their reports); a network whose
// accelerator ops fall back to the CPU says the totals leave them out; an accuracy at chance level
// is flagged; the utilization counts GEMM rows used, not micro-ops issued.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_tauvta;

const std::string kSrc = TAUVTA_SOURCE_DIR;
const std::string kVgg7 = kSrc + "/models/vgg7_fmnist.onnx";

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tauvta_caveats_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

// The Ultra96 preset at 400 MHz: its datapath closes 345.
fs::path fast_ultra96() {
  std::ifstream in(kSrc + "/configs/ultra96.json");
  json j = json::parse(in);
  j["TIMING"]["CLOCK_MHZ"] = 400;
  const fs::path p = scratch("u96_400.json");
  std::ofstream(p) << j.dump();
  return p;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

TEST(Caveats, RunWarnsWhenTheClockIsAboveWhatTheBoardCloses) {
  const fs::path report = scratch("run.json");
  const auto r = run_tauvta("run " + kVgg7 + " --config " + fast_ultra96().string() + " --timing-only --force --report " +
                            report.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: these figures are for 1x16_i8w8a32_15_15_18_17 at 400 MHz, which the Ultra96 cannot "
                       "build"),
            std::string::npos)
      << r.out;
  const json j = read_json(report);
  EXPECT_FALSE(j["feasibility"]["closes_clock"].get<bool>());
  EXPECT_TRUE(j["feasibility"]["fits"].get<bool>());
  // The stock Pynq design at its own clock: no warning.
  const auto ok = run_tauvta("run " + kVgg7 + " --timing-only");
  ASSERT_EQ(ok.code, 0) << ok.out;
  EXPECT_EQ(ok.out.find("warning: these figures"), std::string::npos) << ok.out;
}

TEST(Caveats, OpAndTuneWarnWhenTheDesignDoesNotFit) {
  // pynq_w16: 16-bit products need more LUTs and block RAMs than the Pynq-Z1 has.
  const std::string cfg = kSrc + "/configs/pynq_w16.json";
  const fs::path report = scratch("op.json");
  const auto op = run_tauvta("op conv2d --ci 32 --height 8 --width 8 --co 32 --kernel 3 --pad 1 --timing-only --config " +
                             cfg + " --force --report " + report.string());
  ASSERT_EQ(op.code, 0) << op.out;
  EXPECT_NE(op.out.find("which the Pynq-Z1 cannot build as configured: does not fit the Pynq-Z1"), std::string::npos)
      << op.out;
  EXPECT_FALSE(read_json(report)["feasibility"]["fits"].get<bool>());
  const auto tune = run_tauvta("tune --workload conv2d,ci=32,h=8,w=8,co=32,k=3,s=1,p=1 --trials 4 --quiet --config " +
                               cfg + " --log " + scratch("tune.jsonl").string());
  ASSERT_EQ(tune.code, 0) << tune.out;
  EXPECT_NE(tune.out.find("cannot build as configured"), std::string::npos) << tune.out;
}

// On 1-bit data the MaxPools run on the CPU: the totals say the accelerator's figures leave them
// out; VGG-7 at 1 bit classifies at chance, and that is said too.
TEST(Caveats, CpuFallbacksAndChanceAccuracyAreFlagged) {
  const std::string d = "/usr/share/datasets/fashion-mnist";
  const fs::path report = scratch("w1.json");
  const auto r = run_tauvta("run " + kVgg7 + " --config " + kSrc + "/configs/pynq_w1a1.json --images " + d +
                            "/t10k-images-idx3-ubyte.gz --labels " + d + "/t10k-labels-idx1-ubyte.gz --calibrate " + d +
                            "/train-images-idx3-ubyte.gz --limit 100 --quiet --force --report " + report.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("ran on the CPU here (MaxPool x3;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("is at chance level for 10 classes"), std::string::npos) << r.out;
  const json j = read_json(report);
  EXPECT_EQ(j["total"]["cpu_fallback_layers"].get<int>(), 3);
  EXPECT_FALSE(j["accuracy"]["warning"].get<std::string>().empty());
  // At 8 bits nothing falls back and the accuracy is the model's.
  const auto w8 = run_tauvta("run " + kVgg7 + " --images " + d + "/t10k-images-idx3-ubyte.gz --labels " + d +
                             "/t10k-labels-idx1-ubyte.gz --calibrate " + d + "/train-images-idx3-ubyte.gz --limit 100 --quiet");
  ASSERT_EQ(w8.code, 0) << w8.out;
  EXPECT_EQ(w8.out.find("ran on the CPU here"), std::string::npos) << w8.out;
  EXPECT_EQ(w8.out.find("chance level"), std::string::npos) << w8.out;
}

// A BATCH=4 core running a batch-1 layer keeps one row of four busy.
TEST(Caveats, UtilizationCountsGemmRowsUsed) {
  const std::string cfg = kSrc + "/configs/pynq_b4_blk8.json";
  const fs::path one = scratch("b1.json"), four = scratch("b4.json");
  ASSERT_EQ(run_tauvta("op conv2d --ci 64 --height 14 --width 14 --co 64 --kernel 3 --pad 1 --batch 1 --timing-only "
                       "--config " + cfg + " --force --report " + one.string()).code,
            0);
  EXPECT_LE(read_json(one)["gemm_utilization"].get<double>(), 0.25 + 1e-9);
  EXPECT_GT(read_json(one)["gemm_utilization"].get<double>(), 0.0);
  const auto r = run_tauvta("run " + kVgg7 + " --config " + cfg + " --timing-only --batch 1 --force --report " +
                            four.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const json report = read_json(four);  // kept: the loop walks into it
  for (const json& layer : report["layers"]) {
    if (layer["placement"] != "vta" || layer["op"] != "conv2d") continue;
    EXPECT_LE(layer["gemm_utilization"].get<double>(), 0.25 + 1e-9) << layer["name"];
  }
}

}  // namespace
}  // namespace tauvta
