// `tauvta run` on the accelerator and `tauvta compile` end to end: the main job's accuracies and
// per-layer table, the report's keys, compile -> run of the artifact without the ONNX file
// (outputs identical to the integer reference's), tuning logs, and clear errors for bad artifacts.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "io/tensor_files.h"

namespace tauvta {
namespace {

using testing::run_tauvta;
namespace fs = std::filesystem;

const std::string kModel = std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist.onnx";
const std::string kInput = std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist_input.npy";
const std::string kTrain = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz";
const std::string kSampleLog = std::string(TAUVTA_SOURCE_DIR) + "/tests/data/tuning/sample_vta.log";

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / fmt::format("tauvta_run_{}_{}", name, ::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(RunCli, MainJobShowsAccuraciesTableAndReport) {
  const fs::path dir = temp_dir("main");
  const auto r = run_tauvta("run --limit 100 --report " + (dir / "r.json").string() + " --csv " + (dir / "r.csv").string());
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* want : {"float reference", "integer reference", "accelerator (1x16_i8w8a32_15_15_18_17)",
                           "accelerator outputs identical to the integer reference: yes (0 of 100 images differ)",
                           "schedule / reason", "total:", "GOPS over conv/dense"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "r.json"));
  ASSERT_TRUE(j.contains("layers") && j.contains("total") && j.contains("config"));
  bool conv_seen = false;
  for (const auto& l : j["layers"]) {
    for (const char* key : {"name", "op", "placement", "reason"}) EXPECT_TRUE(l.contains(key)) << key << l.dump();
    EXPECT_TRUE(l["placement"] == "vta" || l["placement"] == "cpu") << l.dump();
    if (l["op"] == "conv2d") {
      conv_seen = true;
      EXPECT_EQ(l["placement"], "vta");
      for (const char* key : {"schedule", "cycles", "macs", "gops", "gemm_utilization", "bytes", "intensity", "bound"}) {
        EXPECT_TRUE(l.contains(key)) << key << l.dump();
      }
      EXPECT_GT(l["cycles"].get<uint64_t>(), 0u);
    }
  }
  EXPECT_TRUE(conv_seen);
  for (const char* key : {"cycles", "seconds_at_clock", "gops", "compile_seconds", "sim_wall_seconds"}) {
    EXPECT_TRUE(j["total"].contains(key)) << key;
  }
  EXPECT_EQ(j["accuracy"]["accelerator"], j["accuracy"]["integer_reference"]) << j["accuracy"].dump();
  // Never overwritten without --force.
  const auto again = run_tauvta("run --limit 50 --report " + (dir / "r.json").string());
  EXPECT_EQ(again.code, 1) << again.out;
  fs::remove_all(dir);
}

// --no-check leaves out the integer reference: the accelerator's accuracy is the same, the report
// says what was not checked and gives the throughput.
TEST(RunCli, NoCheckSkipsTheIntegerReferenceButNotTheAccuracy) {
  const fs::path dir = temp_dir("nocheck");
  const auto checked = run_tauvta("run --limit 100 -q --report " + (dir / "a.json").string());
  ASSERT_EQ(checked.code, 0) << checked.out;
  const auto r = run_tauvta("run --limit 100 -q --no-check --report " + (dir / "b.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("not checked against the integer reference (--no-check)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("  integer reference"), std::string::npos) << r.out;
  const nlohmann::json a = nlohmann::json::parse(std::ifstream(dir / "a.json"))["accuracy"];
  const nlohmann::json b = nlohmann::json::parse(std::ifstream(dir / "b.json"))["accuracy"];
  EXPECT_EQ(a["accelerator"], b["accelerator"]);
  EXPECT_EQ(a["mismatched_images"], 0);
  EXPECT_TRUE(b["integer_reference"].is_null() && b["mismatched_images"].is_null()) << b.dump();
  EXPECT_GT(b["images_per_second"].get<double>(), 0.0);
  fs::remove_all(dir);
}

TEST(RunCli, CompiledArtifactRunsWithoutTheOnnxFile) {
  const fs::path dir = temp_dir("artifact");
  const std::string artifact = (dir / "vgg7.tauvta").string();
  auto r = run_tauvta("compile " + kModel + " --calibrate " + kTrain + " --calib-samples 64 --tuning-log " + kSampleLog +
                      " -o " + artifact);
  ASSERT_EQ(r.code, 0) << r.out;
  r = run_tauvta("run " + artifact + " --input input=" + kInput + " --output-dir " + (dir / "acc").string() +
                 " --check-hazards");
  ASSERT_EQ(r.code, 0) << r.out;
  r = run_tauvta("run " + kModel + " --int --calibrate " + kTrain + " --calib-samples 64 --input input=" + kInput +
                 " --output-dir " + (dir / "int").string());
  ASSERT_EQ(r.code, 0) << r.out;
  for (const auto& f : fs::directory_iterator(dir / "int")) {
    const graph::Tensor want = io::read_npy(f.path());
    const graph::Tensor got = io::read_npy(dir / "acc" / f.path().filename());
    EXPECT_EQ(got.shape(), want.shape()) << f.path();
    EXPECT_EQ(got.to_float(), want.to_float()) << f.path();
  }
  // Its program disassembles, whole or one layer.
  r = run_tauvta("disasm " + artifact);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("# layer /features/features.0/Conv (stream 0)"), std::string::npos) << r.out.substr(0, 300);
  EXPECT_NE(r.out.find("GEMM"), std::string::npos);
  r = run_tauvta("disasm " + artifact + " --layer /softmax/Softmax");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("no accelerator layer named '/softmax/Softmax'"), std::string::npos) << r.out;
  // The artifact is not overwritten without --force.
  r = run_tauvta("compile " + kModel + " -o " + artifact);
  EXPECT_EQ(r.code, 1) << r.out;
  fs::remove_all(dir);
}

TEST(RunCli, TuningLogsApplyToTheirConfigOnly) {
  const fs::path dir = temp_dir("tuning");
  const auto r = run_tauvta("run " + kModel + " --input input=" + kInput + " -q --timing-only --tuning-log " +
                            kSampleLog + " --report " + (dir / "r.json").string() + " --dump-passes " +
                            (dir / "passes").string());
  ASSERT_EQ(r.code, 0) << r.out;
  // VGG-7's fourth conv is the sample's first workload; its fastest record (line 3) is applied,
  // and the placement dump after the pipeline's passes says so.
  std::ifstream dump(dir / "passes" / "08-placement.txt");
  const std::string placement((std::istreambuf_iterator<char>(dump)), std::istreambuf_iterator<char>());
  EXPECT_NE(placement.find("conv2d 1x64x14x14 -> 64 k3x3 s1x1 p1,1,1,1 d1x1 g1\n    "
                           "tile_b=1x1,tile_h=2x7,tile_w=1x14,tile_ci=4x1,tile_co=2x2,oc_nthread=2,h_nthread=1 (" +
                           kSampleLog + " line 3)"),
            std::string::npos)
      << placement;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "r.json"));
  ASSERT_TRUE(j.contains("tuning_log")) << j.dump().substr(0, 400);
  EXPECT_EQ(j["tuning_log"]["records"], 10);
  EXPECT_EQ(j["tuning_log"]["other_records"], 1);
  EXPECT_EQ(j["tuning_log"]["for_this_config"], 6);  // the pynq_1x16 records that measured
  const auto bad = run_tauvta("run --limit 50 -q --tuning-log " + kModel);
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("vgg7_fmnist.onnx:1: not a JSON record"), std::string::npos) << bad.out;
  fs::remove_all(dir);
}

TEST(RunCli, BadArtifactsAreOneLineErrors) {
  const fs::path dir = temp_dir("bad");
  std::ofstream(dir / "junk.tauvta", std::ios::binary) << "definitely not a network";
  const auto r = run_tauvta("run " + (dir / "junk.tauvta").string() + " --timing-only");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "tauvta: error: " + (dir / "junk.tauvta").string() +
                       ": not a tauvta compiled network (no TAUVTA header)\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tauvta
