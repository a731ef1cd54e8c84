// The `tauvta gemm` command end to end: it verifies, prints its table and writes the report.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace {

struct Result {
  int status = -1;
  std::string output;
};

Result run_cli(const std::string& args) {
  const tauvta::testing::CliResult r = tauvta::testing::run_tauvta(args);
  return {r.code, r.out};
}

TEST(CmdGemm, VerifiesAndWritesReport) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tauvta_cmd_gemm_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto report = dir / "gemm.json";
  const Result r = run_cli("gemm --m 33 --k 70 --n 20 --seed 3 --report " + report.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("verified"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("GEMM utilization"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("uop cache hits"), std::string::npos) << r.output;
  std::ifstream in(report);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("m"), 33);
  EXPECT_EQ(j.at("k"), 70);
  EXPECT_EQ(j.at("n"), 20);
  EXPECT_EQ(j.at("verified"), true);
  EXPECT_GT(j.at("cycles").get<uint64_t>(), 0u);
  EXPECT_TRUE(j.contains("config"));
  // An existing report is kept unless --force.
  EXPECT_EQ(run_cli("gemm --m 4 --k 4 --n 4 --report " + report.string()).status, 1);
  EXPECT_EQ(run_cli("gemm --m 4 --k 4 --n 4 --force --report " + report.string()).status, 0);
  std::filesystem::remove_all(dir);
}

TEST(CmdGemm, TimingOnlyAndSerialized) {
  const Result r = run_cli("gemm --m 64 --k 64 --n 64 --virtual-threads 1 --timing-only");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("not computed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("virtual_threads=1"), std::string::npos) << r.output;
}

TEST(CmdGemm, BadArguments) {
  EXPECT_NE(run_cli("gemm --m 0 --k 4 --n 4").status, 0);
  EXPECT_NE(run_cli("gemm --m 4 --k 4 --n 4 --virtual-threads 3").status, 0);
  const Result r = run_cli("gemm --m 4096 --k 4096 --n 16 --tile-m 2048 --tile-k 1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("does not fit"), std::string::npos) << r.output;
}

}  // namespace
