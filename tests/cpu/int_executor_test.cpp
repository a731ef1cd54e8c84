// The integer executor's operators on hand-built one-node graphs, against hand-computed results,
// on every kernel path (AVX-512 when present, portable, reference).
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"
#include "cpu/int_executor.h"
#include "int_test_util.h"

namespace {

using tauvta::cpu::IntRunOptions;
using tauvta::graph::DType;
using tauvta::graph::Node;
using tauvta::graph::Tensor;
using namespace tauvta::testing;

TEST(IntExecutor, QConvHandComputed) {
  // x = 1..9 as 3x3, w = [[1,-1],[2,0]], bias 3:
  //   sums 7 9 / 13 15, + bias 10 12 / 16 18, SHR 2 with rounding 3 3 / 4 5, clip [0,4].
  Node n = requant_node("QConv", {"x", "w", "b"}, 2, 0, 4);
  n.attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
  const auto g = one_node_graph(n, {"x"}, {{"w", ints({1, 1, 2, 2}, {1, -1, 2, 0}, DType::kInt8)},
                                           {"b", ints({1}, {3})}});
  for (const IntRunOptions& o : all_paths()) {
    const auto out = tauvta::cpu::run_int(g, {{"x", ints({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}}, {}, o);
    EXPECT_EQ(out.at("y").shape(), (tauvta::graph::Shape{1, 1, 2, 2}));
    EXPECT_EQ(out.at("y").to_int64(), (std::vector<int64_t>{3, 3, 4, 4}));
  }
}

TEST(IntExecutor, QConvPaddingStrideAndPerChannelShifts) {
  // 1 input channel 2x2 = [[1,2],[3,4]], two 3x3 all-ones filters, pads 1, stride 2 -> 1x1 output
  // at (0,0) covering rows/cols -1..1: sum 1+2+3+4 = 10. Channel 0 SHR 1: 5; channel 1 SHR -2: 40.
  Node n = requant_node("QConv", {"x", "w"}, 0, -128, 127);
  n.attrs["shift"] = std::vector<int64_t>{1, -2};
  n.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  n.attrs["strides"] = std::vector<int64_t>{2, 2};
  const auto g = one_node_graph(n, {"x"}, {{"w", ints({2, 1, 3, 3}, std::vector<int64_t>(18, 1), DType::kInt8)}});
  for (const IntRunOptions& o : all_paths()) {
    EXPECT_EQ(run_values(g, {{"x", ints({1, 1, 2, 2}, {1, 2, 3, 4})}}, o), (std::vector<int64_t>{5, 40}));
  }
}

TEST(IntExecutor, QConvAccumulatorWrapsAt16And32Bits) {
  // Four 127 * 127 products: 64516, which a 16-bit accumulator holds as -1020.
  Node n = requant_node("QConv", {"x", "w"}, 0, -32768, 32767, 16, 16);
  const Tensor w = ints({1, 4, 1, 1}, {127, 127, 127, 127}, DType::kInt8);
  const Tensor x = ints({1, 4, 1, 1}, {127, 127, 127, 127});
  for (const IntRunOptions& o : all_paths()) {
    EXPECT_EQ(run_values(one_node_graph(n, {"x"}, {{"w", w}}), {{"x", x}}, o), (std::vector<int64_t>{-1020}));
  }
  n.attrs["acc_bits"] = int64_t(32);  // the same sum in 32 bits clips at the 16-bit output
  for (const IntRunOptions& o : all_paths()) {
    EXPECT_EQ(run_values(one_node_graph(n, {"x"}, {{"w", w}}), {{"x", x}}, o), (std::vector<int64_t>{32767}));
  }
  // Three 32767 * 32767 products wrap a 32-bit accumulator to -1073938429; SHR 16 -> -16387.
  Node m = requant_node("QConv", {"x", "w"}, 16, -32768, 32767, 16, 32);
  const Tensor w16 = ints({1, 3, 1, 1}, {32767, 32767, 32767}, DType::kInt16);
  for (const IntRunOptions& o : all_paths()) {
    EXPECT_EQ(run_values(one_node_graph(m, {"x"}, {{"w", w16}}), {{"x", ints({1, 3, 1, 1}, {32767, 32767, 32767})}}, o),
              (std::vector<int64_t>{-16387}));
  }
  // A 64-bit accumulator does not wrap: 3 * 32767^2 = 3220973... >> 16 = 49149 -> clipped 32767.
  m.attrs["acc_bits"] = int64_t(64);
  for (const IntRunOptions& o : all_paths()) {
    EXPECT_EQ(run_values(one_node_graph(m, {"x"}, {{"w", w16}}), {{"x", ints({1, 3, 1, 1}, {32767, 32767, 32767})}}, o),
              (std::vector<int64_t>{32767}));
  }
}

TEST(IntExecutor, CountsAccumulatorWrapsOnEveryPath) {
  // Two output channels of a 16-bit accumulator: channel 0 sums 4 * 127 * 127 = 64516 (wraps),
  // channel 1 sums 127 * 127 = 16129 (holds); a second pixel with inputs 1 wraps neither.
  Node n = requant_node("QConv", {"x", "w"}, 0, -32768, 32767, 16, 16);
  const Tensor w = ints({2, 4, 1, 1}, {127, 127, 127, 127, 127, 0, 0, 0}, DType::kInt8);
  const Tensor x = ints({1, 4, 1, 2}, {127, 1, 127, 1, 127, 1, 127, 1});
  for (IntRunOptions o : all_paths()) {
    tauvta::cpu::AccumulatorWraps wraps;
    o.wraps = &wraps;
    tauvta::cpu::run_int(one_node_graph(n, {"x"}, {{"w", w}}), {{"x", x}}, {}, o);
    const auto c = wraps.by_node();
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c.begin()->second.wrapped, 1);
    EXPECT_EQ(c.begin()->second.elements, 4);
  }
  // The rounding ADD wraps too: 32767 + 2^(1-1) leaves 16 bits although the sum does not.
  EXPECT_FALSE(tauvta::cpu::accumulator_wraps(32767, 0, 16));
  EXPECT_TRUE(tauvta::cpu::accumulator_wraps(32767, 1, 16));
  EXPECT_FALSE(tauvta::cpu::accumulator_wraps(32766, 1, 16));
  EXPECT_TRUE(tauvta::cpu::accumulator_wraps(-32769, 3, 16));
  EXPECT_TRUE(tauvta::cpu::accumulator_wraps(16384, -1, 16));  // SHR -1 doubles it past 32767
  EXPECT_FALSE(tauvta::cpu::accumulator_wraps(-16384, -1, 16));
  EXPECT_FALSE(tauvta::cpu::accumulator_wraps(int64_t(1) << 40, 3, 64));
}

TEST(IntExecutor, QConvGroupsAndBatch) {
  // Depthwise 1x1: channel c multiplied by w[c]; two images.
  Node n = requant_node("QConv", {"x", "w"}, 0, -128, 127);
  n.attrs["group"] = int64_t(2);
  const auto g = one_node_graph(n, {"x"}, {{"w", ints({2, 1, 1, 1}, {3, -2}, DType::kInt8)}});
  for (const IntRunOptions& o : all_paths()) {
    EXPECT_EQ(run_values(g, {{"x", ints({2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}}, o),
              (std::vector<int64_t>{3, 6, -6, -8, 15, 18, -14, -16}));
  }
}

TEST(IntExecutor, QConvTransposeHandComputed) {
  // x = [[1,2],[3,4]], all-ones 2x2 kernel. Stride 1: full correlation sums; stride 2: 2x2 blocks.
  Node n = requant_node("QConvTranspose", {"x", "w"}, 0, -128, 127);
  const Tensor w = ints({1, 1, 2, 2}, {1, 1, 1, 1}, DType::kInt8);
  const Tensor x = ints({1, 1, 2, 2}, {1, 2, 3, 4});
  for (const IntRunOptions& o : all_paths()) {
    EXPECT_EQ(run_values(one_node_graph(n, {"x"}, {{"w", w}}), {{"x", x}}, o),
              (std::vector<int64_t>{1, 3, 2, 4, 10, 6, 3, 7, 4}));
  }
  n.attrs["strides"] = std::vector<int64_t>{2, 2};
  for (const IntRunOptions& o : all_paths()) {
    EXPECT_EQ(run_values(one_node_graph(n, {"x"}, {{"w", w}}), {{"x", x}}, o),
              (std::vector<int64_t>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  }
}

TEST(IntExecutor, QGemmHandComputed) {
  // x [2,3] . w[2,3]^T + b: row 0 = (1*1 + 2*0 + 3*-1, 1*2 + 2*2 + 3*2) + (10, -1) = (8, 11);
  // row 1 = (-4 + 0 - 6, -8 + 10 + 12) + b = (0, 13). SHR 1 with rounding: (4, 6) / (0, 7).
  Node n = requant_node("QGemm", {"x", "w", "b"}, 1, -128, 127);
  const auto g = one_node_graph(n, {"x"}, {{"w", ints({2, 3}, {1, 0, -1, 2, 2, 2}, DType::kInt8)},
                                           {"b", ints({2}, {10, -1})}});
  for (const IntRunOptions& o : all_paths()) {
    EXPECT_EQ(run_values(g, {{"x", ints({2, 3}, {1, 2, 3, -4, 5, 6})}}, o), (std::vector<int64_t>{4, 6, 0, 7}));
  }
}

TEST(IntExecutor, QMatMulOfTwoActivations) {
  Node n = requant_node("QMatMul", {"a", "b"}, 0, -128, 127);
  const auto g = one_node_graph(n, {"a", "b"});
  EXPECT_EQ(run_values(g, {{"a", ints({2, 2}, {1, 2, 3, 4})}, {"b", ints({2, 2}, {5, 6, 7, 8})}}),
            (std::vector<int64_t>{19, 22, 43, 50}));
}

TEST(IntExecutor, QAddAlignsBinaryPoints) {
  // a at frac 2, b at frac 4: a is shifted left by 2 (lhs_shift -2) into frac 4, summed, and the
  // sum requantized to frac 3 (SHR 1). a = 5 (1.25), b = 7 (0.4375): 20 + 7 = 27 -> 14 (1.75).
  Node n = requant_node("QAdd", {"a", "b"}, 1, -128, 127);
  n.attrs["lhs_shift"] = int64_t(-2);
  n.attrs["rhs_shift"] = int64_t(0);
  const auto g = one_node_graph(n, {"a", "b"});
  EXPECT_EQ(run_values(g, {{"a", ints({3}, {5, -5, 100})}, {"b", ints({3}, {7, 7, 100})}}),
            (std::vector<int64_t>{14, -6, 127}));
  // Broadcasting a per-channel constant over [1, 2, 2].
  EXPECT_EQ(run_values(g, {{"a", ints({1, 2, 2}, {1, 2, 3, 4})}, {"b", ints({2, 1}, {0, 8})}}),
            (std::vector<int64_t>{2, 4, 10, 12}));
}

TEST(IntExecutor, QSubAndQMul) {
  Node s = requant_node("QSub", {"a", "b"}, 0, -8, 7, 4);
  EXPECT_EQ(run_values(one_node_graph(s, {"a", "b"}), {{"a", ints({3}, {3, -8, 7})}, {"b", ints({3}, {5, 1, -7})}}),
            (std::vector<int64_t>{-2, -8, 7}));
  Node m = requant_node("QMul", {"a", "b"}, 4, -128, 127);  // (a * b + 8) >> 4
  EXPECT_EQ(run_values(one_node_graph(m, {"a", "b"}), {{"a", ints({3}, {16, 24, -24})}, {"b", ints({3}, {16, 3, 3})}}),
            (std::vector<int64_t>{16, 5, -4}));
}

TEST(IntExecutor, QClipIsMinMax) {
  Node n = requant_node("QClip", {"x"}, 0, 0, 5, 4);
  EXPECT_EQ(run_values(one_node_graph(n, {"x"}), {{"x", ints({4}, {-3, 2, 6, 7})}}), (std::vector<int64_t>{0, 2, 5, 5}));
}

TEST(IntExecutor, QAveragePools) {
  // 2x2 windows (count 4: ADD 2, SHR 2) over a 2x4 plane.
  Node n = requant_node("QAveragePool", {"x"}, 0, -128, 127);
  n.attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
  n.attrs["strides"] = std::vector<int64_t>{2, 2};
  EXPECT_EQ(run_values(one_node_graph(n, {"x"}), {{"x", ints({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, -20})}}),
            (std::vector<int64_t>{4, -1}));  // 14/4 = 3.5 -> 4; -6/4 = -1.5 -> -1
  // 3x3 with pads 1 over 1..9 and count_include_pad 0: corner windows hold 4 values, edges 6,
  // the middle 9 (21/6 = 3.5 -> 4, 27/6 = 4.5 -> 5, 33/6 = 5.5 -> 6, 39/6 = 6.5 -> 7).
  Node p = requant_node("QAveragePool", {"x"}, 0, -128, 127);
  p.attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
  p.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  const Tensor x = ints({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(run_values(one_node_graph(p, {"x"}), {{"x", x}}), (std::vector<int64_t>{3, 4, 4, 5, 5, 6, 6, 7, 7}));
  p.attrs["count_include_pad"] = int64_t(1);  // always 9: 12/9 -> 1, 21/9 -> 2, 16/9 -> 2, ...
  EXPECT_EQ(run_values(one_node_graph(p, {"x"}), {{"x", x}}), (std::vector<int64_t>{1, 2, 2, 3, 5, 4, 3, 4, 3}));
  // Global over 7x7 = 49 (exact division) at one more fraction bit (SHR -1).
  Node gap = requant_node("QGlobalAveragePool", {"x"}, -1, -128, 127);
  std::vector<int64_t> v(49, 3);
  v[0] = 4;  // sum 148: 148 * 2 / 49 = 6.04 -> 6
  const auto out = tauvta::cpu::run_int(one_node_graph(gap, {"x"}), {{"x", ints({1, 1, 7, 7}, v)}});
  EXPECT_EQ(out.at("y").shape(), (tauvta::graph::Shape{1, 1, 1, 1}));
  EXPECT_EQ(out.at("y").to_int64(), (std::vector<int64_t>{6}));
}

TEST(IntExecutor, QConcatRequantizesEachInput) {
  Node n = requant_node("QConcat", {"a", "b"}, 0, -128, 127);
  n.attrs.erase("shift");
  n.attrs["shifts"] = std::vector<int64_t>{0, 2};
  n.attrs["axis"] = int64_t(1);
  EXPECT_EQ(run_values(one_node_graph(n, {"a", "b"}), {{"a", ints({1, 2}, {1, 2})}, {"b", ints({1, 1}, {10})}}),
            (std::vector<int64_t>{1, 2, 3}));  // 10 / 4 = 2.5 -> 3
}

TEST(IntExecutor, QuantizeAndDequantize) {
  Node q;
  q.op_type = "Quantize";
  q.inputs = {"x"};
  q.attrs["frac_bits"] = int64_t(2);
  q.attrs["bits"] = int64_t(4);
  // x * 4, nearest with ties to even, clipped to [-8, 7].
  EXPECT_EQ(run_values(one_node_graph(q, {"x"}), {{"x", Tensor::from_floats({6}, {0.3f, 0.375f, 0.625f, -0.125f, 5.0f, -3.0f})}}),
            (std::vector<int64_t>{1, 2, 2, 0, 7, -8}));
  Node d;
  d.op_type = "Dequantize";
  d.inputs = {"x"};
  d.attrs["frac_bits"] = int64_t(-1);
  const auto out = tauvta::cpu::run_int(one_node_graph(d, {"x"}), {{"x", ints({2}, {3, -5})}});
  EXPECT_EQ(out.at("y").dtype(), DType::kFloat32);
  EXPECT_EQ(out.at("y").to_float(), (std::vector<float>{6.0f, -10.0f}));
}

TEST(IntExecutor, DataMovementRunsOnIntegers) {
  Node n;
  n.op_type = "MaxPool";
  n.inputs = {"x"};
  n.attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
  n.attrs["strides"] = std::vector<int64_t>{2, 2};
  const auto out = tauvta::cpu::run_int(one_node_graph(n, {"x"}), {{"x", ints({1, 1, 2, 4}, {-1, -2, 30, 4, -3, -4, 5, 6})}});
  EXPECT_EQ(out.at("y").dtype(), DType::kInt32);
  EXPECT_EQ(out.at("y").to_int64(), (std::vector<int64_t>{-1, 30}));
}

TEST(IntExecutor, ErrorsNameTheNode) {
  Node n = requant_node("QConv", {"x", "w"}, 0, -128, 127);
  n.name = "conv7";
  auto g = one_node_graph(n, {"x", "w"});
  try {
    tauvta::cpu::IntExecutor e(g);
    FAIL() << "expected an error";
  } catch (const tauvta::Error& e) {
    EXPECT_STREQ(e.what(), "node 'conv7' (QConv): weights 'w' must be an initializer");
  }
  Node u;
  u.name = "odd";
  u.op_type = "NoSuchOp";
  u.inputs = {"x"};
  try {
    tauvta::cpu::IntExecutor e(one_node_graph(u, {"x"}));
    FAIL() << "expected an error";
  } catch (const tauvta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'odd' (NoSuchOp)"), std::string::npos) << e.what();
  }
}

}  // namespace
