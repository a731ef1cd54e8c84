// Quantization never fails on a valid model: requantization shifts the accumulator cannot do
// (vanishing activations, tiny or huge calibrated ranges, all-zero values) are fitted to the
// nearest useful formats with a warning naming the layer, the graph verifies, and the integer
// reference still follows the float one.
#include <gtest/gtest.h>

#include <cmath>

#include "cpu/calibration.h"
#include "cpu/float_executor.h"
#include "cpu/int_executor.h"
#include "graph/quantize.h"
#include "quant_test_models.h"

namespace {

using namespace tauvta::graph;
using tauvta::testing::small_model;
using tauvta::testing::small_model_stats;
using tauvta::testing::stats_with_ranges;

const Node& node_named(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes) {
    if (n.name == name) return n;
  }
  throw std::runtime_error("no node " + name);
}

// small_model's statistics with some values' ranges replaced.
CalibrationStats stats_with(const std::vector<std::pair<std::string, std::pair<float, float>>>& changed) {
  CalibrationStats s = small_model_stats();
  for (const auto& [name, stat] : stats_with_ranges(changed)) s[name] = stat;
  return s;
}

bool has_warning(const QuantizeResult& r, const std::string& text) {
  for (const std::string& w : r.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

// GoogLeNet with random weights: the classifier's input vanishes (values near 1e-12), so its
// format near q8.35 and the weights' ask for a shift near 40. The weights become coarser until the
// shift is acc_bits - out_bits = 24, where the accumulator holds the output range and the bias.
TEST(QuantizeShiftFit, VanishingInputCoarsensTheWeights) {
  const QuantizeResult r = quantize(small_model(), stats_with({{"g1", {0.0f, 1e-12f}}, {"f1", {0.0f, 1e-12f}}}),
                                    QuantizeOptions{});
  verify_quantized(r.graph);
  const Node& fc = node_named(r.graph, "fc");
  const int f_in = r.graph.info(fc.inputs[0])->quant.frac_bits;
  const int f_w = r.graph.info(fc.inputs[1])->quant.frac_bits;
  const int f_out = r.graph.info(fc.outputs[0])->quant.frac_bits;
  EXPECT_GT(f_in, 30);
  EXPECT_EQ(fc.attr_int("shift"), 24);
  EXPECT_EQ(f_in + f_w - f_out, 24);
  EXPECT_TRUE(has_warning(r, "node 'fc' (Gemm): weights moved from q8.")) << r.warnings.size();
  EXPECT_TRUE(has_warning(r, "shift fits the 32-bit accumulator"));
  // The bias (about 0.3) is still represented: no clipping warning.
  EXPECT_FALSE(has_warning(r, "bias value(s) clipped"));
}

// A layer whose output range is far below its product's resolution: the output format moves to
// at most 31 bits finer than the product (lossless), never a shift below -31.
TEST(QuantizeShiftFit, TinyOutputRangeMovesTheOutputFormat) {
  const QuantizeResult r = quantize(small_model(), stats_with({{"logits", {-1e-15f, 1e-15f}}}), QuantizeOptions{});
  verify_quantized(r.graph);
  const Node& fc = node_named(r.graph, "fc");
  EXPECT_EQ(fc.attr_int("shift"), -31);
  EXPECT_TRUE(has_warning(r, "node 'fc' (Gemm): output 'logits' moved from q8."));
  // The consumer of logits (the Sigmoid fallback's Dequantize) reads the moved format.
  EXPECT_EQ(r.activation_formats.at("logits"), r.graph.info(fc.outputs[0])->quant.frac_bits);
}

// Pools, elementwise and concatenation fit too; all-zero values (a constant output) quantize at
// the default format without a warning.
TEST(QuantizeShiftFit, PoolsAndElementwiseFitAndZerosAreFine) {
  const QuantizeResult r = quantize(small_model(), stats_with({{"g1", {0.0f, 1e3f}}, {"r2", {0.0f, 1e-12f}},
                                                               {"s", {0.0f, 0.0f}}, {"out", {0.0f, 0.0f}}}),
                                    QuantizeOptions{});
  verify_quantized(r.graph);
  EXPECT_TRUE(has_warning(r, "node 'gap' (GlobalAveragePool): output 'g1' moved from q8."));
  for (const Node& n : r.graph.nodes) {
    if (n.attrs.count("shift") && std::holds_alternative<int64_t>(n.attrs.at("shift"))) {
      EXPECT_LE(std::abs(n.attr_int("shift")), 31) << n.name;
    }
  }
  EXPECT_EQ(r.activation_formats.at("out"), 7);  // zeros: q8.7, like any all-zero range
}

// End to end: a model whose classifier input vanishes still runs on the integer reference and
// follows the float outputs (which are the classifier's bias).
TEST(QuantizeShiftFit, IntegerReferenceFollowsFloatAfterFitting) {
  Graph g = small_model();
  // Scale the second conv's weights down by 2^-40: everything after it vanishes.
  for (float& v : g.initializers.at("w2").floats()) v = std::ldexp(v, -40);
  Tensor x(DType::kFloat32, {1, 1, 6, 6});
  for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = float(i % 7) / 7.0f;
  tauvta::cpu::TensorMap in{{"x", x}};
  const CalibrationStats calib = tauvta::cpu::calibrate(g, {in});
  const QuantizeResult r = quantize(g, calib, QuantizeOptions{});
  verify_quantized(r.graph);
  const Tensor want = tauvta::cpu::run_float(g, in).at("logits");
  const Tensor got = tauvta::cpu::run_int(r.graph, in).at("logits");
  for (int64_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got.floats()[size_t(i)], want.floats()[size_t(i)], 0.02) << i;
}

}  // namespace
