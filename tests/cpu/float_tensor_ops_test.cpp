// Shape and data-movement operators (Reshape 0/-1/allowzero, Flatten, Squeeze/Unsqueeze in both
// forms, Transpose, Concat, Gather, Slice with negative steps and clamping, Pad modes, Shape,
// Cast, Constant, Dropout), Resize/Upsample nearest, and Quantize/DequantizeLinear.
#include <limits>

#include "common/error.h"
#include "float_test_util.h"

namespace tauvta::cpu {
namespace {

using namespace testing_util;

TEST(FloatTensorOps, ReshapeZeroMinusOneAndAllowZero) {
  Tensor x = iota({2, 3, 4});
  Tensor spec = ints64({0, -1});
  EXPECT_EQ(eval1("Reshape", {&x, &spec}).shape(), (Shape{2, 12}));
  Tensor spec2 = ints64({-1, 0, 2});
  EXPECT_EQ(eval1("Reshape", {&x, &spec2}).shape(), (Shape{4, 3, 2}));
  // allowzero: 0 is a real zero-sized dimension.
  Tensor empty(DType::kFloat32, {0, 3});
  Tensor spec3 = ints64({3, 0});
  EXPECT_EQ(eval1("Reshape", {&empty, &spec3}, {{"allowzero", int64_t(1)}}).shape(), (Shape{3, 0}));
  Tensor bad = ints64({5, -1});
  try {
    eval1("Reshape", {&x, &bad});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "node 'n_Reshape' (Reshape): cannot reshape [2,3,4] to [5,-1]");
  }
}

TEST(FloatTensorOps, FlattenSqueezeUnsqueeze) {
  Tensor x = iota({2, 1, 3, 1});
  EXPECT_EQ(eval1("Flatten", {&x}, {{"axis", int64_t(2)}}).shape(), (Shape{2, 3}));
  EXPECT_EQ(eval1("Flatten", {&x}, {{"axis", int64_t(0)}}).shape(), (Shape{1, 6}));
  EXPECT_EQ(eval1("Squeeze", {&x}).shape(), (Shape{2, 3}));
  Tensor axes = ints64({-1});
  EXPECT_EQ(eval1("Squeeze", {&x, &axes}).shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(eval1("Squeeze", {&x}, {{"axes", std::vector<int64_t>{1}}}, 11).shape(), (Shape{2, 3, 1}));
  Tensor uaxes = ints64({0, -1});
  EXPECT_EQ(eval1("Unsqueeze", {&x, &uaxes}).shape(), (Shape{1, 2, 1, 3, 1, 1}));
  Tensor bad = ints64({0});
  EXPECT_THROW(eval1("Squeeze", {&x, &bad}), Error);
}

TEST(FloatTensorOps, TransposeConcatGather) {
  Tensor x = iota({2, 3});
  Tensor t = eval1("Transpose", {&x});
  EXPECT_TRUE(near(t, {3, 2}, {1, 4, 2, 5, 3, 6}));
  Tensor x3 = iota({2, 1, 3});
  EXPECT_TRUE(near(eval1("Transpose", {&x3}, {{"perm", std::vector<int64_t>{2, 0, 1}}}), {3, 2, 1}, {1, 4, 2, 5, 3, 6}));
  Tensor y = iota({2, 1}, 10);
  EXPECT_TRUE(near(eval1("Concat", {&x, &y}, {{"axis", int64_t(-1)}}), {2, 4}, {1, 2, 3, 10, 4, 5, 6, 11}));
  Tensor idx = Tensor::from_int64(DType::kInt32, {2, 2}, {-1, 0, 1, 1});
  EXPECT_TRUE(near(eval1("Gather", {&x, &idx}, {{"axis", int64_t(1)}}), {2, 2, 2}, {3, 1, 2, 2, 6, 4, 5, 5}));
  Tensor oob = ints64({3});
  EXPECT_THROW(eval1("Gather", {&x, &oob}, {{"axis", int64_t(1)}}), Error);
}

TEST(FloatTensorOps, SliceStepsAndClamping) {
  Tensor x = iota({10});
  Tensor s = ints64({-2}), e = ints64({std::numeric_limits<int64_t>::min()}), a = ints64({0}), st = ints64({-3});
  // From position 8 backwards by 3 to the start: positions 8, 5, 2.
  EXPECT_TRUE(near(eval1("Slice", {&x, &s, &e, &a, &st}), {3}, {9, 6, 3}));
  Tensor s2 = ints64({2}), e2 = ints64({1000});
  EXPECT_TRUE(near(eval1("Slice", {&x, &s2, &e2}), {8}, {3, 4, 5, 6, 7, 8, 9, 10}));
  Tensor m = iota({3, 4});
  Tensor s3 = ints64({1, 3}), e3 = ints64({3, 0}), a3 = ints64({0, 1}), st3 = ints64({1, -2});
  EXPECT_TRUE(near(eval1("Slice", {&m, &s3, &e3, &a3, &st3}), {2, 2}, {8, 6, 12, 10}));
  Tensor s4 = ints64({5}), e4 = ints64({2});
  EXPECT_EQ(eval1("Slice", {&x, &s4, &e4}).shape(), (Shape{0}));
}

TEST(FloatTensorOps, PadModesAndNegativePads) {
  Tensor x = Tensor::from_floats({1, 3}, {1, 2, 3});
  Tensor pads = ints64({0, 2, 0, 1});
  Tensor v = Tensor::scalar_float(9);
  EXPECT_TRUE(near(eval1("Pad", {&x, &pads, &v}), {1, 6}, {9, 9, 1, 2, 3, 9}));
  EXPECT_TRUE(near(eval1("Pad", {&x, &pads}, {{"mode", std::string("reflect")}}), {1, 6}, {3, 2, 1, 2, 3, 2}));
  EXPECT_TRUE(near(eval1("Pad", {&x, &pads}, {{"mode", std::string("edge")}}), {1, 6}, {1, 1, 1, 2, 3, 3}));
  Tensor crop = ints64({0, -1, 1, 0});
  EXPECT_TRUE(near(eval1("Pad", {&x, &crop}), {2, 2}, {2, 3, 0, 0}));
  // Opset 2 attribute form.
  EXPECT_TRUE(near(eval1("Pad", {&x}, {{"pads", std::vector<int64_t>{1, 0, 0, 0}}, {"value", 5.0f}}, 2), {2, 3},
                   {5, 5, 5, 1, 2, 3}));
  Tensor xi = Tensor::from_int64(DType::kInt64, {3}, {1, 2, 3});
  Tensor p1 = ints64({1, 1});
  EXPECT_EQ(eval1("Pad", {&xi, &p1}, {{"mode", std::string("reflect")}}).to_int64(),
            (std::vector<int64_t>{2, 1, 2, 3, 2}));
}

TEST(FloatTensorOps, ShapeCastConstantDropout) {
  Tensor x = iota({2, 3, 4});
  EXPECT_EQ(eval1("Shape", {&x}).to_int64(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(eval1("Shape", {&x}, {{"start", int64_t(-2)}, {"end", int64_t(100)}}).to_int64(),
            (std::vector<int64_t>{3, 4}));
  Tensor f = Tensor::from_floats({3}, {-1.7f, 0.2f, 300.0f});
  EXPECT_EQ(eval1("Cast", {&f}, {{"to", int64_t(7)}}).to_int64(), (std::vector<int64_t>{-1, 0, 300}));
  EXPECT_EQ(eval1("Cast", {&f}, {{"to", int64_t(9)}}).dtype(), DType::kBool);
  try {
    eval1("Cast", {&f}, {{"to", int64_t(10)}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'to' = 10 (FLOAT16) is not a supported dtype"), std::string::npos);
  }
  EXPECT_EQ(eval1("Constant", {}, {{"value_ints", std::vector<int64_t>{4, 5}}}).to_int64(),
            (std::vector<int64_t>{4, 5}));
  std::vector<Tensor> d = eval("Dropout", {&x}, {}, 2);
  EXPECT_EQ(d[0], x);
  EXPECT_EQ(d[1].dtype(), DType::kBool);
  EXPECT_EQ(d[1].to_int64(), std::vector<int64_t>(24, 1));
  Tensor ratio = Tensor::scalar_float(0.3f);
  Tensor training = Tensor::from_int64(DType::kBool, {}, {1});
  EXPECT_THROW(eval("Dropout", {&x, &ratio, &training}), Error);
}

TEST(FloatResize, NearestModesAndCoordinateTransforms) {
  Tensor x = iota({1, 1, 1, 3});
  Tensor scales = Tensor::from_floats({4}, {1, 1, 1, 2});
  auto resize = [&](const std::string& coord, const std::string& nearest) {
    return eval1("Resize", {&x, nullptr, &scales},
                 {{"coordinate_transformation_mode", coord}, {"nearest_mode", nearest}});
  };
  // asymmetric: x_in = o / 2 -> 0, 0.5, 1, 1.5, 2, 2.5
  EXPECT_TRUE(near(resize("asymmetric", "floor"), {1, 1, 1, 6}, {1, 1, 2, 2, 3, 3}));
  EXPECT_TRUE(near(resize("asymmetric", "ceil"), {1, 1, 1, 6}, {1, 2, 2, 3, 3, 3}));
  EXPECT_TRUE(near(resize("asymmetric", "round_prefer_floor"), {1, 1, 1, 6}, {1, 1, 2, 2, 3, 3}));
  EXPECT_TRUE(near(resize("asymmetric", "round_prefer_ceil"), {1, 1, 1, 6}, {1, 2, 2, 3, 3, 3}));
  // half_pixel: x_in = (o + 0.5) / 2 - 0.5 -> -0.25, 0.25, 0.75, 1.25, 1.75, 2.25
  EXPECT_TRUE(near(resize("half_pixel", "round_prefer_floor"), {1, 1, 1, 6}, {1, 1, 2, 2, 3, 3}));
  // align_corners: x_in = o * 2 / 5 -> 0, 0.4, 0.8, 1.2, 1.6, 2
  EXPECT_TRUE(near(resize("align_corners", "round_prefer_floor"), {1, 1, 1, 6}, {1, 1, 2, 2, 3, 3}));
  // tf_half_pixel_for_nn: x_in = (o + 0.5) / 2 -> 0.25, 0.75, 1.25, 1.75, 2.25, 2.75
  EXPECT_TRUE(near(resize("tf_half_pixel_for_nn", "floor"), {1, 1, 1, 6}, {1, 1, 2, 2, 3, 3}));
  // Upsample-9: floor of o / scale whatever the attributes say.
  Tensor s3 = Tensor::from_floats({4}, {1, 1, 2, 3});
  Tensor y = eval1("Upsample", {&x, &s3}, {{"mode", std::string("nearest")}}, 9);
  EXPECT_TRUE(near(y, {1, 1, 2, 9}, {1, 1, 1, 2, 2, 2, 3, 3, 3, 1, 1, 1, 2, 2, 2, 3, 3, 3}));
  // sizes instead of scales: scale 2/3, x_in = o * 1.5 -> 0, 1.5 (rounds down by default).
  Tensor sizes = ints64({1, 1, 1, 2});
  EXPECT_TRUE(near(eval1("Resize", {&x, nullptr, nullptr, &sizes},
                         {{"coordinate_transformation_mode", std::string("asymmetric")}}),
                   {1, 1, 1, 2}, {1, 2}));
}

TEST(FloatResize, LinearHalfPixel) {
  Tensor x = Tensor::from_floats({1, 1, 1, 2}, {0, 4});
  Tensor scales = Tensor::from_floats({4}, {1, 1, 1, 2});
  // half_pixel: -0.25 -> 0 (edge), 0.25 -> 1, 0.75 -> 3, 1.25 -> 4 (edge)
  EXPECT_TRUE(near(eval1("Resize", {&x, nullptr, &scales}, {{"mode", std::string("linear")}}), {1, 1, 1, 4},
                   {0, 1, 3, 4}));
}

TEST(FloatQuant, QuantizeRoundsHalfToEvenAndSaturates) {
  Tensor x = Tensor::from_floats({6}, {0.5f, 1.5f, 2.5f, -0.5f, 1000, -1000});
  Tensor scale = Tensor::scalar_float(1.0f);
  Tensor zp = Tensor::from_int64(DType::kInt8, {}, {0});
  EXPECT_EQ(eval1("QuantizeLinear", {&x, &scale, &zp}).to_int64(), (std::vector<int64_t>{0, 2, 2, 0, 127, -128}));
  Tensor zpu = Tensor::from_int64(DType::kUInt8, {}, {10});
  Tensor q = eval1("QuantizeLinear", {&x, &scale, &zpu});
  EXPECT_EQ(q.dtype(), DType::kUInt8);
  EXPECT_EQ(q.to_int64(), (std::vector<int64_t>{10, 12, 12, 10, 255, 0}));
  EXPECT_TRUE(near(eval1("DequantizeLinear", {&q, &scale, &zpu}), {6}, {0, 2, 2, 0, 245, -10}));
}

TEST(FloatQuant, PerAxis) {
  Tensor x = Tensor::from_floats({1, 2, 2}, {1, 2, 3, 4});
  Tensor scale = Tensor::from_floats({2}, {0.5f, 2.0f});
  Tensor zp = Tensor::from_int64(DType::kUInt8, {2}, {0, 100});
  Tensor q = eval1("QuantizeLinear", {&x, &scale, &zp});
  EXPECT_EQ(q.to_int64(), (std::vector<int64_t>{2, 4, 102, 102}));
  EXPECT_TRUE(near(eval1("DequantizeLinear", {&q, &scale, &zp}), {1, 2, 2}, {1, 2, 4, 4}));
  Tensor s3 = Tensor::from_floats({3}, {1, 1, 1});
  EXPECT_THROW(eval1("QuantizeLinear", {&x, &s3}), Error);
}

}  // namespace
}  // namespace tauvta::cpu
