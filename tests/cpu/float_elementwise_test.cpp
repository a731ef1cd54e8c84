// Elementwise operators: NumPy broadcasting in every pattern the runs take (same shape, scalar,
// inner and outer broadcast, both sides), integer wrapping, PRelu slopes, Clip forms, Softmax
// axis semantics by opset, BatchNormalization.
#include "common/error.h"
#include "float_test_util.h"

namespace tauvta::cpu {
namespace {

using namespace testing_util;

// out[idx] = a[broadcast idx] + b[broadcast idx], written out for a [2,3,1] + [1,4] pair.
TEST(FloatElementwise, AddBroadcastsBothOperands) {
  Tensor a = iota({2, 3, 1}, 0.0f, 10.0f);  // 0, 10, ..., 50
  Tensor b = iota({1, 4}, 0.0f);            // 0, 1, 2, 3
  std::vector<float> expected;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 4; ++j) expected.push_back(float(10 * i + j));
  }
  EXPECT_TRUE(near(eval1("Add", {&a, &b}), {2, 3, 4}, expected));
}

TEST(FloatElementwise, SubAndMulPatterns) {
  Tensor s = Tensor::from_floats({1}, {10});
  Tensor m = iota({2, 2});
  EXPECT_TRUE(near(eval1("Sub", {&s, &m}), {2, 2}, {9, 8, 7, 6}));
  EXPECT_TRUE(near(eval1("Sub", {&m, &s}), {2, 2}, {-9, -8, -7, -6}));
  Tensor col = Tensor::from_floats({3, 1, 2}, {1, 2, 3, 4, 5, 6});
  Tensor row = Tensor::from_floats({2}, {10, 100});
  EXPECT_TRUE(near(eval1("Mul", {&col, &row}), {3, 1, 2}, {10, 200, 30, 400, 50, 600}));
  // Per-channel [C,1,1] against NCHW, the pattern of folded batch norms.
  Tensor x = iota({1, 2, 2, 2});
  Tensor c = Tensor::from_floats({2, 1, 1}, {1, -1});
  EXPECT_TRUE(near(eval1("Mul", {&x, &c}), {1, 2, 2, 2}, {1, 2, 3, 4, -5, -6, -7, -8}));
  Tensor scalar = Tensor::scalar_float(2);
  EXPECT_TRUE(near(eval1("Mul", {&scalar, &scalar}), {}, {4}));
}

TEST(FloatElementwise, IntegersWrapLikeNumPy) {
  Tensor a = Tensor::from_int64(DType::kUInt8, {3}, {200, 0, 255});
  Tensor b = Tensor::from_int64(DType::kUInt8, {3}, {100, 1, 255});
  EXPECT_EQ(eval1("Add", {&a, &b}).to_int64(), (std::vector<int64_t>{44, 1, 254}));
  EXPECT_EQ(eval1("Sub", {&b, &a}).to_int64(), (std::vector<int64_t>{156, 1, 0}));
  EXPECT_EQ(eval1("Mul", {&a, &b}).to_int64(), (std::vector<int64_t>{32, 0, 1}));
  Tensor i = Tensor::from_int64(DType::kInt32, {1}, {2147483647});
  Tensor one = Tensor::from_int64(DType::kInt32, {1}, {1});
  EXPECT_EQ(eval1("Add", {&i, &one}).to_int64(), (std::vector<int64_t>{-2147483648LL}));
  Tensor l = Tensor::from_int64(DType::kInt64, {2}, {3, -4});
  Tensor l2 = Tensor::from_int64(DType::kInt64, {1}, {-5});
  EXPECT_EQ(eval1("Mul", {&l, &l2}).to_int64(), (std::vector<int64_t>{-15, 20}));
}

// Sum and Mean take any number of operands, broadcast together, added left to right in their
// dtype (integers wrap); Mean then divides by the operand count.
TEST(FloatElementwise, SumAndMeanOfManyOperands) {
  Tensor a = Tensor::from_floats({2, 1}, {1, 2});
  Tensor b = Tensor::from_floats({3}, {10, 20, 30});
  Tensor c = Tensor::scalar_float(100);
  EXPECT_TRUE(near(eval1("Sum", {&a, &b, &c}), {2, 3}, {111, 121, 131, 112, 122, 132}));
  EXPECT_TRUE(near(eval1("Mean", {&a, &b, &c}), {2, 3}, {37, 121.0f / 3, 131.0f / 3, 112.0f / 3, 122.0f / 3, 44}));
  EXPECT_TRUE(near(eval1("Sum", {&b}), {3}, {10, 20, 30}));
  EXPECT_TRUE(near(eval1("Mean", {&b}), {3}, {10, 20, 30}));
  Tensor u = Tensor::from_int64(DType::kUInt8, {2}, {200, 1});
  EXPECT_EQ(eval1("Sum", {&u, &u, &u}).to_int64(), (std::vector<int64_t>{88, 3}));
  try {
    eval1("Mean", {&u, &u});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'n_Mean' (Mean)"), std::string::npos) << e.what();
  }
  Tensor i = Tensor::from_int64(DType::kInt64, {3}, {1, 2, 3});
  try {
    eval1("Sum", {&b, &i});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "node 'n_Sum' (Sum): operands have different dtypes (float32 and int64)");
  }
}

TEST(FloatElementwise, MixedDtypesAreAnError) {
  Tensor a = iota({2});
  Tensor b = Tensor::from_int64(DType::kInt64, {2}, {1, 2});
  try {
    eval1("Add", {&a, &b});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "node 'n_Add' (Add): operands have different dtypes (float32 and int64)");
  }
  Tensor c = iota({3});
  try {
    eval1("Add", {&a, &c});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "node 'n_Add' (Add): shapes [2] and [3] do not broadcast");
  }
}

TEST(FloatElementwise, Activations) {
  Tensor x = Tensor::from_floats({4}, {-2, -0.5f, 0, 3});
  EXPECT_TRUE(near(eval1("Relu", {&x}), {4}, {0, 0, 0, 3}));
  EXPECT_TRUE(near(eval1("LeakyRelu", {&x}, {{"alpha", 0.1f}}), {4}, {-0.2f, -0.05f, 0, 3}));
  EXPECT_TRUE(near(eval1("LeakyRelu", {&x}), {4}, {-0.02f, -0.005f, 0, 3}));
  EXPECT_TRUE(near(eval1("Sigmoid", {&x}), {4}, {0.11920292f, 0.37754067f, 0.5f, 0.95257413f}));
  EXPECT_TRUE(near(eval1("Tanh", {&x}), {4}, {-0.96402758f, -0.46211716f, 0, 0.99505475f}));
  Tensor big = Tensor::from_floats({2}, {-1000, 1000});
  EXPECT_TRUE(near(eval1("Sigmoid", {&big}), {2}, {0, 1}));
}

TEST(FloatElementwise, PReluSlopeBroadcastsPerChannel) {
  Tensor x = Tensor::from_floats({1, 2, 1, 2}, {-1, 2, -3, 4});
  Tensor slope = Tensor::from_floats({2, 1, 1}, {0.5f, 0.25f});
  EXPECT_TRUE(near(eval1("PRelu", {&x, &slope}), {1, 2, 1, 2}, {-0.5f, 2, -0.75f, 4}));
  Tensor bad = Tensor::from_floats({2, 2, 1, 2}, std::vector<float>(8, 1));
  EXPECT_THROW(eval1("PRelu", {&x, &bad}), Error);  // the slope may not grow the output
}

TEST(FloatElementwise, ClipInputAndAttributeForms) {
  Tensor x = Tensor::from_floats({5}, {-3, -1, 2, 6, 7});
  Tensor lo = Tensor::scalar_float(0), hi = Tensor::scalar_float(6);
  EXPECT_TRUE(near(eval1("Clip", {&x, &lo, &hi}), {5}, {0, 0, 2, 6, 6}));       // ReLU6
  EXPECT_TRUE(near(eval1("Clip", {&x, nullptr, &hi}), {5}, {-3, -1, 2, 6, 6}));  // max only
  EXPECT_TRUE(near(eval1("Clip", {&x, &lo}), {5}, {0, 0, 2, 6, 7}));             // min only
  EXPECT_TRUE(near(eval1("Clip", {&x}, {{"min", -1.0f}, {"max", 1.0f}}, 6), {5}, {-1, -1, 1, 1, 1}));
  Tensor xi = Tensor::from_int64(DType::kInt8, {3}, {-128, 0, 127});
  Tensor loi = Tensor::from_int64(DType::kInt8, {}, {-5});
  EXPECT_EQ(eval1("Clip", {&xi, &loi}).to_int64(), (std::vector<int64_t>{-5, 0, 127}));
}

TEST(FloatElementwise, SoftmaxAxisSemanticsFollowTheOpset) {
  Tensor x = Tensor::from_floats({2, 2}, {0, 0, 0, 0});
  Tensor x3 = Tensor::from_floats({1, 2, 2}, {0, 0, 0, std::log(3.0f)});
  // Opset 13: along axis 1 only -> columns {0, 0} and {0, ln 3}.
  EXPECT_TRUE(near(eval1("Softmax", {&x3}, {{"axis", int64_t(1)}}, 13), {1, 2, 2}, {0.5f, 0.25f, 0.5f, 0.75f}));
  // Opset 11: coerced to [1, 4] at axis 1 -> one softmax over all four: 1/6, 1/6, 1/6, 3/6.
  EXPECT_TRUE(near(eval1("Softmax", {&x3}, {{"axis", int64_t(1)}}, 11), {1, 2, 2},
                   {1 / 6.0f, 1 / 6.0f, 1 / 6.0f, 0.5f}));
  EXPECT_TRUE(near(eval1("Softmax", {&x}), {2, 2}, {0.5f, 0.5f, 0.5f, 0.5f}));
  Tensor large = Tensor::from_floats({3}, {1000, 1000, -1000});
  EXPECT_TRUE(near(eval1("Softmax", {&large}), {3}, {0.5f, 0.5f, 0}));
}

TEST(FloatElementwise, BatchNormalizationInference) {
  Tensor x = Tensor::from_floats({1, 2, 1, 2}, {1, 3, 10, 20});
  Tensor scale = Tensor::from_floats({2}, {2, 1});
  Tensor bias = Tensor::from_floats({2}, {1, 0});
  Tensor mean = Tensor::from_floats({2}, {2, 10});
  Tensor var = Tensor::from_floats({2}, {4, 25});
  Tensor y = eval1("BatchNormalization", {&x, &scale, &bias, &mean, &var}, {{"epsilon", 0.0f}});
  EXPECT_TRUE(near(y, {1, 2, 1, 2}, {0, 2, 0, 2}));
}

}  // namespace
}  // namespace tauvta::cpu
