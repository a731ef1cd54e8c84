// `tauvta sim` end to end: every program run through VTA's HLS design, given to the command line
// exactly as its case.json describes, must dump the hardware's bytes; plus the report JSON, the
// timing-only mode, hazards and argument errors.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;
using testing::run_tauvta;

const fs::path kCases = fs::path(TAUVTA_SOURCE_DIR) / "tests/data/vta-reference-programs";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class SimCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tauvta_sim_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The command line for one reference case, dumping into `out` (and a config file written from
  // the case's "config" object).
  std::string case_args(const fs::path& c, const fs::path& out) const {
    const nlohmann::json j = nlohmann::json::parse(slurp(c / "case.json"));
    const fs::path cfg = dir_ / (c.filename().string() + ".json");
    std::ofstream(cfg) << j.at("config").dump();
    std::string args = "sim --config " + cfg.string() + " --insns " +
                       (c / j.at("program").get<std::string>()).string();
    for (const auto& m : j.at("mem")) {
      args += " --mem " + std::to_string(m.at("addr").get<uint64_t>()) + "=" +
              (c / m.at("file").get<std::string>()).string();
    }
    const auto& d = j.at("dump");
    args += " --dump " + std::to_string(d.at("addr").get<uint64_t>()) + ":" +
            std::to_string(d.at("bytes").get<uint64_t>()) + "=" + out.string();
    return args;
  }

  fs::path dir_;
};

TEST_F(SimCli, EveryReferenceProgramReproducesTheHardwareBytes) {
  int cases = 0;
  for (const auto& cfg : fs::directory_iterator(kCases)) {
    if (!cfg.is_directory()) continue;
    for (const auto& c : fs::directory_iterator(cfg.path())) {
      if (!fs::exists(c.path() / "case.json")) continue;
      const nlohmann::json j = nlohmann::json::parse(slurp(c.path() / "case.json"));
      const fs::path out = dir_ / (cfg.path().filename().string() + "_" + c.path().filename().string() + ".bin");
      const auto r = run_tauvta(case_args(c.path(), out) + " --check-hazards --quiet");
      ASSERT_EQ(r.code, 0) << c.path() << "\n" << r.out;
      EXPECT_EQ(slurp(out), slurp(c.path() / j.at("dump").at("expect").get<std::string>()))
          << c.path();
      ++cases;
    }
  }
  EXPECT_EQ(cases, 11);
}

TEST_F(SimCli, ReportHasTheDocumentedKeysAndTimingOnlyMatches) {
  const fs::path c = kCases / "1x16_i8w8a32_15_15_18_17" / "blocked_gemm_b64_c64_blk32_uc1_vt1";
  const fs::path report = dir_ / "full.json", treport = dir_ / "timing.json";
  auto r = run_tauvta(case_args(c, dir_ / "out.bin") + " --report " + report.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("GEMM utilization"), std::string::npos) << r.out;
  r = run_tauvta(case_args(c, dir_ / "out2.bin") + " --timing-only --report " + treport.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const nlohmann::json full = nlohmann::json::parse(slurp(report));
  const nlohmann::json timing = nlohmann::json::parse(slurp(treport));
  for (const char* key : {"cycles", "insns", "macs", "gops_at_clock", "gemm_utilization",
                          "sim_wall_seconds", "modules", "bytes", "config"}) {
    EXPECT_TRUE(full.contains(key)) << key;
  }
  for (const char* m : {"load", "compute", "store"}) {
    EXPECT_TRUE(full["modules"][m].contains("busy_cycles")) << m;
  }
  EXPECT_EQ(full["config"]["NAME"], "1x16_i8w8a32_15_15_18_17");
  EXPECT_GT(full["macs"].get<uint64_t>(), 0u);
  EXPECT_EQ(full["cycles"], timing["cycles"]);
  EXPECT_EQ(timing["timing_only"], true);
  // Timing-only never touches DRAM, so the dump holds the untouched (zero-filled + --mem) bytes.
  EXPECT_NE(slurp(dir_ / "out.bin"), slurp(dir_ / "out2.bin"));
}

TEST_F(SimCli, RefusesToOverwriteADumpWithoutForce) {
  const fs::path c = kCases / "1x16_i8w8a32_15_15_18_17" / "gemm_reset";
  const fs::path out = dir_ / "out.bin";
  std::ofstream(out) << "keep me";
  auto r = run_tauvta(case_args(c, out));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find(out.string() + ": file exists; pass --force to overwrite it"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(slurp(out), "keep me");
  r = run_tauvta(case_args(c, out) + " --force --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(slurp(out).size(), 256u);
}

}  // namespace
}  // namespace tauvta
