// Calibrate -> quantize -> integer reference on a small model: its outputs follow the float
// reference (cosine), more closely with more bits, and one layer agrees bit for bit with an
// independent scalar computation written here from docs/quantization.md.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cpu/calibration.h"
#include "cpu/float_executor.h"
#include "cpu/int_executor.h"
#include "graph/quantize.h"
#include "quant_test_models.h"

namespace {

using namespace tauvta;
using graph::Tensor;

Tensor random_images(int64_t n, int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  Tensor t(graph::DType::kFloat32, {n, 1, 6, 6});
  for (float& v : t.floats()) v = d(rng);
  return t;
}

double cosine(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = a.to_float(), y = b.to_float();
  double xy = 0, xx = 0, yy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    xy += double(x[i]) * y[i];
    xx += double(x[i]) * x[i];
    yy += double(y[i]) * y[i];
  }
  return xy / std::sqrt(xx * yy);
}

struct Quantized {
  graph::Graph float_graph;
  graph::QuantizeResult q;
};

Quantized calibrate_and_quantize(const graph::QuantizeOptions& o) {
  Quantized r;
  r.float_graph = tauvta::testing::small_model(-1);
  std::vector<cpu::TensorMap> batches;
  for (int b = 0; b < 4; ++b) batches.push_back({{"x", random_images(16, b)}});
  const graph::CalibrationStats stats = cpu::calibrate(r.float_graph, batches);
  r.q = graph::quantize(r.float_graph, stats, o);
  graph::verify_quantized(r.q.graph);
  return r;
}

double output_cosine(const graph::QuantizeOptions& o, const std::string& output) {
  const Quantized m = calibrate_and_quantize(o);
  const cpu::TensorMap in = {{"x", random_images(32, 100)}};
  const cpu::TensorMap f = cpu::run_float(m.float_graph, in);
  const cpu::TensorMap q = cpu::run_int(m.q.graph, in);
  return cosine(f.at(output), q.at(output));
}

TEST(QuantEndToEnd, IntegerFollowsFloat) {
  graph::QuantizeOptions int8;
  EXPECT_GT(output_cosine(int8, "logits"), 0.99);
  EXPECT_GT(output_cosine(int8, "out"), 0.99);
  int8.per_channel = true;
  EXPECT_GT(output_cosine(int8, "logits"), 0.99);
  graph::QuantizeOptions int16;
  int16.act_bits = int16.wgt_bits = 16;
  int16.acc_bits = 64;
  EXPECT_GT(output_cosine(int16, "logits"), 0.99999);
  graph::QuantizeOptions int4;
  int4.act_bits = int4.wgt_bits = 4;
  int4.act_stat = graph::CalibStatistic::kMse;
  const double c4 = output_cosine(int4, "logits");
  EXPECT_GT(c4, 0.8);
  EXPECT_LT(c4, output_cosine(graph::QuantizeOptions{}, "logits"));  // fewer bits, larger error
}

// conv1 of the quantized model recomputed with plain loops: x_q = round_half_even(x * 2^f_in)
// clipped to 8 bits; acc = b + sum x_q * w_q; out = clip((acc + 2^(s-1)) >> s, lo, hi).
TEST(QuantEndToEnd, FirstLayerMatchesAnIndependentScalarComputation) {
  graph::QuantizeOptions o;
  o.per_channel = true;
  const Quantized m = calibrate_and_quantize(o);
  const graph::Graph& g = m.q.graph;
  const graph::Node* conv = nullptr;
  for (const graph::Node& n : g.nodes) {
    if (n.name == "conv1") conv = &n;
  }
  ASSERT_NE(conv, nullptr);
  const int f_in = int(g.info(conv->inputs[0])->quant.frac_bits);
  const std::vector<int64_t> w = g.initializers.at(conv->inputs[1]).to_int64();
  const std::vector<int64_t> b = g.initializers.at(conv->inputs[2]).to_int64();
  const std::vector<int64_t> shifts = graph::requant_shifts(*conv, 3);
  const int64_t lo = conv->attr_int("clip_min"), hi = conv->attr_int("clip_max");

  const Tensor x = random_images(2, 55);
  Tensor observed;
  cpu::run_int(g, {{"x", x}}, [&](const graph::Node& n, const std::vector<const Tensor*>& outs) {
    if (n.name == "conv1") observed = *outs[0];
  });
  ASSERT_EQ(observed.shape(), (graph::Shape{2, 3, 6, 6}));
  const std::vector<int64_t> got = observed.to_int64();
  const std::vector<float> xf = x.to_float();
  int checked = 0;
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t oc = 0; oc < 3; ++oc) {
      for (int64_t y = 0; y < 6; ++y) {
        for (int64_t xx = 0; xx < 6; ++xx) {
          int64_t acc = b[size_t(oc)];
          for (int64_t ky = 0; ky < 3; ++ky) {
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t iy = y + ky - 1, ix = xx + kx - 1;
              if (iy < 0 || iy >= 6 || ix < 0 || ix >= 6) continue;
              double scaled = std::nearbyint(std::ldexp(double(xf[size_t((n * 6 + iy) * 6 + ix)]), f_in));
              scaled = std::min(127.0, std::max(-128.0, scaled));
              acc += int64_t(scaled) * w[size_t((oc * 3 + ky) * 3 + kx)];
            }
          }
          const int64_t s = shifts[size_t(oc)];
          int64_t v = s > 0 ? (acc + (int64_t(1) << (s - 1))) >> s : acc * (int64_t(1) << -s);
          v = std::max(lo, std::min(hi, v));
          EXPECT_EQ(got[size_t(((n * 3 + oc) * 6 + y) * 6 + xx)], v) << n << " " << oc << " " << y << " " << xx;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 216);
}

}  // namespace
