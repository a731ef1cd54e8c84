// The whole generated accelerator (tauvta_accelerator) in Verilator against the simulator: every
// DRAM byte a program can touch must be equal after FINISH. Programs: the VTA reference programs
// (whose expected output comes from VTA's own HLS design), and random programs in both styles of
// tests/sim/random_programs.h (serialized, and double-buffered with load, compute and store
// overlapping) on every preset and on random configs whose memory side is random too (bus width,
// burst length, outstanding requests, port acceptance), so that every width conversion (elements
// larger and smaller than a bus beat), burst split and back-pressure path runs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/rtl_program.h"
#include "cli/cli_runner.h"
#include "common/error.h"
#include "hw/config_file.h"
#include "hw/isa_layout.h"
#include "hw/program_file.h"
#include "rtl/accelerator_sim.h"
#include "sim/random_programs.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

// Runs a random program on a fresh simulator and a fresh accelerator (a random program may read
// buffer entries it never wrote: both must start zeroed); expects the DRAM to be equal.
void expect_bit_exact(const rtl::RtlOptions& options, const testing::RandomProgram& p) {
  sim::Dram dram(p.dram.size());
  dram.write(0, p.dram);
  sim::Simulator simulator(p.config, dram);
  rtl::AcceleratorSim accelerator(p.config, options);
  const backend::RtlProgramResult r = backend::run_program_on_rtl(simulator, accelerator, p.insns);
  EXPECT_TRUE(r.bit_exact) << p.config.name() << " " << testing::style_name(p.style) << " seed "
                           << p.seed << ": " << r.difference;
  EXPECT_GT(r.compared_bytes, 0u);
}

bool verilator_available() { return rtl::default_cosim_toolchain().available(); }

TEST(RtlAccelerator, VtaReferenceProgramsAreBitExact) {
  ASSERT_TRUE(verilator_available()) << "Verilator not found at configure time (scripts/setup installs it)";
  int cases = 0;
  for (const auto& cfg_dir : fs::directory_iterator(fs::path(TAUVTA_SOURCE_DIR) / "tests/data/vta-reference-programs")) {
    if (!cfg_dir.is_directory()) continue;
    std::unique_ptr<rtl::AcceleratorSim> accelerator;
    for (const auto& dir : fs::directory_iterator(cfg_dir.path())) {
      const nlohmann::json c = nlohmann::json::parse(std::ifstream(dir.path() / "case.json"));
      const hw::HwConfig config = hw::HwConfig::from_json(c["config"], "case.json");
      // One simulator per config: the on-chip buffers persist between programs, as on a board.
      if (!accelerator) accelerator = std::make_unique<rtl::AcceleratorSim>(config, backend::rtl_options_for(config));
      sim::Dram dram(64ull << 20);
      for (const auto& m : c["mem"]) dram.write(m["addr"].get<uint64_t>(), read_file(dir.path() / m["file"].get<std::string>()));
      sim::Simulator simulator(config, dram);
      const auto program = hw::read_program(dir.path() / c["program"].get<std::string>());
      const backend::RtlProgramResult r = backend::run_program_on_rtl(simulator, *accelerator, program);
      EXPECT_TRUE(r.bit_exact) << dir.path() << ": " << r.difference;
      // And the bytes VTA's HLS design wrote.
      const uint64_t at = c["dump"]["addr"], n = c["dump"]["bytes"];
      std::vector<uint8_t> got(n);
      accelerator->read(at, got);
      EXPECT_EQ(got, read_file(dir.path() / c["dump"]["expect"].get<std::string>())) << dir.path();
      ++cases;
    }
  }
  EXPECT_EQ(cases, 11);
}

std::vector<fs::path> presets() {
  std::vector<fs::path> v;
  for (const auto& e : fs::directory_iterator(fs::path(TAUVTA_SOURCE_DIR) / "configs")) {
    if (e.path().extension() == ".json") v.push_back(e.path());
  }
  std::sort(v.begin(), v.end());
  return v;
}

// The presets' buffers are large; random programs address them from the start.
class PresetAccelerator : public ::testing::TestWithParam<fs::path> {};

TEST_P(PresetAccelerator, RandomProgramsAreBitExact) {
  ASSERT_TRUE(verilator_available());
  const hw::HwConfig config = hw::HwConfig::load(GetParam());
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    for (auto style : {testing::ProgramStyle::kSerialized, testing::ProgramStyle::kPipelined}) {
      expect_bit_exact(backend::rtl_options_for(config), testing::random_program(config, seed, style));
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Rtl, PresetAccelerator, ::testing::ValuesIn(presets()),
                         [](const auto& p) { return p.param.stem().string(); });

// A random config (tests/sim/random_programs.h) with a random memory side.
hw::HwConfig random_accelerator_config(uint64_t seed) {
  hw::HwConfig c = testing::random_config(seed);
  std::mt19937_64 rng(seed * 7919);
  auto pick = [&](std::initializer_list<int> v) {
    return *(v.begin() + std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng));
  };
  c.timing.log_bus_width = pick({5, 6, 7, 8, 9});  // 32 to 512 bits
  c.timing.max_burst_beats = pick({1, 2, 4, 16, 64, 256});
  c.timing.master_outstanding = pick({1, 2, 16});
  c.timing.port_read_acceptance = pick({1, 3, 7});
  c.timing.port_write_acceptance = pick({1, 3});
  c.timing.dram_latency_cycles = pick({1, 10, 75});
  c.timing.write_latency_cycles = pick({1, 40});
  c.timing.dram_bandwidth_gbps = pick({1, 4, 100}) * 0.1;
  c.timing.burst_overhead_cycles = pick({0, 0, 3});
  c.validate("random accelerator config");
  return c;
}

// Random configs' whole accelerators are clean under Verilator's lint with every warning on, as
// the presets are (tests/rtl/lint_test.cpp): the widths that only odd shapes reach (buses of 32 to
// 512 bits, elements narrower than a beat, queue depths of 1) included.
TEST(RtlAccelerator, RandomConfigsAreCleanUnderVerilatorsWallLint) {
  if (std::system("command -v verilator >/dev/null 2>&1") != 0) GTEST_SKIP() << "verilator is not installed";
  const fs::path dir = fs::temp_directory_path() / ("tauvta_rtl_lint_random_" + std::to_string(::getpid()));
  for (uint64_t seed = 3000; seed < 3006; ++seed) {
    const hw::HwConfig config = random_accelerator_config(seed);
    const rtl::RtlOptions o = rtl::options_of(config, 0);
    const rtl::RtlDesign d = rtl::generate_rtl(config, o);
    fs::remove_all(dir);
    rtl::write_rtl(d, rtl::design_json(config, o, d.shape), dir, true);
    const std::string cmd = "cd '" + dir.string() + "' && verilator --lint-only -Wall --top-module tauvta_accelerator *.v 2>&1";
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    EXPECT_EQ(pclose(p), 0) << config.name() << " (seed " << seed << "):\n" << out;
  }
  fs::remove_all(dir);
}

constexpr int kRandomConfigs = 24, kShards = 6;

class RandomAccelerator : public ::testing::TestWithParam<int> {};

TEST_P(RandomAccelerator, RandomProgramsAreBitExact) {
  ASSERT_TRUE(verilator_available());
  for (int i = GetParam(); i < kRandomConfigs; i += kShards) {
    const hw::HwConfig config = random_accelerator_config(uint64_t(3000 + i));
    SCOPED_TRACE(fmt::format("random config {}: {} bus {} bits, bursts {}", i, config.name(),
                             1 << config.timing.log_bus_width, config.timing.max_burst_beats));
    for (auto style : {testing::ProgramStyle::kSerialized, testing::ProgramStyle::kPipelined}) {
      expect_bit_exact(rtl::options_of(config, 0), testing::random_program(config, uint64_t(100 + i), style));
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Rtl, RandomAccelerator, ::testing::Range(0, kShards));

}  // namespace
}  // namespace tauvta

namespace tauvta {
namespace {

// `sim --rtl` on a VTA reference program: both sides' cycles in the table, a JSON report with the
// comparison; refused with --timing-only.
TEST(RtlCli, SimRtlRunsBothSidesAndRefusesTimingOnly) {
  ASSERT_TRUE(verilator_available());
  const fs::path dir = fs::path(TAUVTA_SOURCE_DIR) / "tests/data/vta-reference-programs/1x16_i8w8a32_15_15_18_17/pad_inp_gemm";
  const nlohmann::json c = nlohmann::json::parse(std::ifstream(dir / "case.json"));
  std::string args = "sim --insns " + (dir / "program.bin").string();
  for (const auto& m : c["mem"]) args += fmt::format(" --mem {}={}", m["addr"].get<uint64_t>(), (dir / m["file"].get<std::string>()).string());
  const fs::path report = fs::temp_directory_path() / fmt::format("tauvta_sim_rtl_{}.json", ::getpid());
  const auto r = testing::run_tauvta(args + " --rtl --force --report " + report.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("RTL (tauvta_accelerator in Verilator) against the timing model"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bit-exact"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(report));
  EXPECT_TRUE(j["rtl"]["bit_exact"].get<bool>());
  EXPECT_GT(j["rtl"]["rtl_cycles"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["rtl"]["model_cycles"].get<uint64_t>(), j["cycles"].get<uint64_t>());
  fs::remove(report);
  const auto bad = testing::run_tauvta(args + " --rtl --timing-only");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("--rtl runs the data too"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace tauvta
