// LayerInstruments driven directly through its hooks, on hand-filled on-chip memory, against
// counts made here element by element: casts clamped by MIN then MAX (whose outputs the
// instruments derive from the values before the cast), a narrowing STORE with no clip (counted
// both ways), and clip bounds that change between STOREs; at W8 (exact per-value counts) and
// W16 (binned; 64-bit accumulators with values past 32 bits in some STOREs), with bins that nest
// and bins that do not; and the stats and the sparsity without the histogram (counted by a
// vectorized pass, not per value) against the same counts and all four's zero map, in STOREs
// that overflow and STOREs that do not.
#include "sim/instruments.h"

#include <gtest/gtest.h>

#include <random>

#include "hw/hw_config.h"
#include "sim/onchip_memory.h"

namespace {

using namespace tauvta;

struct Expected {
  sim::IntHistogram pre, out;
  uint64_t elements = 0, overflows = 0, zeros = 0;
  int64_t out_min = INT64_MAX, out_max = INT64_MIN, pre_min = INT64_MAX, pre_max = INT64_MIN,
          sum = 0, sumsq = 0;
  void add(int64_t p, int64_t o, bool overflow, int64_t zero_threshold) {
    pre.add(p);
    out.add(o);
    ++elements;
    overflows += overflow;
    zeros += (o < 0 ? -o : o) <= zero_threshold;
    out_min = std::min(out_min, o);
    out_max = std::max(out_max, o);
    pre_min = std::min(pre_min, p);
    pre_max = std::max(pre_max, p);
    sum += o;
    sumsq += o * o;
  }
};

class InstrumentsTest : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(InstrumentsTest, DerivedAndDirectCountsAgreeWithAnElementByElementCount) {
  const auto& [preset, bins] = GetParam();
  const hw::HwConfig config =
      hw::HwConfig::load(std::string(TAUVTA_SOURCE_DIR) + "/configs/" + preset + ".json");
  sim::OnChipMemory mem(config);
  const int lanes = config.batch() * config.block_out();
  const int bits = config.out_width();
  const int64_t qmin = -(int64_t(1) << (bits - 1)), qmax = (int64_t(1) << (bits - 1)) - 1;
  const uint32_t elems = 40;
  sim::OutputMap map;
  map.elems = 2 * elems;
  map.batch = config.batch();
  map.block = config.block_out();
  map.c = map.block;
  map.w = 2 * elems;
  sim::InstrumentSettings settings;
  settings.histogram_bins = bins;
  settings.zero_threshold = 1;
  // All four, and the stats and the sparsity without the histogram (their counts then come
  // from a vectorized pass, not per value): each must see the same values.
  std::vector<sim::InstrumentSelection> selections(4);
  selections[0].overflow = selections[0].histogram = selections[0].sparsity = selections[0].stats = true;
  selections[1].stats = true;
  selections[2].sparsity = true;
  selections[3].overflow = selections[3].stats = selections[3].sparsity = true;
  std::vector<sim::LayerInstruments> insts;
  for (const sim::InstrumentSelection& what : selections) insts.emplace_back(config, 0, map, what, settings, nullptr);
  auto on_store = [&](const hw::Insn& insn) {
    for (sim::LayerInstruments& i : insts) i.on_store(mem, insn);
  };

  Expected want;
  const int g = settings.histogram_guard_bits;
  want.pre = sim::IntHistogram(qmin * (int64_t(1) << g), (qmax + 1) * (int64_t(1) << g), bins);
  want.out = sim::IntHistogram(qmin, qmax + 1, int(std::min<int64_t>(bins, qmax - qmin + 1)));

  auto acc = [&](size_t i) -> int64_t { return mem.acc_is_int32() ? mem.acc32[i] : mem.acc64[i]; };
  auto set_acc = [&](size_t i, int64_t v) {
    mem.acc_is_int32() ? void(mem.acc32[i] = int32_t(v)) : void(mem.acc64[i] = v);
  };
  auto set_out = [&](size_t i, int64_t v) {  // the low OUT bits, as every GEMM and ALU op writes
    const int64_t narrow = int64_t(uint64_t(v) << (64 - bits)) >> (64 - bits);
    mem.out_is_int8() ? void(mem.out8[i] = int8_t(narrow)) : void(mem.out16[i] = int16_t(narrow));
  };
  std::vector<hw::Uop> uops(elems);
  for (uint32_t e = 0; e < elems; ++e) uops[e].dst = e;
  sim::LoopNest loop;
  loop.uops = uops.data();
  loop.n_uops = elems;
  loop.iter_out = loop.iter_in = 1;
  auto clip = [&](hw::AluOp op, int64_t bound) {  // the hook, then the ALU op itself
    for (sim::LayerInstruments& i : insts) i.on_clip(mem, loop, op, bound);
    for (size_t i = 0; i < size_t(elems) * lanes; ++i) {
      const int64_t v = op == hw::AluOp::kMin ? std::min(acc(i), bound) : std::max(acc(i), bound);
      set_acc(i, v);
      set_out(i, v);
    }
  };
  hw::Insn store;
  store.opcode = hw::Opcode::kStore;
  store.y_size = 1;
  store.x_size = elems;
  store.x_stride = elems;

  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> wide(-6 * qmax, 6 * qmax), near(2 * qmin, 2 * qmax);
  std::vector<int64_t> pre(size_t(elems) * lanes);
  auto fill = [&](std::uniform_int_distribution<int64_t>& d, bool past_32_bits) {
    for (size_t i = 0; i < pre.size(); ++i) {
      pre[i] = d(rng);
      // 64-bit accumulators: a few values past 32 bits, which the counts must keep exactly.
      if (past_32_bits && !mem.acc_is_int32() && i % 97 == 5)
        pre[i] = (i % 2 ? 1 : -1) * ((int64_t(1) << 40) + int64_t(i));
      set_acc(i, pre[i]);
      set_out(i, pre[i]);
    }
  };
  // 1. A ReLU cast: MIN at the type's limit (an overflow when it bites), MAX 0 (not one).
  fill(wide, false);
  clip(hw::AluOp::kMin, qmax);
  clip(hw::AluOp::kMax, 0);
  on_store(store);
  for (int64_t p : pre)
    want.add(p, std::clamp<int64_t>(p, 0, qmax), p > qmax, settings.zero_threshold);
  // 2. No clip at all: the STORE narrows, so the output is not a clamp of the value.
  fill(near, true);
  store.dram_base = elems;
  on_store(store);
  for (int64_t p : pre) {
    const int64_t o = int64_t(uint64_t(p) << (64 - bits)) >> (64 - bits);
    want.add(p, o, o != p, settings.zero_threshold);
  }
  // 3. Other bounds: the type's own on both sides.
  fill(wide, true);
  clip(hw::AluOp::kMin, qmax);
  clip(hw::AluOp::kMax, qmin);
  store.dram_base = 0;
  on_store(store);
  for (int64_t p : pre)
    want.add(p, std::clamp(p, qmin, qmax), p > qmax || p < qmin, settings.zero_threshold);

  // 4. Nothing overflows: the selections without the histogram add only the pass's sums and the
  // zero map.
  std::uniform_int_distribution<int64_t> inside(qmin, qmax);
  for (uint32_t dram : {0u, elems}) {
    fill(inside, false);
    clip(hw::AluOp::kMin, qmax);
    clip(hw::AluOp::kMax, qmin);
    store.dram_base = dram;
    on_store(store);
    for (int64_t p : pre) want.add(p, p, false, settings.zero_threshold);
  }

  auto expect_stats = [&](const sim::LayerObservation& v) {
    EXPECT_EQ(v.out_min, want.out_min);
    EXPECT_EQ(v.out_max, want.out_max);
    EXPECT_EQ(v.out_sum, want.sum);
    EXPECT_EQ(v.out_sumsq, want.sumsq);
    EXPECT_EQ(v.pre_min, want.pre_min);
    EXPECT_EQ(v.pre_max, want.pre_max);
  };
  for (size_t k = 1; k < insts.size(); ++k) {
    SCOPED_TRACE(k);
    const sim::LayerObservation& v = insts[k].observation();
    EXPECT_EQ(v.elements, want.elements);
    EXPECT_EQ(v.zeros, want.zeros);
    if (selections[k].sparsity) {
      EXPECT_EQ(v.zero_map, insts[0].observation().zero_map);
    }
    if (selections[k].stats) expect_stats(v);
  }
  const sim::LayerObservation& o = insts[0].observation();
  EXPECT_EQ(o.elements, want.elements);
  EXPECT_EQ(o.overflows, want.overflows);
  EXPECT_EQ(o.zeros, want.zeros);
  EXPECT_EQ(o.pre_cast.counts, want.pre.counts);
  EXPECT_EQ(o.pre_cast.below, want.pre.below);
  EXPECT_EQ(o.pre_cast.above, want.pre.above);
  EXPECT_GT(want.pre.below + want.pre.above, 0u)
      << "some values should lie past the pre-cast range";
  EXPECT_EQ(o.output.counts, want.out.counts);
  expect_stats(o);
}

INSTANTIATE_TEST_SUITE_P(Instruments, InstrumentsTest,
                         ::testing::Combine(::testing::Values("pynq", "pynq_w16"),
                                            ::testing::Values(64, 100)),
                         [](const auto& p) {
                           return std::get<0>(p.param) + "_bins" +
                                  std::to_string(std::get<1>(p.param));
                         });

}  // namespace
