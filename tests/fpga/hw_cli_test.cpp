// tauvta hw resources and tauvta rtl from the command line: every preset on every device, JSON
// with the resolved config, and one-line errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;
using testing::run_tauvta;

TEST(HwCli, ResourcesAnswerForEveryPresetOnEveryDevice) {
  for (const auto& e : fs::directory_iterator(fs::path(TAUVTA_SOURCE_DIR) / "configs")) {
    const auto r = run_tauvta("hw resources " + e.path().string() + " --device all --json");
    ASSERT_EQ(r.code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["estimates"].size(), 3u);
    EXPECT_TRUE(j.contains("config"));
    for (const auto& est : j["estimates"]) {
      EXPECT_GT(est["total"]["LUT"].get<double>(), 0);
      EXPECT_GT(est["fmax_mhz"].get<double>(), 0);
      EXPECT_TRUE(est["verdict"].is_string());
    }
  }
}

TEST(HwCli, TableShowsPartsClockAndVerdict) {
  const auto r = run_tauvta("hw resources");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* want : {"gemm core", "tensor alu", "wgt buffer", "infrastructure",
                           "utilization", "fmax", "verdict", "Pynq-Z1"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
}

TEST(HwCli, BadArgumentsGiveOneLine) {
  auto r = run_tauvta("hw resources --device vcu118");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("device 'vcu118' is not one of"), std::string::npos) << r.out;
  r = run_tauvta("hw resources --binding maybe");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("'maybe' is not one of auto, dsp, lut"), std::string::npos) << r.out;
  r = run_tauvta("hw resources --acc-ports 3");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("acc_read_ports = 3"), std::string::npos) << r.out;
  r = run_tauvta("hw resources --max-utilization 1.5");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("--max-utilization = 1.5"), std::string::npos) << r.out;
}

TEST(RtlCli, WritesVerilogAndRefusesToOverwrite) {
  const fs::path dir = fs::path(TAUVTA_BINARY_DIR) / "rtl_cli_test";
  fs::remove_all(dir);
  auto r = run_tauvta("rtl " + std::string(TAUVTA_SOURCE_DIR) + "/configs/pynq_w4a4.json -o " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* f : {"tauvta_gemm_core.v", "tauvta_alu.v", "tauvta_sram.v", "tauvta_compute.v",
                        "design.json"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  const auto again = run_tauvta("rtl -o " + dir.string());
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.out.find("already exists (pass --force to overwrite)"), std::string::npos)
      << again.out;
  EXPECT_EQ(run_tauvta("rtl -o " + dir.string() + " --force").code, 0);
  r = run_tauvta("rtl -o " + dir.string() + " --force --tree-levels 17");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("tree_levels_per_stage = 17"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tauvta
