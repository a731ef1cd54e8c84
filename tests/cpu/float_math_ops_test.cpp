// The operators the edge models added (HardSigmoid/HardSwish, Div/Mod/Pow/Max/Min, comparisons
// and Where, the Reduce family, LayerNormalization, and the shape-operand generators), each on
// hand-computed values, plus the edge cases ONNX's node tests do not pin: integer division and
// modulo signs, division by zero, NaN in Max, noop_with_empty_axes, broadcast Where.
#include <cmath>
#include <functional>
#include <limits>

#include "common/error.h"
#include "float_test_util.h"
#include "common/error_of.h"

namespace tauvta::cpu {
namespace {

using namespace testing_util;

using tauvta::testing::error_of;

TEST(FloatMathOps, HardSigmoidAndHardSwish) {
  Tensor x = Tensor::from_floats({5}, {-4, -3, 0, 1.5f, 4});
  // torch's hardsigmoid: alpha 1/6, beta 0.5; ONNX default alpha 0.2.
  EXPECT_TRUE(near(eval1("HardSigmoid", {&x}, {{"alpha", 1.0f / 6}, {"beta", 0.5f}}), {5}, {0, 0, 0.5f, 0.75f, 1}));
  EXPECT_TRUE(near(eval1("HardSigmoid", {&x}), {5}, {0, 0, 0.5f, 0.8f, 1}));
  EXPECT_TRUE(near(eval1("HardSwish", {&x}), {5}, {0, 0, 0, 1.125f, 4}));
}

TEST(FloatMathOps, UnaryFunctions) {
  Tensor x = Tensor::from_floats({3}, {0.25f, 1, 4});
  EXPECT_TRUE(near(eval1("Sqrt", {&x}), {3}, {0.5f, 1, 2}));
  EXPECT_TRUE(near(eval1("Reciprocal", {&x}), {3}, {4, 1, 0.25f}));
  EXPECT_TRUE(near(eval1("Log", {&x}), {3}, {std::log(0.25f), 0, std::log(4.0f)}));
  EXPECT_TRUE(near(eval1("Erf", {&x}), {3}, {std::erf(0.25f), std::erf(1.0f), std::erf(4.0f)}));
  Tensor i = Tensor::from_int64(DType::kInt8, {3}, {-128, -5, 7});
  EXPECT_EQ(eval1("Abs", {&i}).to_int64(), (std::vector<int64_t>{-128, 5, 7}));  // wraps at min, as NumPy
  EXPECT_EQ(eval1("Neg", {&i}).to_int64(), (std::vector<int64_t>{-128, 5, -7}));
}

TEST(FloatMathOps, IntegerDivisionTruncatesAndModFollowsTheDivisor) {
  Tensor a = Tensor::from_int64(DType::kInt64, {4}, {7, -7, 7, -7});
  Tensor b = Tensor::from_int64(DType::kInt64, {4}, {2, 2, -2, -2});
  EXPECT_EQ(eval1("Div", {&a, &b}).to_int64(), (std::vector<int64_t>{3, -3, -3, 3}));
  EXPECT_EQ(eval1("Mod", {&a, &b}).to_int64(), (std::vector<int64_t>{1, 1, -1, -1}));  // Python's %
  EXPECT_EQ(eval1("Mod", {&a, &b}, {{"fmod", int64_t(1)}}).to_int64(), (std::vector<int64_t>{1, -1, 1, -1}));
  Tensor z = Tensor::from_int64(DType::kInt64, {1}, {0});
  EXPECT_EQ(error_of([&] { eval1("Div", {&a, &z}); }), "node 'n_Div' (Div): integer division by zero");
  Tensor f = Tensor::from_floats({2}, {7, -7});
  Tensor g = Tensor::from_floats({1}, {2});
  EXPECT_TRUE(near(eval1("Div", {&f, &g}), {2}, {3.5f, -3.5f}));
  EXPECT_EQ(error_of([&] { eval1("Mod", {&f, &g}); }), "node 'n_Mod' (Mod): a floating-point Mod needs fmod=1");
}

TEST(FloatMathOps, PowTakesAnotherExponentDtype) {
  Tensor x = Tensor::from_floats({3}, {2, 3, 4});
  Tensor e = Tensor::from_int64(DType::kInt64, {1}, {2});
  EXPECT_TRUE(near(eval1("Pow", {&x, &e}), {3}, {4, 9, 16}));
  Tensor i = Tensor::from_int64(DType::kInt32, {2}, {3, -2});
  Tensor h = Tensor::from_floats({1}, {3});
  EXPECT_EQ(eval1("Pow", {&i, &h}).to_int64(), (std::vector<int64_t>{27, -8}));
}

TEST(FloatMathOps, MaxMinAreVariadicAndPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor a = Tensor::from_floats({3}, {1, nan, 5});
  Tensor b = Tensor::from_floats({1}, {2});
  Tensor c = Tensor::from_floats({3}, {0, 0, 9});
  const Tensor mx = eval1("Max", {&a, &b, &c});
  EXPECT_EQ(mx.floats()[0], 2);
  EXPECT_TRUE(std::isnan(mx.floats()[1]));
  EXPECT_EQ(mx.floats()[2], 9);
  EXPECT_TRUE(near(eval1("Min", {&c, &b}), {3}, {0, 0, 2}));
}

TEST(FloatMathOps, ComparisonsLogicAndWhere) {
  Tensor a = Tensor::from_int64(DType::kInt64, {2, 1}, {1, 3});
  Tensor b = Tensor::from_int64(DType::kInt64, {3}, {1, 2, 3});
  EXPECT_EQ(eval1("Equal", {&a, &b}).to_int64(), (std::vector<int64_t>{1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(eval1("Greater", {&a, &b}).to_int64(), (std::vector<int64_t>{0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(eval1("LessOrEqual", {&a, &b}).to_int64(), (std::vector<int64_t>{1, 1, 1, 0, 0, 1}));
  const Tensor eq = eval1("Equal", {&a, &b});
  EXPECT_EQ(eval1("Not", {&eq}).to_int64(), (std::vector<int64_t>{0, 1, 1, 1, 1, 0}));
  // Where broadcasts all three: cond [2,3], x [3], y scalar.
  Tensor x = Tensor::from_floats({3}, {10, 20, 30});
  Tensor y = Tensor::scalar_float(-1);
  EXPECT_TRUE(near(eval1("Where", {&eq, &x, &y}), {2, 3}, {10, -1, -1, -1, -1, 30}));
}

TEST(FloatMathOps, ReductionsOverAxes) {
  Tensor x = iota({2, 3, 2});  // 1..12
  EXPECT_TRUE(near(eval1("ReduceMean", {&x}, {{"axes", std::vector<int64_t>{1, 2}}, {"keepdims", int64_t(0)}}), {2},
                   {3.5f, 9.5f}));
  EXPECT_TRUE(near(eval1("ReduceMax", {&x}, {{"axes", std::vector<int64_t>{-1}}}), {2, 3, 1}, {2, 4, 6, 8, 10, 12}));
  EXPECT_TRUE(near(eval1("ReduceSum", {&x}), {1, 1, 1}, {78}));
  Tensor axes = ints64({0});
  EXPECT_TRUE(near(eval1("ReduceSum", {&x, &axes}, {{"keepdims", int64_t(0)}}), {3, 2}, {8, 10, 12, 14, 16, 18}));
  Tensor none = ints64({});
  EXPECT_TRUE(near(eval1("ReduceSum", {&x, &none}, {{"noop_with_empty_axes", int64_t(1)}}), {2, 3, 2},
                   std::vector<float>(x.floats().begin(), x.floats().end())));
  Tensor big = Tensor::from_floats({2}, {1000, 1000});
  EXPECT_TRUE(near(eval1("ReduceLogSumExp", {&big}), {1}, {1000 + std::log(2.0f)}));  // no overflow
  EXPECT_TRUE(near(eval1("ReduceL2", {&x}, {{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t(0)}}), {2, 3},
                   {std::sqrt(5.0f), 5, std::sqrt(61.0f), std::sqrt(113.0f), std::sqrt(181.0f), std::sqrt(265.0f)}));
  Tensor i = Tensor::from_int64(DType::kInt64, {3}, {-3, 4, 0});
  EXPECT_EQ(eval1("ReduceMean", {&i}).to_int64(), (std::vector<int64_t>{0}));  // 1/3 truncates
  EXPECT_EQ(error_of([&] { eval1("ReduceMean", {&x}, {{"axes", std::vector<int64_t>{1, 1}}}); }),
            "node 'n_ReduceMean' (ReduceMean): axis 1 is reduced twice");
}

TEST(FloatMathOps, LayerNormalizationOverTheLastAxes) {
  Tensor x = Tensor::from_floats({2, 2}, {1, 3, -2, 2});
  Tensor scale = Tensor::from_floats({2}, {1, 2});
  Tensor bias = Tensor::from_floats({2}, {0, 1});
  const std::vector<Tensor> out = eval("LayerNormalization", {&x, &scale, &bias}, {{"epsilon", 0.0f}}, 3);
  EXPECT_TRUE(near(out[0], {2, 2}, {-1, 3, -1, 3}));
  EXPECT_TRUE(near(out[1], {2, 1}, {2, 0}));
  EXPECT_TRUE(near(out[2], {2, 1}, {1, 0.5f}));
  Tensor three = iota({1, 2, 2});  // normalized over both axes
  const Tensor y = eval1("LayerNormalization", {&three, &scale}, {{"axis", int64_t(1)}, {"epsilon", 0.0f}});
  const float s = 1 / std::sqrt(1.25f);
  EXPECT_TRUE(near(y, {1, 2, 2}, {-1.5f * s, -0.5f * s * 2, 0.5f * s, 1.5f * s * 2}));
}

TEST(FloatMathOps, GeneratorsFromShapeOperands) {
  Tensor shape = ints64({2, 3});
  graph::Tensor seven = Tensor::from_int64(DType::kInt64, {1}, {7});
  const Tensor c = eval1("ConstantOfShape", {&shape}, {{"value", seven}});
  EXPECT_EQ(c.dtype(), DType::kInt64);
  EXPECT_EQ(c.to_int64(), std::vector<int64_t>(6, 7));
  EXPECT_TRUE(near(eval1("ConstantOfShape", {&shape}), {2, 3}, std::vector<float>(6, 0)));
  Tensor s = Tensor::scalar_float(1), l = Tensor::scalar_float(2), d = Tensor::scalar_float(0.25f);
  EXPECT_TRUE(near(eval1("Range", {&s, &l, &d}), {4}, {1, 1.25f, 1.5f, 1.75f}));
  Tensor down = Tensor::scalar_float(-1);
  EXPECT_TRUE(near(eval1("Range", {&s, &l, &down}), {0}, {}));
  Tensor x = Tensor::from_floats({3, 1}, {1, 2, 3});
  Tensor to = ints64({2, 1, 2});
  EXPECT_TRUE(near(eval1("Expand", {&x, &to}), {2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  Tensor m = iota({2, 2});
  Tensor reps = ints64({1, 2});
  EXPECT_TRUE(near(eval1("Tile", {&m, &reps}), {2, 4}, {1, 2, 1, 2, 3, 4, 3, 4}));
  Tensor row = iota({2, 5});
  Tensor sizes = ints64({2, 3});
  const std::vector<Tensor> parts = eval("Split", {&row, &sizes}, {{"axis", int64_t(1)}}, 2);
  EXPECT_TRUE(near(parts[0], {2, 2}, {1, 2, 6, 7}));
  EXPECT_TRUE(near(parts[1], {2, 3}, {3, 4, 5, 8, 9, 10}));
  const std::vector<Tensor> halves = eval("Split", {&m}, {}, 2);
  EXPECT_TRUE(near(halves[1], {1, 2}, {3, 4}));
  EXPECT_EQ(error_of([&] { eval("Split", {&row}, {{"axis", int64_t(1)}}, 2); }),
            "node 'n_Split' (Split): dimension 1 of size 5 does not split into 2 equal parts");
}

TEST(FloatMathOps, ScatterNDReplacesAndAccumulates) {
  Tensor data = iota({2, 3});
  Tensor idx = Tensor::from_int64(DType::kInt64, {2, 2}, {0, 1, -1, 2});
  Tensor upd = Tensor::from_floats({2}, {10, 20});
  EXPECT_TRUE(near(eval1("ScatterND", {&data, &idx, &upd}), {2, 3}, {1, 10, 3, 4, 5, 20}));
  EXPECT_TRUE(near(eval1("ScatterND", {&data, &idx, &upd}, {{"reduction", std::string("add")}}), {2, 3},
                   {1, 12, 3, 4, 5, 26}));
  Tensor rows = Tensor::from_int64(DType::kInt64, {1, 1}, {1});
  Tensor row = Tensor::from_floats({1, 3}, {7, 8, 9});
  EXPECT_TRUE(near(eval1("ScatterND", {&data, &rows, &row}), {2, 3}, {1, 2, 3, 7, 8, 9}));
  Tensor bad = Tensor::from_int64(DType::kInt64, {1, 1}, {2});
  EXPECT_EQ(error_of([&] { eval1("ScatterND", {&data, &bad, &row}); }),
            "node 'n_ScatterND' (ScatterND): index 2 is out of range for axis 0 of size 2");
}

}  // namespace
}  // namespace tauvta::cpu
