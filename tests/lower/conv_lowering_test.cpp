// lower_conv against the integer reference: random convolutions (strides, paddings, dilation,
// groups, depthwise, batch, odd channel counts, per-channel shifts) on several presets, each
// run on the simulator with the hazard checker and compared bit for bit with cpu::run_int.
#include <random>

#include <gtest/gtest.h>

#include "backend/op_runner.h"
#include "cpu/int_executor.h"
#include "hw/hw_config.h"
#include "lower/conv_lowering.h"
#include "lower/conv_plan.h"
#include "lower/loaded_program.h"
#include "lower/tensor_layout.h"
#include "runtime/device.h"

namespace {

using namespace tauvta;
using graph::DType;
using graph::Shape;
using graph::Tensor;

hw::HwConfig preset(const std::string& name) {
  return hw::HwConfig::load(std::string(TAUVTA_SOURCE_DIR) + "/configs/" + name + ".json");
}

std::vector<int64_t> random_values(std::mt19937& rng, size_t n, int bits) {
  const int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << (bits - 1)) - 1;
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<int64_t> v(n);
  for (int64_t& x : v) x = d(rng);
  return v;
}

struct Case {
  lower::ConvWorkload w;
  lower::ConvLayerSpec spec;
  std::vector<int64_t> x;
};

// Runs the spec on the simulator with schedule `s`; returns the NCHW outputs.
std::vector<int32_t> run_on_accelerator(const hw::HwConfig& c, const Case& k, const lower::Schedule& s) {
  const lower::ActShape in{k.w.batch, k.w.in_channels, k.w.height, k.w.width};
  const lower::ActShape out{k.w.batch, k.w.out_channels, k.w.out_height(), k.w.out_width()};
  lower::ProgramBuilder pb(c);
  const runtime::DramBuffer ib = pb.alloc(lower::act_bytes(c, in, c.block_in()), "x");
  const runtime::DramBuffer ob = pb.alloc(lower::act_bytes(c, out, c.block_out()), "y");
  pb.begin_layer("conv");
  lower::lower_conv(pb, k.spec, s, ib, ob);
  const lower::Program p = pb.finish();
  runtime::Device dev(c, uint64_t(1) << 28);
  lower::LoadedProgram lp(dev, p);
  std::vector<int32_t> x32(k.x.begin(), k.x.end());
  lp.write_region("x", lower::pack_activation(c, in, c.block_in(), x32));
  sim::RunOptions o;
  o.check_hazards = true;
  const sim::RunReport r = lp.run_layer(0, o);
  EXPECT_TRUE(r.hazards.empty()) << (r.hazards.empty() ? "" : r.hazards[0].message());
  lower::ProgramTimer timer(c);
  EXPECT_EQ(timer.time(p).cycles, r.cycles) << "timing-only cycles differ from the full run";
  return lower::unpack_activation(c, out, c.block_out(), lp.read_region("y"));
}

std::vector<int64_t> run_reference(const hw::HwConfig& c, const Case& k) {
  return backend::reference_output(c, k.spec, k.x);
}

Case random_case(std::mt19937& rng, const hw::HwConfig& c) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Case k;
  lower::ConvWorkload& w = k.w;
  const int kind = int(pick(0, 6));
  w.batch = pick(1, 3) == 1 ? pick(1, 5) : 1;
  if (kind == 0) {  // depthwise
    w.groups = pick(1, 3) * 8;
    w.in_channels = w.out_channels = w.groups;
  } else if (kind == 1) {  // grouped
    w.groups = pick(2, 4);
    w.in_channels = w.groups * pick(1, 20);
    w.out_channels = w.groups * pick(1, 20);
  } else if (kind == 6) {  // transposed
    w.kind = lower::OpKind::kConv2dTranspose;
    w.in_channels = pick(1, 40);
    w.out_channels = pick(1, 40);
  } else if (kind == 2) {  // dense as a 1x1 on 1x1
    w.in_channels = pick(1, 70);
    w.out_channels = pick(1, 70);
  } else {
    w.in_channels = pick(1, 40);
    w.out_channels = pick(1, 40);
  }
  if (kind == 6) {
    w.kernel_h = pick(1, 5);
    w.kernel_w = pick(1, 5);
    w.stride_h = pick(1, 3);
    w.stride_w = pick(1, 3);
    w.pad_top = pick(0, w.kernel_h - 1);
    w.pad_left = pick(0, w.kernel_w - 1);
    w.pad_bottom = pick(0, w.kernel_h - 1);
    w.pad_right = pick(0, w.kernel_w - 1);
    w.output_pad_h = pick(0, w.stride_h - 1);
    w.output_pad_w = pick(0, w.stride_w - 1);
    w.height = pick(1, 8);
    w.width = pick(1, 9);
    if (w.out_height() < 1 || w.out_width() < 1) w.pad_top = w.pad_bottom = w.pad_left = w.pad_right = 0;
  } else if (kind != 2) {
    w.kernel_h = pick(1, 3);
    w.kernel_w = pick(1, 3);
    w.stride_h = pick(1, 2);
    w.stride_w = pick(1, 3);
    w.dilation_h = pick(1, 2);
    w.dilation_w = pick(1, 2);
    w.pad_top = pick(0, 2);
    w.pad_left = pick(0, 2);
    w.pad_bottom = pick(0, 2);
    w.pad_right = pick(0, 2);
    w.height = pick((w.kernel_h - 1) * w.dilation_h + 1, 12);
    w.width = pick((w.kernel_w - 1) * w.dilation_w + 1, 13);
  }
  const int bits = c.inp_width(), wbits = c.wgt_width();
  k.spec.w = w;
  const auto wv = random_values(rng, size_t(w.out_channels * (w.in_channels / w.groups) * w.kernel_h * w.kernel_w), wbits);
  k.spec.weights.assign(wv.begin(), wv.end());
  k.spec.bias = random_values(rng, size_t(w.out_channels), std::min(20, c.acc_width() - 2));
  if (pick(0, 1)) {
    k.spec.shifts = {pick(-2, 20)};
  } else {
    for (int64_t ch = 0; ch < w.out_channels; ++ch) k.spec.shifts.push_back(pick(-3, 24));
  }
  const int64_t qmin = -(int64_t(1) << (bits - 1)), qmax = -qmin - 1;
  k.spec.clip_min = pick(0, 1) ? 0 : qmin;
  k.spec.clip_max = pick(0, 3) ? qmax : std::max<int64_t>(k.spec.clip_min, qmax / 2);
  k.spec.acc_bits = c.acc_width();
  k.x = random_values(rng, size_t(w.batch * w.in_channels * w.height * w.width), bits);
  // Bias-free and uniform-bias layers with one shift requantize with ADD immediates (split when
  // past the immediate's range) and keep nothing in the accumulators; large values fall back to
  // vectors.
  const int64_t bias_kind = pick(0, 3);
  if (bias_kind == 0) k.spec.bias.clear();
  if (bias_kind == 1) k.spec.bias.assign(size_t(w.out_channels), random_values(rng, 1, int(pick(2, 19)))[0]);
  return k;
}

// A random legal schedule (or the default heuristic).
lower::Schedule random_schedule(std::mt19937& rng, const hw::HwConfig& c, const Case& k) {
  const auto space = lower::schedule_space(c, k.w, k.spec.acc_vectors(c));
  EXPECT_FALSE(space.empty());
  return space[std::uniform_int_distribution<size_t>(0, space.size() - 1)(rng)];
}

void run_cases(const std::string& name, int trials, unsigned seed) {
  const hw::HwConfig c = preset(name);
  std::mt19937 rng(seed);
  for (int t = 0; t < trials; ++t) {
    const Case k = random_case(rng, c);
    const lower::Schedule s = random_schedule(rng, c, k);
    SCOPED_TRACE(name + " trial " + std::to_string(t) + ": " + k.w.to_string() + " schedule " + s.to_string());
    const std::vector<int32_t> got = run_on_accelerator(c, k, s);
    const std::vector<int64_t> want = run_reference(c, k);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(int64_t(got[i]), want[i]) << "output element " << i;
    }
  }
}

// 1x1 kernels with a row stride load only the rows they read (the DMA steps stride rows at a time):
// every legal schedule of a few such layers (rows per tile 1..all, strides 2 and 3, batch 2, a
// padded column edge) is bit-exact.
TEST(ConvLowering, OneRowKernelsWithARowStrideSkipRows) {
  const hw::HwConfig c = preset("pynq");
  std::mt19937 rng(5);
  for (const auto& [stride, pad_w] : {std::pair<int64_t, int64_t>{2, 0}, {3, 1}}) {
    Case k;
    k.w.batch = 2;
    k.w.in_channels = 20;
    k.w.out_channels = 24;
    k.w.height = 11;
    k.w.width = 9;
    k.w.stride_h = stride;
    k.w.stride_w = 2;
    k.w.pad_left = k.w.pad_right = pad_w;
    k.spec.w = k.w;
    k.spec.weights.resize(size_t(24 * 20));
    for (int32_t& v : k.spec.weights) v = int32_t(random_values(rng, 1, 8)[0]);
    k.spec.bias = random_values(rng, 24, 10);
    k.spec.shifts = {6};
    k.spec.clip_min = 0;
    k.x = random_values(rng, size_t(2 * 20 * 11 * 9), 8);
    const std::vector<int64_t> want = run_reference(c, k);
    const auto space = lower::schedule_space(c, k.w, k.spec.acc_vectors(c));
    ASSERT_FALSE(space.empty());
    for (const lower::Schedule& s : space) {
      SCOPED_TRACE(k.w.to_string() + " schedule " + s.to_string());
      const std::vector<int32_t> got = run_on_accelerator(c, k, s);
      ASSERT_EQ(std::vector<int64_t>(got.begin(), got.end()), want);
    }
  }
}

TEST(ConvLowering, MatchesIntegerReferencePynq) { run_cases("pynq", 200, 1); }
TEST(ConvLowering, MatchesIntegerReferenceW4A4) { run_cases("pynq_w4a4", 80, 2); }
TEST(ConvLowering, MatchesIntegerReferenceW2A2) { run_cases("pynq_w2a2", 60, 3); }
TEST(ConvLowering, MatchesIntegerReferenceBatch4Block8) { run_cases("pynq_b4_blk8", 80, 4); }

}  // namespace

// TVM's group_conv2d_packed tiles output channels over every group at once: a tile_co whose inner
// factor is a whole number of supergroups loads, per reduction step, the input blocks from the
// tile's first supergroup to its last and multiplies each output block with its own supergroup's
// blocks only. Every legal schedule with such tiles of a few grouped layers (one and two input
// blocks per group, a reduction split inside the group, per-channel shifts so the per-channel
// vectors span the tile, batch 2) is bit-exact, and a tile that is not whole supergroups is refused
// naming the knob.
TEST(ConvLowering, GroupTilesSpanningSupergroupsAreBitExact) {
  const hw::HwConfig c = preset("pynq");
  std::mt19937 rng(7);
  struct Shape {
    int64_t groups, cin_g, cout_g, hw, kernel;
  };
  for (const Shape& sh : {Shape{8, 16, 16, 6, 3}, Shape{4, 32, 32, 5, 3}, Shape{4, 32, 16, 4, 1}}) {
    Case k;
    k.w.batch = sh.groups == 4 && sh.kernel == 1 ? 2 : 1;
    k.w.groups = sh.groups;
    k.w.in_channels = sh.groups * sh.cin_g;
    k.w.out_channels = sh.groups * sh.cout_g;
    k.w.height = k.w.width = sh.hw;
    k.w.kernel_h = k.w.kernel_w = sh.kernel;
    k.w.pad_top = k.w.pad_bottom = k.w.pad_left = k.w.pad_right = sh.kernel / 2;
    k.spec.w = k.w;
    const auto wv = random_values(rng, size_t(k.w.out_channels * sh.cin_g * sh.kernel * sh.kernel), 8);
    k.spec.weights.assign(wv.begin(), wv.end());
    k.spec.bias = random_values(rng, size_t(k.w.out_channels), 12);
    for (int64_t ch = 0; ch < k.w.out_channels; ++ch) k.spec.shifts.push_back(int64_t(4 + ch % 5));
    k.spec.clip_min = -128;
    k.spec.clip_max = 127;
    k.spec.acc_bits = c.acc_width();
    k.x = random_values(rng, size_t(k.w.batch * k.w.in_channels * sh.hw * sh.hw), 8);
    const std::vector<int64_t> want = run_reference(c, k);
    const lower::ConvGeometry g = lower::conv_geometry(c, k.w);
    ASSERT_GT(g.supergroups, 1) << k.w.to_string();
    int spanning = 0;
    const std::vector<lower::Schedule> space = lower::schedule_space(c, k.w, k.spec.acc_vectors(c));
    for (size_t i = 0; i < space.size(); i += 3) {  // every third: tiles, threads and spans all vary
      const lower::Schedule& base = space[i];
      for (int64_t span = 2; span <= g.supergroups; span *= 2) {
        lower::Schedule s = base;
        s.tile_co = lower::Split{-1, g.cob * span};
        lower::ConvTiling t;
        if (!lower::schedule_problem(c, k.w, g, s, k.spec.acc_vectors(c), &t).empty()) continue;
        ASSERT_EQ(t.sgt, span);
        ++spanning;
        SCOPED_TRACE(k.w.to_string() + " schedule " + s.to_string());
        const std::vector<int32_t> got = run_on_accelerator(c, k, s);
        ASSERT_EQ(std::vector<int64_t>(got.begin(), got.end()), want);
      }
    }
    EXPECT_GE(spanning, 8) << k.w.to_string();
    if (g.cob > 1) {
      lower::Schedule odd = lower::schedule_space(c, k.w, k.spec.acc_vectors(c)).front();
      odd.tile_co = lower::Split{-1, g.cob + 1};
      const std::string why = lower::schedule_problem(c, k.w, g, odd, k.spec.acc_vectors(c), nullptr);
      EXPECT_NE(why.find("tile_co: inner factor"), std::string::npos) << why;
      EXPECT_NE(why.find("not a whole number of them"), std::string::npos) << why;
    }
  }
}
