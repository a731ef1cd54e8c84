// Co-simulation: the generated compute module (GEMM core, tensor ALU, buffers), run by Verilator
// on random micro-op streams, must leave the accumulator and output buffers bit for bit as the
// functional core does, for every preset and for random configs (widths 1..16, batch, blocks,
// ALU lanes and MUL, tree pipelining, accumulator ports). Seeded; designs are built once and
// cached in the build tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/hw_config.h"
#include "hw/isa_layout.h"
#include "hw/lanes.h"
#include "rtl/cosim.h"
#include "sim/dram.h"
#include "sim/functional_core.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

struct CosimCase {
  std::string name;
  hw::HwConfig config;
  rtl::RtlOptions options;
};

// gtest names a failing case by this instead of its bytes.
void PrintTo(const CosimCase& c, std::ostream* os) { *os << c.name; }

std::string hex_of(const std::vector<uint8_t>& bytes) {
  std::string s;
  for (size_t i = bytes.size(); i-- > 0;) s += fmt::format("{:02x}", bytes[i]);
  return s;
}

// Low `bytes` bytes of a harness hex word (most significant digit first).
std::vector<uint8_t> bytes_of(const std::string& hex, size_t bytes) {
  std::vector<uint8_t> out(bytes, 0);
  for (size_t i = 0; i < bytes && 2 * i + 1 < hex.size() + 1; ++i) {
    const size_t end = hex.size() - 2 * i;
    if (end < 2) break;
    out[i] = uint8_t(std::stoul(hex.substr(end - 2, 2), nullptr, 16));
  }
  return out;
}

std::string insn_hex(const hw::RawInsn& r) { return fmt::format("{:016x}{:016x}", r.hi, r.lo); }

// Runs `n_insns` random GEMM/ALU instructions on both the functional core and the RTL and compares
// the accumulator and output regions they touch.
void cosimulate(const CosimCase& c, uint64_t seed, int n_insns) {
  const rtl::CosimToolchain tools = rtl::default_cosim_toolchain();
  ASSERT_TRUE(tools.available()) << "Verilator not found at configure time (scripts/setup installs it)";
  const hw::HwConfig& cfg = c.config;
  rtl::RtlDesign design = rtl::generate_rtl(cfg, c.options);
  design.top = "tauvta_compute";  // the datapath alone, driven through its host port
  const fs::path sim_exe = rtl::build_cosim(design, tools);

  const hw::IsaLayout layout(cfg);
  sim::Dram dram(4096);
  sim::FunctionalCore core(cfg, layout, dram);
  sim::OnChipMemory& mem = core.memory();
  std::mt19937_64 rng(seed);
  auto uni = [&](uint64_t lo, uint64_t hi) {  // inclusive
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  const uint32_t inp_region = std::min<uint32_t>(cfg.inp_depth(), 24);
  const uint32_t wgt_region = std::min<uint32_t>(cfg.wgt_depth(), 12);
  const uint32_t acc_region = std::min<uint32_t>(cfg.acc_depth(), 24);
  const uint32_t uop_region = std::min<uint32_t>(cfg.uop_depth(), 16);
  std::ostringstream script;
  auto random_bytes = [&](int n) {
    std::vector<uint8_t> b(static_cast<size_t>(n));
    for (auto& x : b) x = uint8_t(uni(0, 255));
    return b;
  };
  // Initial buffer contents, the same on both sides.
  for (uint32_t i = 0; i < inp_region; ++i) {
    const auto b = random_bytes(cfg.inp_elem_bytes());
    mem.write_inp(i, b.data(), 1);
    script << "W 2 " << i << " " << hex_of(b) << "\n";
  }
  for (uint32_t i = 0; i < wgt_region; ++i) {
    const auto b = random_bytes(cfg.wgt_elem_bytes());
    mem.write_wgt(i, b.data(), 1);
    script << "W 1 " << i << " " << hex_of(b) << "\n";
  }
  for (uint32_t i = 0; i < acc_region; ++i) {
    const auto b = random_bytes(cfg.acc_elem_bytes());
    mem.write_acc(i, b.data(), 1);
    script << "W 3 " << i << " " << hex_of(b) << "\n";
  }
  const int n_ops = cfg.impl.alu_mul ? 5 : 4;
  for (int n = 0; n < n_insns; ++n) {
    const bool alu = uni(0, 99) < 45;
    hw::Insn insn;
    insn.opcode = alu ? hw::Opcode::kAlu : hw::Opcode::kGemm;
    insn.iter_out = uint32_t(uni(1, 3));
    insn.iter_in = uint32_t(uni(1, 3));
    const uint32_t n_uops = uint32_t(uni(1, std::min<uint32_t>(6, uop_region)));
    insn.uop_bgn = uint32_t(uni(0, uop_region - n_uops));
    insn.uop_end = insn.uop_bgn + n_uops;
    // Factors small enough that every index stays inside the written regions.
    auto factors = [&](uint32_t region, uint32_t& f_out, uint32_t& f_in) {
      f_out = uint32_t(uni(0, 3));
      f_in = uint32_t(uni(0, 3));
      if ((insn.iter_out - 1) * f_out + (insn.iter_in - 1) * f_in >= region) f_out = f_in = 0;
      return region - ((insn.iter_out - 1) * f_out + (insn.iter_in - 1) * f_in);  // uop range
    };
    const uint32_t dst_span = factors(acc_region, insn.dst_factor_out, insn.dst_factor_in);
    std::vector<hw::Uop> uops(n_uops);
    if (alu) {
      const uint32_t src_limit = std::min<uint32_t>(acc_region, 1u << layout.uop().src().width);
      const uint32_t src_span = factors(src_limit, insn.src_factor_out, insn.src_factor_in);
      for (auto& u : uops) u = {uint32_t(uni(0, dst_span - 1)), uint32_t(uni(0, src_span - 1)), 0};
      insn.alu_opcode = uint8_t(uni(0, n_ops - 1));
      insn.use_imm = uni(0, 1) == 1;
      insn.imm = insn.alu_opcode == uint8_t(hw::AluOp::kShr) && uni(0, 3) != 0
                     ? int32_t(uni(0, cfg.acc_width())) - cfg.acc_width() / 2
                     : int32_t(int16_t(uni(0, 65535)));
    } else {
      const uint32_t src_span = factors(inp_region, insn.src_factor_out, insn.src_factor_in);
      const uint32_t wgt_span = factors(wgt_region, insn.wgt_factor_out, insn.wgt_factor_in);
      for (auto& u : uops) {
        u = {uint32_t(uni(0, dst_span - 1)), uint32_t(uni(0, src_span - 1)),
             uint32_t(uni(0, wgt_span - 1))};
      }
      insn.reset = uni(0, 4) == 0;
    }
    for (uint32_t k = 0; k < n_uops; ++k) {
      const uint32_t raw = alu ? layout.encode_alu_uop(uops[k]) : layout.encode_gemm_uop(uops[k]);
      uint8_t b[4] = {uint8_t(raw), uint8_t(raw >> 8), uint8_t(raw >> 16), uint8_t(raw >> 24)};
      mem.write_uops(insn.uop_bgn + k, b, 1, layout);
      script << "W 0 " << insn.uop_bgn + k << " " << fmt::format("{:08x}", raw) << "\n";
    }
    core.execute(insn, size_t(n));
    script << "X " << insn_hex(layout.encode(insn)) << "\n";
  }
  for (uint32_t i = 0; i < acc_region; ++i) script << "R 3 " << i << "\nR 4 " << i << "\n";
  script << "Q\n";

  const std::string out = rtl::run_cosim(
      sim_exe, script.str(), fs::path(TAUVTA_BINARY_DIR) / "rtl_cosim" / "runs" / c.name);
  std::istringstream in(out);
  std::string line;
  std::vector<std::string> reads;
  int insns_done = 0;
  while (std::getline(in, line)) {
    if (line.rfind("cycles ", 0) == 0) {
      ++insns_done;
    } else if (!line.empty()) {
      reads.push_back(line);
    }
  }
  ASSERT_EQ(insns_done, n_insns) << out.substr(0, 500);
  ASSERT_EQ(reads.size(), size_t(2 * acc_region));
  const int lanes = cfg.batch() * cfg.block_out();
  for (uint32_t i = 0; i < acc_region; ++i) {
    std::vector<uint8_t> want_acc(size_t(cfg.acc_elem_bytes()));
    if (mem.acc_is_int32()) {
      hw::pack_lanes(mem.acc32.data() + size_t(i) * lanes, cfg.acc_width(), lanes, want_acc.data());
    } else {
      hw::pack_lanes(mem.acc64.data() + size_t(i) * lanes, cfg.acc_width(), lanes, want_acc.data());
    }
    std::vector<uint8_t> want_out(size_t(cfg.out_elem_bytes()));
    mem.read_out(i, want_out.data(), 1);
    ASSERT_EQ(hex_of(bytes_of(reads[2 * i], want_acc.size())), hex_of(want_acc))
        << c.name << ": accumulator " << i << " differs (seed " << seed << ")";
    ASSERT_EQ(hex_of(bytes_of(reads[2 * i + 1], want_out.size())), hex_of(want_out))
        << c.name << ": output " << i << " differs (seed " << seed << ")";
  }
}

std::vector<CosimCase> preset_cases() {
  std::vector<CosimCase> cases;
  for (const auto& entry : fs::directory_iterator(fs::path(TAUVTA_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".json") continue;
    cases.push_back({entry.path().stem().string(), hw::HwConfig::load(entry.path()), {}});
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  // The implementation choices on the stock design: two ACC read ports, ALU lanes in passes,
  // a fully combinational tree, products forced to LUTs.
  CosimCase alt{"pynq_alt", hw::HwConfig{}, {rtl::ProductBinding::kLut, 0, 2, 0, {}}};
  alt.config.impl.alu_lanes = 4;
  cases.push_back(alt);
  return cases;
}

// Random valid configs: every width, batch and block shape up to a size that keeps the
// Verilated models quick to compile; small buffers (the streams touch a few dozen entries).
std::vector<CosimCase> random_cases(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<CosimCase> cases;
  while (int(cases.size()) < count) {
    hw::HwConfig c;
    c.log_batch = uni(0, 1);
    c.log_block_in = uni(0, 4);
    c.log_block_out = uni(0, 4);
    if (c.log_batch + c.log_block_in + c.log_block_out > 6) continue;  // up to 64 products
    c.log_inp_width = uni(0, 4);
    c.log_wgt_width = uni(0, 4);
    c.log_acc_width = uni(4, 6);
    auto size_for = [&](int log_elem_bits, int log_depth) { return log_elem_bits - 3 + log_depth; };
    c.log_inp_buff_size = size_for(c.log_batch + c.log_block_in + c.log_inp_width, uni(5, 7));
    c.log_wgt_buff_size = size_for(c.log_block_out + c.log_block_in + c.log_wgt_width, uni(4, 6));
    c.log_acc_buff_size = size_for(c.log_batch + c.log_block_out + c.log_acc_width, uni(5, 7));
    c.log_uop_buff_size = 2 + uni(5, 7);
    const int lanes = c.batch() * c.block_out();
    const int lane_choice = uni(0, 3);
    c.impl.alu_lanes = lane_choice == 0 ? 0 : std::max(1, lanes >> lane_choice);
    if (uni(0, 4) == 0) c.impl.alu_lanes = std::max(1, lanes - 1);  // a partial last pass
    c.impl.alu_mul = uni(0, 1) == 1;
    rtl::RtlOptions o;
    o.binding = rtl::ProductBinding(uni(0, 2));
    o.tree_levels_per_stage = uni(0, 3);
    o.acc_read_ports = uni(1, 2);
    try {
      c.validate();
      hw::IsaLayout::check_encodable(c, "random config");
    } catch (const Error&) {
      continue;
    }
    cases.push_back({fmt::format("random{}_{}", cases.size(), c.name()), c, o});
  }
  return cases;
}

class PresetCosim : public ::testing::TestWithParam<CosimCase> {};

TEST_P(PresetCosim, RtlMatchesTheFunctionalCore) { cosimulate(GetParam(), 17, 40); }

INSTANTIATE_TEST_SUITE_P(Rtl, PresetCosim, ::testing::ValuesIn(preset_cases()),
                         [](const auto& p) { return p.param.name; });

// 50 random configs in 8 shards, so ctest runs them on every core.
constexpr int kRandomConfigs = 50, kShards = 8;

class RandomCosim : public ::testing::TestWithParam<int> {};

TEST_P(RandomCosim, RtlMatchesTheFunctionalCore) {
  const std::vector<CosimCase> cases = random_cases(kRandomConfigs, 2026);
  for (size_t i = size_t(GetParam()); i < cases.size(); i += kShards) {
    SCOPED_TRACE(cases[i].name);
    cosimulate(cases[i], 1000 + i, 30);
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Rtl, RandomCosim, ::testing::Range(0, kShards));

}  // namespace
}  // namespace tauvta
