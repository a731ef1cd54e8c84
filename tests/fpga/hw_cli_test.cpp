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
    ASSERT_TRUE(r.code == 0 || r.code == 3) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(r.code == 0, j["fits"].get<bool>()) << e.path();
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
  for (const char* want : {"gemm core", "tensor alu", "wgt buffer", "fetch", "load", "store",
                           "command queues", "control slave", "interconnect (est.)",
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
  EXPECT_NE(r.out.find("'maybe' is not one of hls, auto, dsp, lut"), std::string::npos) << r.out;
  r = run_tauvta("hw resources --acc-ports 3");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("--acc-ports = 3"), std::string::npos) << r.out;
  r = run_tauvta("hw resources --dsp-limit many");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("--dsp-limit = 'many' is not a number"), std::string::npos) << r.out;
  // VTA's target names and the boards' own spellings are devices; the DE10-Nano is said to be Intel's.
  EXPECT_EQ(run_tauvta("hw resources --device ZCU104").code, 0);
  EXPECT_EQ(run_tauvta("hw resources --device pynq").code, 0);
  r = run_tauvta("hw resources --device de10nano");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("Intel board"), std::string::npos) << r.out;
  r = run_tauvta("hw resources --max-utilization 1.5");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("--max-utilization = 1.5"), std::string::npos) << r.out;
}

TEST(RtlCli, WritesVerilogAndRefusesToOverwrite) {
  const fs::path dir = fs::path(TAUVTA_BINARY_DIR) / "rtl_cli_test";
  fs::remove_all(dir);
  auto r = run_tauvta("rtl " + std::string(TAUVTA_SOURCE_DIR) + "/configs/pynq_w4a4.json -o " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* f : {"tauvta_gemm_core.v", "tauvta_alu.v", "tauvta_sram.v", "tauvta_compute.v", "tauvta_accelerator.v",
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
  EXPECT_NE(r.out.find("--tree-levels = 17"), std::string::npos) << r.out;
}

// Stock designs fit their boards with nothing changed; a design that fits nowhere asked exits 3
// with every failing resource and the clock named, and the advice, followed, removes the DSP failure.
TEST(HwCli, StockDesignsFitAndAMisfitExitsThree) {
  const std::string cfg = std::string(TAUVTA_SOURCE_DIR) + "/configs/";
  for (const std::string c : {"pynq.json", "ultra96.json", "zcu104.json"}) {
    const auto r = run_tauvta("hw resources " + cfg + c);
    EXPECT_EQ(r.code, 0) << c << "\n" << r.out;
    EXPECT_NE(r.out.find("verdict     fits"), std::string::npos) << c << "\n" << r.out;
  }
  for (const std::string n : {"1x16_i8w8a32_15_15_18_17", "1x16_i4w4a32_15_14_17_17"}) {
    const auto r = run_tauvta("hw resources " + n);
    EXPECT_EQ(r.code, 0) << n << "\n" << r.out;
  }
  auto r = run_tauvta("hw resources " + cfg + "pynq_w16.json --binding dsp --dsp-limit 0");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("does not fit the Pynq-Z1: DSP"), std::string::npos) << r.out;
  const size_t at = r.out.find("--dsp-limit ", r.out.find("verdict"));
  ASSERT_NE(at, std::string::npos) << r.out;
  const int limit = std::stoi(r.out.substr(at + 12));
  r = run_tauvta("hw resources " + cfg + "pynq_w16.json --binding dsp --dsp-limit " + std::to_string(limit) + " --json");
  const auto j = nlohmann::json::parse(r.out.substr(0, r.out.rfind('}') + 1));
  EXPECT_LE(j["estimates"][0]["total"]["DSP"].get<double>(), 220) << r.out;
  // --device all exits 0 when any device fits.
  EXPECT_EQ(run_tauvta("hw resources " + cfg + "pynq.json --device all").code, 0);
}

}  // namespace
}  // namespace tauvta
