// Programs run through VTA's own HLS hardware design, with the bytes it wrote
// (the project's copies in tests/data/vta-reference-programs): the
// simulator must reproduce every one exactly, with the SIMD kernels and with the portable ones,
// and the timing-only run must give the same cycles as the full run.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hw/hw_config.h"
#include "sim/simulator.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

fs::path reference_root() { return fs::path(TAUVTA_SOURCE_DIR) / "tests/data/vta-reference-programs"; }

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << p;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> reference_cases() {
  std::vector<fs::path> cases;
  for (const auto& cfg : fs::directory_iterator(reference_root())) {
    if (!cfg.is_directory()) continue;
    for (const auto& c : fs::directory_iterator(cfg.path())) {
      if (fs::exists(c.path() / "case.json")) cases.push_back(c.path());
    }
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

struct CaseResult {
  std::vector<uint8_t> out;
  sim::RunReport report;
};

CaseResult run_case(const fs::path& dir, sim::RunOptions options) {
  const nlohmann::json j = nlohmann::json::parse(read_file(dir / "case.json"));
  const hw::HwConfig config = hw::HwConfig::from_json(j.at("config"), (dir / "case.json").string());
  const std::vector<uint8_t> bytes = read_file(dir / j.at("program").get<std::string>());
  std::vector<hw::RawInsn> program(bytes.size() / 16);
  std::memcpy(program.data(), bytes.data(), program.size() * 16);
  sim::Dram dram(64ull << 20);
  for (const auto& m : j.at("mem")) {
    dram.write(m.at("addr").get<uint64_t>(), read_file(dir / m.at("file").get<std::string>()));
  }
  sim::Simulator simulator(config, dram);
  CaseResult r;
  r.report = simulator.run(program, options);
  const auto& d = j.at("dump");
  r.out.resize(d.at("bytes").get<size_t>());
  dram.read(d.at("addr").get<uint64_t>(), r.out);
  return r;
}

class ReferenceProgram : public ::testing::TestWithParam<fs::path> {};

TEST_P(ReferenceProgram, ReproducesHardwareBytes) {
  const fs::path dir = GetParam();
  const nlohmann::json j = nlohmann::json::parse(read_file(dir / "case.json"));
  const std::vector<uint8_t> expected = read_file(dir / j.at("dump").at("expect").get<std::string>());
  for (bool portable : {false, true}) {
    sim::RunOptions options;
    options.portable_kernels = portable;
    options.check_hazards = true;
    const CaseResult r = run_case(dir, options);
    ASSERT_EQ(r.out.size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      ASSERT_EQ(int(r.out[k]), int(expected[k]))
          << dir.filename() << (portable ? " (portable)" : " (simd)") << ": first difference at byte "
          << k;
    }
    EXPECT_TRUE(r.report.hazards.empty()) << r.report.hazards.front().message();
  }
}

TEST_P(ReferenceProgram, TimingOnlyCyclesEqualFullRun) {
  sim::RunOptions full, timing;
  timing.timing_only = true;
  const CaseResult a = run_case(GetParam(), full);
  const CaseResult b = run_case(GetParam(), timing);
  EXPECT_GT(a.report.cycles, 0u);
  EXPECT_EQ(a.report.cycles, b.report.cycles);
  EXPECT_EQ(a.report.macs, b.report.macs);
}

std::string case_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string s = info.param.parent_path().filename().string() + "_" + info.param.filename().string();
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(VtaHardware, ReferenceProgram, ::testing::ValuesIn(reference_cases()),
                         case_name);

TEST(ReferencePrograms, AllElevenPresent) { EXPECT_EQ(reference_cases().size(), 11u); }

}  // namespace
}  // namespace tauvta
