// The quantization pass as a pure graph transform: the binary-point rules, the printed quantized
// graph of a small model (golden), the shifts and clip bounds it derives, warnings, fallbacks and
// errors. Run with TAUVTA_UPDATE_GOLDEN=1 to rewrite tests/quant/golden/*.txt, then review.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "graph/quantize.h"
#include "quant_test_models.h"

namespace {

using namespace tauvta::graph;
using tauvta::testing::small_model;
using tauvta::testing::small_model_stats;
using tauvta::testing::stats_with_ranges;

void expect_golden(const std::string& actual, const std::string& file) {
  const std::filesystem::path path = std::filesystem::path(TAUVTA_SOURCE_DIR) / "tests/quant/golden" / file;
  if (const char* u = std::getenv("TAUVTA_UPDATE_GOLDEN"); u != nullptr && std::string(u) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; run with TAUVTA_UPDATE_GOLDEN=1 to create it";
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "TAUVTA_UPDATE_GOLDEN=1 rewrites " << path;
}

ValueHistogram hist(std::vector<float> v) {
  ValueHistogram h;
  h.add(v);
  return h;
}

const Node& node_named(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes) {
    if (n.name == name) return n;
  }
  throw std::runtime_error("no node " + name);
}

TEST(QuantizeStats, MaxRuleKeepsExtremesInRange) {
  // 8 bits: 1.0 needs 1.0 * 2^f < 127.5, so f = 6; 0.99 fits f = 7 (126.7).
  EXPECT_EQ(choose_frac_bits(hist({0.0f, 1.0f}), 8, CalibStatistic::kMax, 0), 6);
  EXPECT_EQ(choose_frac_bits(hist({0.0f, 0.99f}), 8, CalibStatistic::kMax, 0), 7);
  // Negative extremes use the extra negative code: -1.0 * 2^7 = -128 fits.
  EXPECT_EQ(choose_frac_bits(hist({-1.0f, 0.5f}), 8, CalibStatistic::kMax, 0), 7);
  EXPECT_EQ(choose_frac_bits(hist({-3.0f, 100.0f}), 8, CalibStatistic::kMax, 0), 0);
  EXPECT_EQ(choose_frac_bits(hist({0.0f, 300.0f}), 8, CalibStatistic::kMax, 0), -2);  // 75 * 4
  EXPECT_EQ(choose_frac_bits(hist({0.0f, 5.0f}), 4, CalibStatistic::kMax, 0), 0);     // 5 < 7.5
  EXPECT_EQ(choose_frac_bits(hist({0.0f, 5.0f}), 2, CalibStatistic::kMax, 0), -2);    // 1.25 < 1.5
  EXPECT_EQ(choose_frac_bits(hist({0.0f, 0.001f}), 16, CalibStatistic::kMax, 0), 24);
  EXPECT_EQ(choose_frac_bits(hist({0.0f, 0.0f}), 8, CalibStatistic::kMax, 0), 7);  // all zero: [-1, 1)
}

TEST(QuantizeStats, PercentileIgnoresRareOutliers) {
  std::vector<float> v(100000, 0.0f);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i % 1000) / 2000.0f;  // up to 0.4995
  v[0] = 50.0f;                                                          // one outlier
  const ValueHistogram h = hist(v);
  EXPECT_EQ(choose_frac_bits(h, 8, CalibStatistic::kMax, 0), 1);         // 50 * 2 = 100
  // The 99.9th percentile lies in the top bin below 0.5: 0.5 * 2^7 = 64 fits, 2^8 would be 128.
  EXPECT_EQ(choose_frac_bits(h, 8, CalibStatistic::kPercentile, 99.9), 7);
  EXPECT_NEAR(h.abs_percentile(50), 0.25, 0.01);
  EXPECT_EQ(h.abs_percentile(100), 50.0f);
}

TEST(QuantizeStats, MseTradesClippingForResolution) {
  // Gaussian-like bulk with a long sparse tail: MSE picks a finer point than max.
  std::mt19937 rng(1);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(20000);
  for (float& x : v) x = d(rng);
  v[0] = 40.0f;
  const ValueHistogram h = hist(v);
  const int f_max = choose_frac_bits(h, 4, CalibStatistic::kMax, 0);
  const int f_mse = choose_frac_bits(h, 4, CalibStatistic::kMse, 0);
  EXPECT_EQ(f_max, -3);
  EXPECT_GT(f_mse, f_max);
  EXPECT_LT(h.quantization_mse(4, f_mse), h.quantization_mse(4, f_max));
  // With plenty of bits there is nothing to trade: at 16 bits MSE keeps the max point or finer.
  EXPECT_GE(choose_frac_bits(h, 16, CalibStatistic::kMse, 0), choose_frac_bits(h, 16, CalibStatistic::kMax, 0));
}

TEST(QuantizeStats, HistogramsMerge) {
  ValueHistogram a = hist({-2.0f, 1.0f}), b = hist({0.5f, 3.0f});
  a.merge(b);
  EXPECT_EQ(a.count(), 4u);
  EXPECT_EQ(a.min(), -2.0f);
  EXPECT_EQ(a.max(), 3.0f);
  EXPECT_EQ(parse_calib_statistic("mse"), CalibStatistic::kMse);
  EXPECT_THROW(parse_calib_statistic("median"), tauvta::Error);
}

TEST(QuantizeStats, QuantizeValueRoundsHalfToEvenAndSaturates) {
  EXPECT_EQ(quantize_value(0.375, 2, 8), 2);  // 1.5 -> 2
  EXPECT_EQ(quantize_value(0.625, 2, 8), 2);  // 2.5 -> 2
  EXPECT_EQ(quantize_value(-0.625, 2, 8), -2);
  EXPECT_EQ(quantize_value(100.0, 2, 8), 127);
  EXPECT_EQ(quantize_value(-100.0, 2, 8), -128);
  EXPECT_EQ(quantize_value(3.0, -1, 4), 2);  // 1.5 -> 2
}

TEST(QuantizePass, SmallModelGolden) {
  const QuantizeResult r = quantize(small_model(), small_model_stats(), QuantizeOptions{});
  verify_quantized(r.graph);
  expect_golden(print_graph(r.graph), "small_model_int8.txt");
}

TEST(QuantizePass, SmallModelPerChannelW4A4Golden) {
  QuantizeOptions o;
  o.act_bits = 4;
  o.wgt_bits = 4;
  o.per_channel = true;
  const QuantizeResult r = quantize(small_model(), small_model_stats(), o);
  verify_quantized(r.graph);
  expect_golden(print_graph(r.graph), "small_model_w4a4_per_channel.txt");
}

TEST(QuantizePass, ShiftsAndClipBoundsFollowTheFormats) {
  QuantizeOptions o;
  o.wgt_stat = CalibStatistic::kMax;
  const QuantizeResult r = quantize(small_model(), small_model_stats(), o);
  const Graph& g = r.graph;
  // x: [0, 1] -> q8.6. r1 (conv1 + relu fused): [0, 2.5] -> q8.5. w1 = 0.5 * sin(...) spans
  // [-0.498, 0.486]: at 2^8 that is [-127.5, 124.4], inside [-128.5, 127.5): q8.8.
  // shift = 6 + 8 - 5 = 9.
  EXPECT_EQ(g.info("x_q")->quant, (QuantParams{8, 6, {}}));
  EXPECT_EQ(g.info("r1")->quant, (QuantParams{8, 5, {}}));
  EXPECT_EQ(g.info("w1")->quant.frac_bits, 8);
  const Node& conv1 = node_named(g, "conv1");
  EXPECT_EQ(conv1.op_type, "QConv");
  EXPECT_EQ(conv1.outputs[0], "r1");  // the fused Relu's output
  EXPECT_EQ(conv1.attr_int("shift"), 9);
  EXPECT_EQ(conv1.attr_int("clip_min"), 0);
  EXPECT_EQ(conv1.attr_int("clip_max"), 127);
  // Bias at frac 6 + 8 = 14 in int32.
  const Tensor& b1 = g.initializers.at("b1");
  EXPECT_EQ(b1.dtype(), DType::kInt32);
  EXPECT_EQ(g.info("b1")->quant, (QuantParams{32, 14, {}}));
  const std::vector<float> b1f = small_model().initializers.at("b1").to_float();
  EXPECT_EQ(b1.to_int64()[0], quantize_value(b1f[0], 14, 32));
  // The residual Add aligns c2 (q8.6, [-1.2, 1.9]) and p1 (q8.5) at frac 6, sums, and requantizes
  // to r2 ([0, 4] -> q8.4) with the fused Relu: lhs 0, rhs -1 (a left shift), shift 2, clip [0, 127].
  const Node& add = node_named(g, "add");
  EXPECT_EQ(add.op_type, "QAdd");
  EXPECT_EQ(add.attr_int("lhs_shift"), 0);
  EXPECT_EQ(add.attr_int("rhs_shift"), -1);
  EXPECT_EQ(add.attr_int("shift"), 2);
  EXPECT_EQ(add.attr_int("clip_min"), 0);
  // logits is a graph output: the integer value is logits_q, a Dequantize writes "logits".
  EXPECT_EQ(node_named(g, "fc").outputs[0], "logits_q");
  EXPECT_EQ(r.value_map.at("logits"), "logits_q");
  EXPECT_EQ(r.value_map.at("r1"), "r1");
  EXPECT_EQ(r.value_map.at("x"), "x_q");
  EXPECT_EQ(g.producer("logits")->op_type, "Dequantize");
  EXPECT_EQ(g.producer("out")->op_type, "Dequantize");
  EXPECT_EQ(g.producer("out_q")->op_type, "QMul");
  ASSERT_EQ(r.cpu_fallbacks.size(), 2u);
  EXPECT_EQ(r.cpu_fallbacks[0],
            "gap (QGlobalAveragePool): divides window sums by 9 (not a power of two) with an exact integer "
            "division on the CPU");
  EXPECT_EQ(r.cpu_fallbacks[1], "node 'sigmoid' (Sigmoid): float kernel between Dequantize and Quantize");
  EXPECT_TRUE(r.warnings.empty());
}

TEST(QuantizePass, Relu6AndClipBecomeBounds) {
  Graph g = small_model();
  // Replace relu1 by Clip(0, 2): at r1's format q8.5 the bounds are 0 and 64.
  for (Node& n : g.nodes) {
    if (n.name == "relu1") {
      n.op_type = "Clip";
      n.inputs = {"c1", "lo", "hi"};
    }
  }
  g.initializers["lo"] = Tensor::scalar_float(0.0f);
  g.initializers["hi"] = Tensor::scalar_float(2.0f);
  const QuantizeResult r = quantize(g, tauvta::testing::small_model_stats(), QuantizeOptions{});
  const Node& conv1 = node_named(r.graph, "conv1");
  EXPECT_EQ(conv1.attr_int("clip_min"), 0);
  EXPECT_EQ(conv1.attr_int("clip_max"), 64);
  EXPECT_EQ(conv1.attr_string_or("activation", ""), "Clip");
}

TEST(QuantizePass, PerChannelShiftsAreLists) {
  QuantizeOptions o;
  o.per_channel = true;
  const QuantizeResult r = quantize(small_model(), small_model_stats(), o);
  const Node& conv1 = node_named(r.graph, "conv1");
  const std::vector<int64_t> shifts = requant_shifts(conv1, 3);
  const QuantParams& wq = r.graph.info("w1")->quant;
  ASSERT_EQ(wq.channel_frac_bits.size(), 3u);
  for (size_t c = 0; c < 3; ++c) EXPECT_EQ(shifts[c], 6 + wq.channel_frac_bits[c] - 5) << c;
  EXPECT_THROW(requant_shifts(conv1, 4), tauvta::Error);
}

TEST(QuantizePass, WarnsWhenTheAccumulatorCanOverflow) {
  QuantizeOptions o;
  o.act_bits = 16;
  o.wgt_bits = 16;
  o.acc_bits = 16;
  const QuantizeResult r = quantize(small_model(), small_model_stats(), o);
  verify_quantized(r.graph);  // every shift fitted into -15..15
  ASSERT_EQ(r.warnings.size(), 9u);
  // 16-bit operands need 16 + 16 bits per product: conv1's shift 14 + 16 - 13 = 17 does not fit,
  // so its weights lose two fraction bits; biases at frac f_in + f_w do not fit either.
  EXPECT_EQ(r.warnings[0],
            "node 'conv1' (Conv): weights moved from q16.16 to q16.14 so that the requantization shift fits the "
            "16-bit accumulator (input q16.14, output q16.13: shift 17 -> 15)");
  EXPECT_EQ(r.warnings[1], "node 'conv1' (Conv): 3 bias value(s) clipped to the 16-bit accumulator range");
  EXPECT_NE(r.warnings[2].find("node 'conv1' (Conv): the accumulator can overflow: worst case |acc| = "),
            std::string::npos)
      << r.warnings[2];
  EXPECT_NE(r.warnings[2].find("exceeds the 16-bit range 32767; results wrap"), std::string::npos) << r.warnings[2];
  // 8-bit operands into 32 bits: no warning for this model.
  EXPECT_TRUE(quantize(small_model(), small_model_stats(), QuantizeOptions{}).warnings.empty());
}

TEST(QuantizePass, MissingStatisticsNameTheValue) {
  CalibrationStats s = small_model_stats();
  s.erase("r2");
  try {
    quantize(small_model(), s, QuantizeOptions{});
    FAIL() << "expected an error";
  } catch (const tauvta::Error& e) {
    EXPECT_STREQ(e.what(), "quantize: no calibration statistics for value 'r2' (output of node 'relu2' (Relu))");
  }
}

TEST(QuantizePass, RejectsWidthsOutsideTheHardware) {
  QuantizeOptions o;
  o.act_bits = 32;
  EXPECT_THROW(quantize(small_model(), small_model_stats(), o), tauvta::Error);
  o.act_bits = 8;
  o.acc_bits = 24;
  EXPECT_THROW(quantize(small_model(), small_model_stats(), o), tauvta::Error);
}

TEST(QuantizePass, VerifyCatchesBadAttributes) {
  QuantizeResult r = quantize(small_model(), small_model_stats(), QuantizeOptions{});
  for (Node& n : r.graph.nodes) {
    if (n.name == "conv1") n.attrs["shift"] = int64_t(40);
  }
  try {
    verify_quantized(r.graph);
    FAIL() << "expected an error";
  } catch (const tauvta::Error& e) {
    EXPECT_STREQ(e.what(), "node 'conv1' (QConv): shift 40 is outside -31..31 (the accumulator width)");
  }
}

}  // namespace
