// Packing and the tiled GEMM program: bit-exact against the CPU reference on several configs
// and ragged shapes, both virtual-thread variants, automatic flushes, hazard-free token use, and
// double buffering actually overlapping work.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "runtime/device.h"
#include "runtime/packing.h"
#include "runtime/tiled_gemm.h"

namespace tauvta::runtime {
namespace {

hw::HwConfig w4a4_config() {
  hw::HwConfig c;
  c.log_inp_width = 2;
  c.log_wgt_width = 2;
  c.log_inp_buff_size = 14;
  c.log_wgt_buff_size = 17;
  c.validate();
  return c;
}

hw::HwConfig b4_blk8_config() {
  hw::HwConfig c;
  c.log_batch = 2;
  c.log_block_in = 3;
  c.log_block_out = 3;
  c.validate();
  return c;
}

TEST(Packing, LanesRoundTripAtEveryWidth) {
  for (int width : {1, 2, 4, 8, 16, 32}) {
    std::vector<uint8_t> bytes(64, 0xa5);
    const size_t lanes = bytes.size() * 8 / size_t(width);
    std::mt19937_64 rng(width);
    std::vector<int64_t> values(lanes);
    for (auto& v : values) v = sign_extend(rng(), width);
    for (size_t i = 0; i < lanes; ++i) pack_lane(bytes, width, i, values[i]);
    for (size_t i = 0; i < lanes; ++i) {
      ASSERT_EQ(unpack_lane(bytes, width, i), values[i]) << "width " << width << " lane " << i;
    }
  }
  // docs/vta_isa.md: with 4-bit data lane 2k is the low nibble of byte k.
  std::vector<uint8_t> b(2, 0);
  pack_lane(b, 4, 0, 3);
  pack_lane(b, 4, 1, -2);
  pack_lane(b, 4, 2, -8);
  EXPECT_EQ(b[0], 0xe3);
  EXPECT_EQ(b[1], 0x08);
  EXPECT_EQ(sign_extend(0xff, 8), -1);
  EXPECT_EQ(sign_extend(0x7f, 8), 127);
}

TEST(Packing, MatrixLayouts) {
  const hw::HwConfig c = b4_blk8_config();  // BATCH 4, BLOCK 8, int8
  // A is 5 x 9: blocks [2][2] of 4x8 lanes; element (1, 1) holds A[4][8] at lane 0.
  std::vector<int32_t> a(5 * 9);
  for (size_t i = 0; i < a.size(); ++i) a[i] = int32_t(i % 100) - 50;
  const std::vector<uint8_t> pa = pack_input_matrix(c, a, 5, 9);
  ASSERT_EQ(pa.size(), 4u * 32);
  EXPECT_EQ(int8_t(pa[3 * 32 + 0]), a[4 * 9 + 8]);
  EXPECT_EQ(int8_t(pa[0 * 32 + 1 * 8 + 2]), a[1 * 9 + 2]);  // row 1 of the batch, column 2
  EXPECT_EQ(pa[3 * 32 + 1], 0);                              // K padding
  // B is 9 x 3 (K x N): weight element (0, 1) holds B[8 + ic][oc] at lane oc*8 + ic.
  std::vector<int32_t> b(9 * 3);
  for (size_t i = 0; i < b.size(); ++i) b[i] = int32_t(i) - 13;
  const std::vector<uint8_t> pb = pack_weight_matrix(c, b, 9, 3);
  ASSERT_EQ(pb.size(), 2u * 64);
  EXPECT_EQ(int8_t(pb[64 + 2 * 8 + 0]), b[8 * 3 + 2]);
  EXPECT_EQ(int8_t(pb[1 * 8 + 5]), b[5 * 3 + 1]);
  EXPECT_THROW(pack_input_matrix(c, std::vector<int32_t>(45, 128), 5, 9), Error);
  EXPECT_THROW(pack_input_matrix(c, a, 5, 8), Error);
}

TEST(ReferenceGemm, TruncatesToOutputBits) {
  const hw::HwConfig c;
  // 200 * 1 + 100 * 1 = 300 -> low 8 bits 44.
  const std::vector<int32_t> a{100, 100, 100}, b{2, 1, 0};
  EXPECT_EQ(reference_gemm(c, a, b, GemmShape{1, 3, 1}), std::vector<int32_t>{44});
  const std::vector<int32_t> neg{-128, -128}, bb{-128, -128};  // 32768 -> low 8 bits 0
  EXPECT_EQ(reference_gemm(c, neg, bb, GemmShape{1, 2, 1}), std::vector<int32_t>{0});
}

struct GemmCase {
  std::string name;
  hw::HwConfig config;
  GemmShape shape;
};

void expect_gemm_verifies(const hw::HwConfig& c, GemmShape s, const GemmRunOptions& o,
                          uint64_t seed = 7, GemmRun* out = nullptr) {
  std::mt19937_64 rng(seed);
  const auto a = random_operand(c.inp_width(), size_t(s.m) * s.k, rng);
  const auto b = random_operand(c.wgt_width(), size_t(s.k) * s.n, rng);
  Device dev(c, 256 << 20);
  GemmRun run = run_tiled_gemm(dev, a, b, s, o);
  const auto bad = first_mismatch(reference_gemm(c, a, b, s), run.c, s);
  EXPECT_FALSE(bad) << c.name() << " " << s.m << "x" << s.k << "x" << s.n << " "
                    << run.tiling.to_string() << ": " << (bad ? bad->message() : "");
  EXPECT_TRUE(run.report.hazards.empty());
  if (out != nullptr) *out = std::move(run);
}

class TiledGemmVerifies : public ::testing::TestWithParam<GemmCase> {};

TEST_P(TiledGemmVerifies, BothVirtualThreadCounts) {
  const GemmCase& g = GetParam();
  for (int vt : {1, 2}) {
    GemmRunOptions o;
    o.virtual_threads = vt;
    o.check_hazards = true;
    expect_gemm_verifies(g.config, g.shape, o);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, TiledGemmVerifies,
    ::testing::Values(GemmCase{"default_odd", hw::HwConfig{}, {37, 83, 51}},
                      GemmCase{"default_square", hw::HwConfig{}, {128, 128, 128}},
                      GemmCase{"default_tiny", hw::HwConfig{}, {1, 1, 1}},
                      GemmCase{"w4a4_odd", w4a4_config(), {29, 101, 45}},
                      GemmCase{"b4_blk8_odd", b4_blk8_config(), {35, 61, 27}},
                      GemmCase{"b4_blk8_tall", b4_blk8_config(), {150, 17, 9}}),
    [](const ::testing::TestParamInfo<GemmCase>& i) { return i.param.name; });

TEST(TiledGemm, SmallForcedTilesWithManyKSteps) {
  // Ragged edges in every dimension, several k-steps, pairs plus a lone last tile.
  for (int vt : {1, 2}) {
    GemmRunOptions o;
    o.virtual_threads = vt;
    o.tiling = GemmTiling{3, 2, 4, vt};
    o.check_hazards = true;
    expect_gemm_verifies(hw::HwConfig{}, GemmShape{70, 150, 75}, o);
    expect_gemm_verifies(b4_blk8_config(), GemmShape{30, 50, 35}, o);
  }
}

TEST(TiledGemm, AutomaticFlushKeepsResultsExact) {
  GemmRunOptions o;
  o.tiling = GemmTiling{2, 2, 2, 2};
  o.max_insns = 64;
  GemmRun run;
  expect_gemm_verifies(hw::HwConfig{}, GemmShape{60, 70, 90}, o, 11, &run);
  EXPECT_GT(run.runs, 3u);
  EXPECT_EQ(run.report.insns, run.insns);
}

TEST(TiledGemm, KernelsAreCachedAcrossTiles) {
  GemmRunOptions o;
  o.tiling = GemmTiling{4, 4, 4, 2};  // 256 output tiles of 4 k-steps
  GemmRun run;
  expect_gemm_verifies(hw::HwConfig{}, GemmShape{256, 256, 256}, o, 3, &run);
  // Each distinct kernel is loaded once; every other use is a hit.
  EXPECT_EQ(run.uop_stats.misses, run.uop_stats.kernels);
  EXPECT_EQ(run.uop_stats.evictions, 0u);
  EXPECT_EQ(run.uop_stats.splits, 0u);
  EXPECT_GE(run.uop_stats.hits, 256u * 5 - run.uop_stats.misses);
}

TEST(TiledGemm, TwoVirtualThreadsOverlapLoadAndCompute) {
  // The heuristic's tiles: with a port fast enough that loads can hide behind compute (on the
  // calibrated Pynq port, 4 bytes per cycle, 100x300x200 is load-bound and half-size tiles for
  // two threads cost as much as the overlap saves).
  hw::HwConfig fast;
  fast.timing.log_bus_width = 7;
  fast.timing.dram_bandwidth_gbps = 100;
  for (const GemmShape s : {GemmShape{256, 256, 256}, GemmShape{100, 300, 200}}) {
    uint64_t cycles[3] = {};
    for (int vt : {1, 2}) {
      Device dev(fast, 256 << 20);
      GemmRunOptions o;
      o.virtual_threads = vt;
      o.timing_only = true;
      cycles[vt] = run_tiled_gemm(dev, {}, {}, s, o).report.cycles;
    }
    EXPECT_LT(cycles[2], cycles[1]) << s.m << "x" << s.k << "x" << s.n;
    // Same tiles, only the token schedule differs: double buffering must still win.
    uint64_t same[3] = {};
    for (int vt : {1, 2}) {
      Device dev(hw::HwConfig{}, 256 << 20);
      GemmRunOptions o;
      o.tiling = GemmTiling{8, 8, 8, vt};
      o.timing_only = true;
      same[vt] = run_tiled_gemm(dev, {}, {}, s, o).report.cycles;
    }
    EXPECT_LT(same[2], same[1]) << s.m << "x" << s.k << "x" << s.n;
  }
}

TEST(TiledGemm, TimingOnlyMatchesFullRunCycles) {
  const hw::HwConfig c;
  const GemmShape s{64, 96, 80};
  std::mt19937_64 rng(5);
  const auto a = random_operand(8, size_t(s.m) * s.k, rng);
  const auto b = random_operand(8, size_t(s.k) * s.n, rng);
  Device d1(c, 64 << 20), d2(c, 64 << 20);
  const GemmRun full = run_tiled_gemm(d1, a, b, s);
  GemmRunOptions o;
  o.timing_only = true;
  const GemmRun timing = run_tiled_gemm(d2, {}, {}, s, o);
  EXPECT_EQ(full.report.cycles, timing.report.cycles);
  EXPECT_TRUE(timing.c.empty());
}

TEST(TiledGemm, TilingChoiceFitsAndErrorsAreClear) {
  for (const hw::HwConfig& c : {hw::HwConfig{}, w4a4_config(), b4_blk8_config()}) {
    for (int vt : {1, 2}) {
      const GemmShape s{512, 512, 512};
      const GemmTiling t = choose_gemm_tiling(c, s, vt);
      EXPECT_NO_THROW(check_gemm_tiling(c, s, t)) << t.to_string();
      EXPECT_EQ(t.virtual_threads, vt);
    }
  }
  const hw::HwConfig c;
  EXPECT_THROW(choose_gemm_tiling(c, GemmShape{8, 8, 8}, 3), Error);
  EXPECT_THROW(choose_gemm_tiling(c, GemmShape{0, 8, 8}, 2), Error);
  try {
    check_gemm_tiling(c, GemmShape{4096, 4096, 16}, GemmTiling{2048, 1, 1, 2});
    FAIL() << "expected a tiling error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("INP"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tauvta::runtime
