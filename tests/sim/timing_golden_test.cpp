// Golden cycle counts: the timing model's report (cycles, per-module busy and stall cycles, DRAM
// busy cycles) for the VTA reference programs and for runtime-built tiled GEMMs, pinned in
// tests/sim/golden/cycles.txt. Any change to the timing model shows up here; after an intended
// change rerun with TAUVTA_UPDATE_GOLDEN=1 and review the diff.
#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/device.h"
#include "runtime/tiled_gemm.h"
#include "sim/simulator.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string report_line(const std::string& name, const sim::RunReport& r) {
  std::string s = fmt::format("{} cycles={} dram_busy={}", name, r.cycles, r.dram_busy_cycles);
  for (int m = 0; m < hw::kNumModules; ++m) {
    const sim::ModuleStats& st = r.modules[m];
    s += fmt::format(" {}=[busy {} token {} queue {} dram {} idle {}]",
                     hw::module_name(hw::Module(m)), st.busy_cycles, st.stall_token_cycles,
                     st.stall_queue_cycles, st.stall_dram_cycles, st.idle_cycles);
  }
  return s + "\n";
}

std::string reference_program_lines() {
  const fs::path root = fs::path(TAUVTA_SOURCE_DIR) / "tests/data/vta-reference-programs";
  std::vector<fs::path> cases;
  for (const auto& cfg : fs::directory_iterator(root)) {
    if (!cfg.is_directory()) continue;
    for (const auto& c : fs::directory_iterator(cfg.path())) {
      if (fs::exists(c.path() / "case.json")) cases.push_back(c.path());
    }
  }
  std::sort(cases.begin(), cases.end());
  std::string text;
  for (const fs::path& c : cases) {
    const nlohmann::json j = nlohmann::json::parse(read_file(c / "case.json"));
    const hw::HwConfig config = hw::HwConfig::from_json(j.at("config"));
    const std::string bytes = read_file(c / j.at("program").get<std::string>());
    std::vector<hw::RawInsn> program(bytes.size() / 16);
    std::memcpy(program.data(), bytes.data(), program.size() * 16);
    sim::Dram dram(1 << 20);
    sim::Simulator s(config, dram);
    sim::RunOptions o;
    o.timing_only = true;
    text += report_line(c.parent_path().filename().string() + "/" + c.filename().string(),
                        s.run(program, o));
  }
  return text;
}

std::string tiled_gemm_lines() {
  std::string text;
  for (const char* preset : {"pynq", "pynq_w4a4", "pynq_b4_blk8", "zcu104"}) {
    const hw::HwConfig config =
        hw::HwConfig::load(fs::path(TAUVTA_SOURCE_DIR) / "configs" / (std::string(preset) + ".json"));
    for (int vt : {1, 2}) {
      runtime::Device device(config);
      runtime::GemmRunOptions o;
      o.timing_only = true;
      o.virtual_threads = vt;
      const runtime::GemmRun run = runtime::run_tiled_gemm(device, {}, {}, {200, 300, 150}, o);
      text += report_line(fmt::format("gemm200x300x150/{}/vt{}", preset, vt), run.report);
    }
  }
  return text;
}

TEST(TimingGolden, CycleCountsArePinned) {
  const std::string text = reference_program_lines() + tiled_gemm_lines();
  const fs::path path = fs::path(TAUVTA_SOURCE_DIR) / "tests/sim/golden/cycles.txt";
  if (const char* u = std::getenv("TAUVTA_UPDATE_GOLDEN"); u != nullptr && std::string(u) == "1") {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; run with TAUVTA_UPDATE_GOLDEN=1";
  EXPECT_EQ(text, read_file(path)) << "timing changed; if intended, rerun with "
                                      "TAUVTA_UPDATE_GOLDEN=1 and review the diff of "
                                   << path;
}

}  // namespace
}  // namespace tauvta
