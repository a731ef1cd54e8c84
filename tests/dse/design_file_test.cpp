// A design is one file: the exploration's best design per precision (8, 4, 2, 1) on VGG-7 and
// ResNet-18, written as its vta_config.json, gives the exploration's resources and clock exactly
// through `hw resources`, its datapath through `rtl` (the tree registers, latencies, ACC ports and
// DSP limit the exploration priced and timed), and its cycles exactly through `run --timing-only`
// (the conv and dense layers the exploration times), with its feasibility recorded.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_tauvta;

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// The JSON a command printed (its first '{' to its last '}'; progress lines may precede it).
json printed_json(const std::string& out) {
  const size_t a = out.find('{'), b = out.rfind('}');
  if (a == std::string::npos || b == std::string::npos) return json();
  return json::parse(out.substr(a, b - a + 1));
}

class DesignFile : public ::testing::TestWithParam<std::string> {};

TEST_P(DesignFile, TheExplorationsBestDesignIsReproducedByHwResourcesRtlAndRun) {
  const fs::path model = fs::path(TAUVTA_SOURCE_DIR) / GetParam();
  if (!fs::exists(model)) GTEST_SKIP() << model << " is missing: run scripts/make-models first";
  const fs::path dir = fs::temp_directory_path() / ("tauvta_design_file_" + model.stem().string() + "_" +
                                                    std::to_string(::getpid()));
  fs::remove_all(dir);
  // VTA's strategy: its knobs over the space with the implementation options at their defaults
  // picked per device; the heuristic schedules (budget 0) keep it to seconds.
  const auto r = run_tauvta("dse " + model.string() + " --device pynq-z1 --precisions 8,4,2,1 --strategy vta --budget 0 --out " +
                            (dir / "dse").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const json summary = read_json(dir / "dse/summary.json");
  ASSERT_EQ(summary["precisions"].size(), 4u);
  for (const json& p : summary["precisions"]) {
    const int precision = p["precision"].get<int>();
    SCOPED_TRACE("precision " + std::to_string(precision));
    ASSERT_TRUE(p.contains("best")) << p.dump();
    const json& best = p["best"];
    const fs::path cfg = dir / "dse" / "best" / ("p" + std::to_string(precision)) / "vta_config.json";
    const json file = read_json(cfg);
    ASSERT_TRUE(file.contains("IMPLEMENTATION")) << file.dump();

    // Resources and clock, exactly.
    const auto hw = run_tauvta("hw resources " + cfg.string() + " --json");
    ASSERT_EQ(hw.code, 0) << hw.out;
    const json est = printed_json(hw.out)["estimates"][0];
    EXPECT_EQ(est["device"], "pynq-z1");
    for (const auto& [ours, theirs] : {std::pair{"LUT", "lut"}, std::pair{"FF", "ff"}, std::pair{"DSP", "dsp"},
                                       std::pair{"BRAM36", "bram36"}}) {
      EXPECT_EQ(est["total"][ours].get<double>(), best["resources"][theirs].get<double>()) << ours;
    }
    EXPECT_EQ(est["fmax_mhz"].get<double>(), best["fmax_mhz"].get<double>());
    EXPECT_EQ(est["target_mhz"].get<double>(), best["clock_mhz"].get<double>());
    EXPECT_TRUE(est["feasible"].get<bool>()) << est["verdict"];

    // The datapath: what the file's TIMING says the pipelines take is what the RTL builds.
    const auto rtl = run_tauvta("rtl " + cfg.string() + " --json -o " + (dir / ("rtl" + std::to_string(precision))).string());
    ASSERT_EQ(rtl.code, 0) << rtl.out;
    const json design = printed_json(rtl.out);
    const json& timing = file["TIMING"];
    EXPECT_EQ(design["gemm"]["latency"], timing["GEMM_PIPELINE_DEPTH"]);
    EXPECT_EQ(design["alu"]["latency"], timing["ALU_PIPELINE_DEPTH"]);
    EXPECT_EQ(design["options"]["tree_levels_per_stage"], file["IMPLEMENTATION"]["TREE_LEVELS_PER_STAGE"]);
    EXPECT_EQ(design["options"]["acc_read_ports"], file["IMPLEMENTATION"]["ACC_READ_PORTS"]);
    EXPECT_EQ(design["options"]["max_dsp_products"], file["IMPLEMENTATION"]["DSP_LIMIT"]);
    EXPECT_EQ(design["alu"]["issue_cycles"].get<int>(),
              std::max(timing["ALU_II"].get<int>() * design["alu"]["passes"].get<int>(), 1));

    // The design runs as the file says, and the run records that it fits its board.
    const fs::path report = dir / ("run" + std::to_string(precision) + ".json");
    const auto run = run_tauvta("run " + model.string() + " --config " + cfg.string() + " --timing-only --report " +
                                report.string());
    ASSERT_EQ(run.code, 0) << run.out;
    const json rep = read_json(report);
    EXPECT_TRUE(rep["feasibility"]["fits"].get<bool>()) << rep["feasibility"].dump();
    EXPECT_TRUE(rep["feasibility"]["closes_clock"].get<bool>()) << rep["feasibility"].dump();
    EXPECT_EQ(rep["feasibility"]["fmax_mhz"].get<double>(), best["fmax_mhz"].get<double>());
    uint64_t cycles = 0;
    for (const json& layer : rep["layers"]) {
      const std::string op = layer["op"].get<std::string>();
      if (layer["placement"] == "vta" && (op.rfind("conv2d", 0) == 0 || op.rfind("group_conv2d", 0) == 0 || op == "dense")) {
        cycles += layer["cycles"].get<uint64_t>();
      }
    }
    EXPECT_EQ(cycles, best["cycles"].get<uint64_t>());
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Models, DesignFile, ::testing::Values("models/vgg7_fmnist.onnx", "build/models/resnet18.onnx"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.param.find("resnet") != std::string::npos ? std::string("ResNet18")
                                                                              : std::string("Vgg7");
                         });

}  // namespace
}  // namespace tauvta
