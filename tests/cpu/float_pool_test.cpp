// Pooling: ceil_mode, count_include_pad (with ceil windows that run past the padding), dilation,
// the Indices output of MaxPool and the global pools, against hand-computed values.
#include "common/error.h"
#include "float_test_util.h"

namespace tauvta::cpu {
namespace {

using namespace testing_util;

TEST(FloatPool, MaxPoolCeilModeKeepsThePartialWindows) {
  Tensor x = iota({1, 1, 4, 4});
  const std::map<std::string, AttrValue> attrs = {{"kernel_shape", std::vector<int64_t>{3, 3}},
                                                  {"strides", std::vector<int64_t>{2, 2}}};
  EXPECT_TRUE(near(eval1("MaxPool", {&x}, attrs), {1, 1, 1, 1}, {11}));
  auto ceil = attrs;
  ceil["ceil_mode"] = int64_t(1);
  EXPECT_TRUE(near(eval1("MaxPool", {&x}, ceil), {1, 1, 2, 2}, {11, 12, 15, 16}));
  // Partial windows average over the elements they cover.
  EXPECT_TRUE(near(eval1("AveragePool", {&x}, ceil), {1, 1, 2, 2}, {6, 7.5f, 12, 13.5f}));
}

TEST(FloatPool, CeilModeDropsAWindowThatWouldStartInTheEndPadding) {
  // in 5, kernel 2, stride 2, pads 1+1: ceil((5 + 2 - 2) / 2) + 1 = 4 windows, but the fourth
  // would start at position 5, inside the end padding; windows [-1,0], [1,2], [3,4] remain.
  Tensor x = iota({1, 1, 5});
  Tensor y = eval1("MaxPool", {&x},
                   {{"kernel_shape", std::vector<int64_t>{2}},
                    {"strides", std::vector<int64_t>{2}},
                    {"pads", std::vector<int64_t>{1, 1}},
                    {"ceil_mode", int64_t(1)}});
  EXPECT_TRUE(near(y, {1, 1, 3}, {1, 3, 5}));
}

TEST(FloatPool, CountIncludePad) {
  Tensor x = Tensor::from_floats({1, 1, 2, 2}, {1, 2, 3, 4});
  std::map<std::string, AttrValue> attrs = {{"kernel_shape", std::vector<int64_t>{2, 2}},
                                            {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
  EXPECT_TRUE(near(eval1("AveragePool", {&x}, attrs), {1, 1, 3, 3}, {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4}));
  attrs["count_include_pad"] = int64_t(1);
  EXPECT_TRUE(near(eval1("AveragePool", {&x}, attrs), {1, 1, 3, 3},
                   {0.25f, 0.75f, 0.5f, 1, 2.5f, 1.5f, 0.75f, 1.75f, 1}));
}

TEST(FloatPool, CountIncludePadStopsAtThePaddingInCeilMode) {
  // 1-D: x = 1..5, kernel 3, stride 2, pads [1, 0], ceil_mode: windows [-1,1], [1,3], [3,5].
  // The last one covers 4, 5 and the position past the end, which is not padding: divisor 2.
  Tensor x = iota({1, 1, 5});
  Tensor y = eval1("AveragePool", {&x},
                   {{"kernel_shape", std::vector<int64_t>{3}},
                    {"strides", std::vector<int64_t>{2}},
                    {"pads", std::vector<int64_t>{1, 0}},
                    {"ceil_mode", int64_t(1)},
                    {"count_include_pad", int64_t(1)}});
  EXPECT_TRUE(near(y, {1, 1, 3}, {1, 3, 4.5f}));
}

TEST(FloatPool, DilatedMaxPoolAndIndices) {
  Tensor x = Tensor::from_floats({1, 1, 3, 3}, {9, 1, 2, 3, 4, 8, 5, 6, 7});
  std::vector<Tensor> out = eval("MaxPool", {&x},
                                 {{"kernel_shape", std::vector<int64_t>{2, 2}},
                                  {"dilations", std::vector<int64_t>{2, 2}}},
                                 2);
  // One window: x[0][0], x[0][2], x[2][0], x[2][2] = 9, 2, 5, 7.
  EXPECT_TRUE(near(out[0], {1, 1, 1, 1}, {9}));
  EXPECT_EQ(out[1].to_int64(), std::vector<int64_t>{0});
  // Column-major indices (storage_order 1) for the max at row 1, column 2 of a 2x3 plane.
  Tensor x2 = Tensor::from_floats({1, 1, 2, 3}, {0, 0, 0, 0, 0, 5});
  out = eval("MaxPool", {&x2}, {{"kernel_shape", std::vector<int64_t>{2, 3}}, {"storage_order", int64_t(1)}}, 2);
  EXPECT_EQ(out[1].to_int64(), std::vector<int64_t>{2 * 2 + 1});
}

TEST(FloatPool, AutoPadSameUpperAndLower) {
  Tensor x = iota({1, 1, 1, 4});
  std::map<std::string, AttrValue> attrs = {{"kernel_shape", std::vector<int64_t>{1, 2}},
                                            {"auto_pad", std::string("SAME_UPPER")}};
  EXPECT_TRUE(near(eval1("MaxPool", {&x}, attrs), {1, 1, 1, 4}, {2, 3, 4, 4}));
  attrs["auto_pad"] = std::string("SAME_LOWER");
  EXPECT_TRUE(near(eval1("MaxPool", {&x}, attrs), {1, 1, 1, 4}, {1, 2, 3, 4}));
}

TEST(FloatPool, MaxPoolIntegers) {
  Tensor x = Tensor::from_int64(DType::kInt8, {1, 1, 2, 2}, {-5, -7, -1, -9});
  Tensor y = eval1("MaxPool", {&x}, {{"kernel_shape", std::vector<int64_t>{2, 2}}});
  EXPECT_EQ(y.dtype(), DType::kInt8);
  EXPECT_EQ(y.to_int64(), std::vector<int64_t>{-1});
}

TEST(FloatPool, GlobalPools) {
  Tensor x = iota({2, 2, 2, 2});
  EXPECT_TRUE(near(eval1("GlobalAveragePool", {&x}), {2, 2, 1, 1}, {2.5f, 6.5f, 10.5f, 14.5f}));
  EXPECT_TRUE(near(eval1("GlobalMaxPool", {&x}), {2, 2, 1, 1}, {4, 8, 12, 16}));
}

TEST(FloatPool, WindowLargerThanInputIsAnError) {
  Tensor x = iota({1, 1, 2, 2});
  try {
    eval1("MaxPool", {&x}, {{"kernel_shape", std::vector<int64_t>{3, 3}}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "node 'n_MaxPool' (MaxPool): the window (extent 3) is larger than spatial dimension 0 of "
              "size 2 plus padding 0+0");
  }
}

}  // namespace
}  // namespace tauvta::cpu
