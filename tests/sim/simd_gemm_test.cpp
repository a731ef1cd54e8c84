// Differential test of the SIMD GEMM kernels (AVX-512 VNNI, AVX2) against the portable one:
// random GEMM instructions (micro-ops, shared rows, loop extents and factors, zero dst factors,
// reset) over operands at the extremes of their widths, run on two OnChipMemory copies, one
// keeping a SIMD kernel's layouts and one the portable kernel's; accumulator and output buffers
// must agree bit for bit after every instruction. Half the instructions have the shapes the
// whole-instruction plans regroup (gemm_blocking.h): a convolution's rows along a loop whose
// weight factor is 0 (tens of rows, micro-ops sharing accumulator rows, the other loop moving the
// accumulator or not) and reductions with micro-ops sharing weight elements. Skipped where the
// CPU or the config's shape cannot run the kernel. The vectorized tensor ALU (alu_vector.h) is
// compared with the portable ALU loop the same way, over every opcode and operand kind.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "hw/hw_config.h"
#include "hw/lanes.h"
#include "sim/compute_kernels.h"
#include "sim/onchip_memory.h"

namespace tauvta::sim {
namespace {

hw::HwConfig repo_config(const char* file) {
  return hw::HwConfig::load(std::string(TAUVTA_SOURCE_DIR) + "/configs/" + file);
}

// A config with small buffers (64..128 elements each) so whole buffers are compared cheaply.
hw::HwConfig shape(int log_inp, int log_wgt, int log_acc, int log_batch, int log_bi, int log_bo) {
  hw::HwConfig c;
  c.log_inp_width = log_inp;
  c.log_wgt_width = log_wgt;
  c.log_acc_width = log_acc;
  c.log_batch = log_batch;
  c.log_block_in = log_bi;
  c.log_block_out = log_bo;
  c.log_inp_buff_size = 7 + log_batch + log_bi + log_inp - 3;
  c.log_wgt_buff_size = 6 + log_bo + log_bi + log_wgt - 3;
  c.log_acc_buff_size = 7 + log_batch + log_bo + log_acc - 3;
  c.validate("avx2 test shape");
  return c;
}

struct Case {
  const char* name;
  hw::HwConfig (*make)();
};

const Case kCases[] = {
    {"pynq_i8w8a32", [] { return hw::HwConfig{}; }},
    {"pynq_w4a4", [] { return repo_config("pynq_w4a4.json"); }},
    {"pynq_w2a2", [] { return repo_config("pynq_w2a2.json"); }},
    {"pynq_w1a1", [] { return repo_config("pynq_w1a1.json"); }},
    {"pynq_b4_blk8", [] { return repo_config("pynq_b4_blk8.json"); }},
    {"i16w16a64", [] { return shape(4, 4, 6, 0, 4, 4); }},
    {"i16w16a32", [] { return shape(4, 4, 5, 0, 4, 4); }},
    {"i16w16a16", [] { return shape(4, 4, 4, 0, 4, 4); }},
    {"i8w8a16", [] { return shape(3, 3, 4, 0, 4, 4); }},
    {"i8w8a64", [] { return shape(3, 3, 6, 0, 4, 4); }},
    {"b2_i16w16a64", [] { return shape(4, 4, 6, 1, 4, 4); }},
    {"b4_i16w16a64_8x8", [] { return shape(4, 4, 6, 2, 3, 3); }},
    {"i16w8a32_mixed", [] { return shape(4, 3, 5, 0, 4, 4); }},
    {"i4w16a64_mixed", [] { return shape(2, 4, 6, 0, 4, 4); }},
    {"bi2_bo8", [] { return shape(3, 3, 5, 0, 1, 3); }},
    {"bi2_bo8_i16w16a64", [] { return shape(4, 4, 6, 0, 1, 3); }},  // no groups of 4: no split
    {"bi4_bo32", [] { return shape(3, 3, 5, 1, 2, 5); }},
    {"bi32_bo16_a64", [] { return shape(4, 4, 6, 0, 5, 4); }},
    {"bi8_bo64", [] { return shape(3, 3, 5, 0, 3, 6); }},
};

// Portable, seed-stable random numbers.
struct Rng {
  uint64_t s;
  uint64_t next() {
    s += 0x9e3779b97f4a7c15ull;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return uint32_t(next() % n); }
};

// Lane values of `bits` bits, most of them at the extremes (the products and pair sums that
// overflow narrow arithmetic): min, max, min + 1, -1, 0, or uniform.
std::vector<int64_t> extreme_lanes(Rng& r, int bits, size_t n, int min_percent) {
  const int64_t lo = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (bits - 1));
  const int64_t hi = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (bits - 1)) - 1;
  std::vector<int64_t> v(n);
  for (int64_t& x : v) {
    const uint32_t k = r.below(100);
    if (int(k) < min_percent) {
      x = lo;
    } else if (k < 75) {
      const int64_t pick[] = {hi, lo + 1, -1, 0, hi - 1};
      x = pick[r.below(5)];
    } else {
      x = hw::sign_extend(r.next(), bits);
    }
  }
  return v;
}

// Writes the same random bytes into every buffer of both memories.
void fill(OnChipMemory& a, OnChipMemory& b, Rng& r, int min_percent) {
  const hw::HwConfig& c = a.config();
  auto put = [&](int bits, uint32_t depth, int lanes, auto write) {
    const auto v = extreme_lanes(r, bits, size_t(depth) * lanes, min_percent);
    std::vector<uint8_t> bytes((v.size() * bits + 7) / 8);
    hw::pack_lanes(v.data(), bits, int(v.size()), bytes.data());
    write(a, bytes.data(), depth);
    write(b, bytes.data(), depth);
  };
  put(c.inp_width(), c.inp_depth(), a.inp_lanes(),
      [](OnChipMemory& m, const uint8_t* p, uint32_t n) { m.write_inp(0, p, n); });
  put(c.wgt_width(), c.wgt_depth(), a.wgt_lanes(),
      [](OnChipMemory& m, const uint8_t* p, uint32_t n) { m.write_wgt(0, p, n); });
  put(c.acc_width(), c.acc_depth(), a.acc_lanes(),
      [](OnChipMemory& m, const uint8_t* p, uint32_t n) { m.write_acc(0, p, n); });
}

// A random GEMM whose indices stay in range without wrapping (the fast-path precondition).
struct RandomGemm {
  std::vector<hw::Uop> uops;
  LoopNest loop;
  bool reset = false;
};

RandomGemm small_gemm(const hw::HwConfig& c, Rng& r) {
  RandomGemm g;
  g.loop.iter_out = 1 + r.below(4);
  g.loop.iter_in = 1 + r.below(4);
  g.reset = r.below(4) == 0;
  auto factor = [&](uint32_t* f_out, uint32_t* f_in) {
    *f_out = r.below(4);
    *f_in = r.below(4);
  };
  factor(&g.loop.src_out, &g.loop.src_in);
  factor(&g.loop.wgt_out, &g.loop.wgt_in);
  factor(&g.loop.dst_out, &g.loop.dst_in);
  // Loops that keep the accumulator row (dst factor 0) and micro-ops sharing a row (a
  // convolution's taps) are what the kernels reorder, so make them common.
  if (r.below(3) == 0) g.loop.dst_out = 0;
  if (r.below(3) == 0) g.loop.dst_in = 0;
  const bool shared_rows = r.below(2) == 0;
  auto span = [&](uint32_t f_out, uint32_t f_in) {
    return (g.loop.iter_out - 1) * f_out + (g.loop.iter_in - 1) * f_in;
  };
  const uint32_t dst_room = c.acc_depth() - span(g.loop.dst_out, g.loop.dst_in);
  const uint32_t rows[2] = {r.below(dst_room), r.below(dst_room)};
  const uint32_t n = 1 + r.below(8);
  for (uint32_t u = 0; u < n; ++u) {
    g.uops.push_back({shared_rows ? rows[r.below(3) / 2] : r.below(dst_room),
                      r.below(c.inp_depth() - span(g.loop.src_out, g.loop.src_in)),
                      r.below(c.wgt_depth() - span(g.loop.wgt_out, g.loop.wgt_in))});
  }
  g.loop.uops = g.uops.data();
  g.loop.n_uops = n;
  return g;
}

// The shapes the whole-instruction plans take: rows along one loop (weight factor 0) with
// micro-ops in a few accumulator-row groups, or a reduction (dst factors 0) whose micro-ops share
// weight elements in groups. Extents reach past the kernels' blocks of 8 vector rows.
RandomGemm planned_gemm(const hw::HwConfig& c, Rng& r) {
  RandomGemm g;
  LoopNest& l = g.loop;
  const bool reduction = r.below(3) == 0;
  const bool rows_inner = r.below(2) == 0;
  uint32_t& rows = rows_inner ? l.iter_in : l.iter_out;
  uint32_t& other = rows_inner ? l.iter_out : l.iter_in;
  uint32_t& row_dst = rows_inner ? l.dst_in : l.dst_out;
  uint32_t& row_src = rows_inner ? l.src_in : l.src_out;
  uint32_t& row_wgt = rows_inner ? l.wgt_in : l.wgt_out;
  uint32_t& other_dst = rows_inner ? l.dst_out : l.dst_in;
  uint32_t& other_src = rows_inner ? l.src_out : l.src_in;
  uint32_t& other_wgt = rows_inner ? l.wgt_out : l.wgt_in;
  rows = 1 + r.below(reduction ? 6 : 21);
  other = 1 + r.below(4);
  row_src = r.below(3);
  other_src = r.below(4);
  other_wgt = r.below(3);
  if (reduction) {
    row_wgt = r.below(3);
  } else {
    row_dst = 1 + r.below(2);  // 2: rows interleave with another tile's
    // The other loop moves the accumulator (one tile per iteration) or reduces into it.
    other_dst = r.below(2) == 0 ? 0 : rows * row_dst + r.below(3);
  }
  auto span = [&](uint32_t f_out, uint32_t f_in) { return (l.iter_out - 1) * f_out + (l.iter_in - 1) * f_in; };
  const uint32_t dst_span = span(l.dst_out, l.dst_in), src_span = span(l.src_out, l.src_in),
                 wgt_span = span(l.wgt_out, l.wgt_in);
  if (dst_span >= c.acc_depth() || src_span >= c.inp_depth() || wgt_span >= c.wgt_depth()) {
    return small_gemm(c, r);
  }
  // A few accumulator rows (or weight elements) that micro-ops share.
  const uint32_t shared = 1 + r.below(3);
  std::vector<uint32_t> dsts, wgts;
  for (uint32_t k = 0; k < shared; ++k) {
    dsts.push_back(r.below(c.acc_depth() - dst_span));
    wgts.push_back(r.below(c.wgt_depth() - wgt_span));
  }
  const uint32_t n = 1 + r.below(reduction ? 24 : 10);
  for (uint32_t u = 0; u < n; ++u) {
    const bool share = r.below(4) != 0;
    g.uops.push_back({!reduction && share ? dsts[r.below(shared)] : r.below(c.acc_depth() - dst_span),
                      r.below(c.inp_depth() - src_span),
                      reduction && share ? wgts[r.below(shared)] : r.below(c.wgt_depth() - wgt_span)});
  }
  // Resets: planned when every accumulator row is written once (one micro-op, rows along a loop,
  // the other loop moving the accumulator), micro-op by micro-op otherwise.
  g.reset = r.below(4) == 0;
  if (g.reset && r.below(2) == 0) g.uops.resize(1);
  l.uops = g.uops.data();
  l.n_uops = uint32_t(g.uops.size());
  return g;
}

RandomGemm random_gemm(const hw::HwConfig& c, Rng& r) {
  return r.below(2) == 0 ? small_gemm(c, r) : planned_gemm(c, r);
}

// First lane where two memories' accumulator or output buffers differ, or "".
std::string first_difference(const OnChipMemory& a, const OnChipMemory& b) {
  auto diff = [](const char* what, const auto& x, const auto& y) -> std::string {
    const auto it = std::mismatch(x.begin(), x.end(), y.begin());
    if (it.first == x.end()) return "";
    return fmt::format("{} lane {}: simd {} vs portable {}", what, it.first - x.begin(),
                       int64_t(*it.first), int64_t(*it.second));
  };
  for (const std::string& d : {diff("acc", a.acc32, b.acc32), diff("acc", a.acc64, b.acc64),
                               diff("out", a.out8, b.out8), diff("out", a.out16, b.out16)}) {
    if (!d.empty()) return d;
  }
  return "";
}

class SimdGemmDiff : public ::testing::TestWithParam<std::tuple<SimdGemm, size_t, uint64_t>> {};

TEST_P(SimdGemmDiff, MatchesPortableKernel) {
  const auto [kernel, which, seed] = GetParam();
  const hw::HwConfig c = kCases[which].make();
  if (!simd_gemm_supported(kernel, c)) {
    GTEST_SKIP() << simd_gemm_name(kernel) << " cannot run " << kCases[which].name << " (its shape, or this CPU)";
  }
  OnChipMemory simd(c, kernel), portable(c, SimdGemm::kNone);
  Rng r{seed * 1000003 + which};
  // Seed 0 sets nearly every lane to its minimum: with 16-bit lanes every vpmaddwd pair is
  // (-32768)^2 * 2 = 2^31, the sum vpmaddwd returns as INT32_MIN.
  fill(simd, portable, r, seed == 0 ? 95 : 20);
  for (int n = 0; n < 24; ++n) {
    const RandomGemm g = random_gemm(c, r);
    run_gemm(simd, g.loop, g.reset, true, nullptr);
    run_gemm(portable, g.loop, g.reset, false, nullptr);
    const std::string d = first_difference(simd, portable);
    ASSERT_EQ(d, "") << kCases[which].name << " seed " << seed << " gemm " << n << " (reset "
                     << g.reset << ", " << g.loop.n_uops << " uops, " << g.loop.iter_out << "x"
                     << g.loop.iter_in << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, SimdGemmDiff,
    ::testing::Combine(::testing::Values(SimdGemm::kVnni, SimdGemm::kAvx2),
                       ::testing::Range<size_t>(0, std::size(kCases)),
                       ::testing::Range<uint64_t>(0, 4)),
    [](const ::testing::TestParamInfo<SimdGemmDiff::ParamType>& p) {
      return fmt::format("{}_{}_seed{}", std::get<0>(p.param) == SimdGemm::kVnni ? "vnni" : "avx2",
                         kCases[std::get<1>(p.param)].name, std::get<2>(p.param));
    });

// Hears nothing; its presence makes run_alu take the portable per-element loop.
class SilentObserver : public AccessObserver {
 public:
  void on_access(hw::MemId, uint32_t, uint32_t, bool) override {}
};

class AluVectorDiff : public ::testing::TestWithParam<std::tuple<size_t, uint64_t>> {};

TEST_P(AluVectorDiff, MatchesPortableLoop) {
  const auto [which, seed] = GetParam();
  const hw::HwConfig c = kCases[which].make();
  if (c.acc_width() > 32) GTEST_SKIP() << "64-bit accumulators run the portable loop";
  OnChipMemory vec(c, SimdGemm::kNone), portable(c, SimdGemm::kNone);
  Rng r{seed * 7919 + which};
  fill(vec, portable, r, seed == 0 ? 60 : 15);
  SilentObserver silent;
  for (int n = 0; n < 64; ++n) {
    LoopNest l;
    l.iter_out = 1 + r.below(4);
    l.iter_in = 1 + r.below(6);
    l.dst_out = r.below(4), l.dst_in = r.below(3), l.src_out = r.below(4), l.src_in = r.below(3);
    const uint32_t dst_span = (l.iter_out - 1) * l.dst_out + (l.iter_in - 1) * l.dst_in;
    const uint32_t src_span = (l.iter_out - 1) * l.src_out + (l.iter_in - 1) * l.src_in;
    std::vector<hw::Uop> uops;
    // Rows from which both loops stay in the buffer, so a row can be its own operand.
    const uint32_t room = c.acc_depth() - std::max(dst_span, src_span);
    const uint32_t row = r.below(room);
    for (uint32_t u = 0, k = 1 + r.below(4); u < k; ++u) {
      // Often a row that is its own operand (the requantization's in-place sequence).
      const uint32_t d = r.below(2) == 0 ? row : r.below(room);
      uops.push_back({d, r.below(3) == 0 ? d : r.below(room), 0});
    }
    l.uops = uops.data();
    l.n_uops = uint32_t(uops.size());
    const auto op = hw::AluOp(r.below(hw::kNumAluOps));
    const bool use_imm = r.below(2) == 0;
    // Immediates at both ends of the 16-bit field and small shift amounts of either sign.
    const int32_t picks[] = {-32768, 32767, -1, 0, 1, -17, 16, -16, 15, int32_t(r.below(64)) - 32};
    const int32_t imm = picks[r.below(std::size(picks))];
    run_alu(vec, l, op, use_imm, imm, nullptr);
    run_alu(portable, l, op, use_imm, imm, &silent);
    const std::string d = first_difference(vec, portable);
    ASSERT_EQ(d, "") << kCases[which].name << " seed " << seed << " alu " << n << " (op "
                     << int(op) << (use_imm ? " imm " + std::to_string(imm) : " src") << ", "
                     << l.n_uops << " uops, " << l.iter_out << "x" << l.iter_in << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, AluVectorDiff,
    ::testing::Combine(::testing::Range<size_t>(0, std::size(kCases)), ::testing::Range<uint64_t>(0, 3)),
    [](const ::testing::TestParamInfo<AluVectorDiff::ParamType>& p) {
      return fmt::format("{}_seed{}", kCases[std::get<0>(p.param)].name, std::get<1>(p.param));
    });

// Plans are cached by the instruction's loop nest and micro-op contents: the same micro-op array
// rewritten in place (as a program reloads its micro-op buffer) must be planned again.
TEST(SimdGemm, PlansFollowTheMicroOpsNotWhereTheyAre) {
  const hw::HwConfig c;
  if (!simd_gemm_supported(SimdGemm::kVnni, c)) GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
  OnChipMemory simd(c, SimdGemm::kVnni), portable(c, SimdGemm::kNone);
  Rng r{11};
  fill(simd, portable, r, 20);
  std::vector<hw::Uop> uops = {{0, 0, 0}, {0, 1, 1}};
  LoopNest l;
  l.uops = uops.data();
  l.n_uops = 2;
  l.iter_out = 2;
  l.iter_in = 12;
  l.dst_in = 1, l.src_in = 1, l.src_out = 16, l.wgt_out = 2;  // rows along the inner loop
  for (int round = 0; round < 3; ++round) {
    run_gemm(simd, l, false, true, nullptr);
    run_gemm(portable, l, false, false, nullptr);
    ASSERT_EQ(first_difference(simd, portable), "") << "round " << round;
    uops[1].dst = 40 + uint32_t(round);  // same loop nest and address, other rows
    uops[0].wgt = 5 + uint32_t(round);
  }
}

// A reduction-shaped GEMM long enough that the 64-bit kernel widens its int32 halves more than
// once (over 2^15 pair sums per accumulator), every pair at 2^31: the sums reach 2^31 * 2^16.
TEST(Avx2Gemm, LongReductionOf64BitAccumulators) {
  if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
  const hw::HwConfig c = shape(4, 4, 6, 0, 4, 4);
  OnChipMemory simd(c, SimdGemm::kAvx2), portable(c, SimdGemm::kNone);
  Rng r{7};
  fill(simd, portable, r, 100);
  const std::vector<hw::Uop> uops = {{0, 0, 0}, {1, 1, 1}, {0, 2, 3}};
  LoopNest l;
  l.uops = uops.data();
  l.n_uops = uint32_t(uops.size());
  l.iter_out = 100;
  l.iter_in = 90;  // 9000 steps x 8 pairs per micro-op
  l.src_in = 1;
  run_gemm(simd, l, false, true, nullptr);
  run_gemm(portable, l, false, false, nullptr);
  EXPECT_EQ(first_difference(simd, portable), "");
  // The exact value: 3 x 9000 steps x 16 lanes of 32768^2 (plus the initial -2^63 lane value).
  EXPECT_EQ(uint64_t(portable.acc64[0]),
            uint64_t(std::numeric_limits<int64_t>::min()) + 2 * 9000 * 16 * (uint64_t(1) << 30));
}

// The 16 x 16-bit split's high-byte estimate at its worst: every lane -32513 (high byte -128, low
// byte 255) or 32767 (127, 255), so each product is off its estimate 65536 * hi * hi by about
// 2^24, and a chunk of 128 products by almost 2^31 (wide_gemm.h). BLOCK_IN 4, 16 and 32 take 32,
// 8 and 4 steps per chunk; 900 steps run through many chunks and a partial last one.
TEST(Avx2Gemm, SplitEstimateAtItsWorstStaysExact) {
  if (!cpu_has_vnni()) GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
  for (int log_bi : {2, 4, 5}) {
    const hw::HwConfig c = shape(4, 4, 6, 0, log_bi, 4);
    for (int64_t value : {int64_t(-32513), int64_t(32767)}) {
      OnChipMemory simd(c, SimdGemm::kAvx2), portable(c, SimdGemm::kNone);
      ASSERT_TRUE(simd.has_high_byte_vnni());
      ASSERT_FALSE(portable.has_high_byte_vnni());
      auto put = [&](int lanes, uint32_t depth, auto write) {
        const std::vector<int64_t> v(size_t(lanes) * depth, value);
        std::vector<uint8_t> bytes(v.size() * 2);
        hw::pack_lanes(v.data(), 16, int(v.size()), bytes.data());
        write(simd, bytes.data(), depth);
        write(portable, bytes.data(), depth);
      };
      put(simd.inp_lanes(), c.inp_depth(), [](OnChipMemory& m, const uint8_t* p, uint32_t n) { m.write_inp(0, p, n); });
      put(simd.wgt_lanes(), c.wgt_depth(), [](OnChipMemory& m, const uint8_t* p, uint32_t n) { m.write_wgt(0, p, n); });
      const std::vector<hw::Uop> uops = {{0, 0, 0}};
      LoopNest l;
      l.uops = uops.data();
      l.n_uops = 1;
      l.iter_out = 100;
      l.iter_in = 9;
      l.src_in = 1, l.wgt_in = 1;
      run_gemm(simd, l, false, true, nullptr);
      run_gemm(portable, l, false, false, nullptr);
      EXPECT_EQ(first_difference(simd, portable), "") << c.name() << " lanes " << value;
      EXPECT_EQ(portable.acc64[0], 900 * int64_t(c.block_in()) * value * value) << c.name();
    }
  }
}

TEST(Avx2Gemm, KernelChoiceAndForcedLayouts) {
  const hw::HwConfig w16 = shape(4, 4, 6, 0, 4, 4);
  // 16-bit lanes and 64-bit accumulators are beyond VNNI; AVX2 takes them when the CPU has it.
  EXPECT_EQ(best_simd_gemm(w16), cpu_has_avx2() ? SimdGemm::kAvx2 : SimdGemm::kNone);
  EXPECT_EQ(OnChipMemory(w16).simd_gemm(), best_simd_gemm(w16));
  EXPECT_FALSE(simd_gemm_supported(SimdGemm::kVnni, w16));
  EXPECT_THROW(OnChipMemory(w16, SimdGemm::kVnni), Error);
  if (cpu_has_avx2()) {
    // The three-instruction split's forms: 16 x 16 bits into 64, on VNNI, groups of 4 inputs.
    EXPECT_EQ(OnChipMemory(w16, SimdGemm::kAvx2).has_high_byte_vnni(), cpu_has_vnni());
    EXPECT_FALSE(OnChipMemory(shape(4, 4, 6, 0, 1, 3), SimdGemm::kAvx2).has_high_byte_vnni());  // BLOCK_IN 2
    EXPECT_FALSE(OnChipMemory(shape(4, 4, 5, 0, 4, 4), SimdGemm::kAvx2).has_high_byte_vnni());  // 32-bit sums
    EXPECT_FALSE(OnChipMemory(shape(4, 4, 6, 0, 4, 4), SimdGemm::kAvx2).inp_split16.empty() && cpu_has_vnni());
  }
  // BLOCK_OUT 4 fits no ymm of 8 output channels: portable.
  EXPECT_FALSE(simd_gemm_supported(SimdGemm::kAvx2, shape(3, 3, 5, 0, 4, 2)));
  const hw::HwConfig pynq;
  const SimdGemm want = cpu_has_vnni()   ? SimdGemm::kVnni
                        : cpu_has_avx2() ? SimdGemm::kAvx2
                                         : SimdGemm::kNone;
  EXPECT_EQ(best_simd_gemm(pynq), want);
  // A memory builds only its own kernel's layouts.
  const OnChipMemory portable(pynq, SimdGemm::kNone);
  EXPECT_TRUE(portable.wgt_pairs.empty());
  EXPECT_TRUE(portable.wgt_vnni.empty());
}

}  // namespace
}  // namespace tauvta::sim
