// Import normalizations (docs/graph.md): older operator versions arrive in the newest form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph/onnx_import.h"
#include "graph/shape_inference.h"
#include "onnx_builder.h"

namespace tauvta::graph {
namespace {

using testing::attr_float;
using testing::attr_floats;
using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::ints;
using testing::ModelBuilder;

using Strings = std::vector<std::string>;

TEST(OnnxNormalize, ClipAttributesBecomeInputs) {
  ModelBuilder b(9);
  b.input("x", {4});
  auto& c = b.node("Clip", {"x"}, {"y"}, "relu6");
  attr_float(c, "min", 0.0f);
  attr_float(c, "max", 6.0f);
  attr_float(b.node("Clip", {"y"}, {"z"}, "upper"), "max", 1.0f);
  b.output("z");
  const Graph g = b.import();
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].inputs, (Strings{"x", "relu6_min", "relu6_max"}));
  EXPECT_TRUE(g.nodes[0].attrs.empty());
  EXPECT_EQ(g.initializers.at("relu6_min"), Tensor::scalar_float(0.0f));
  EXPECT_EQ(g.initializers.at("relu6_max"), Tensor::scalar_float(6.0f));
  EXPECT_EQ(g.nodes[1].inputs, (Strings{"y", "", "upper_max"}));
}

TEST(OnnxNormalize, AxesAttributesBecomeInputs) {
  ModelBuilder b(11);
  b.input("x", {3, 1, 2});
  attr_ints(b.node("Squeeze", {"x"}, {"s"}, "sq"), "axes", {1});
  attr_ints(b.node("Unsqueeze", {"s"}, {"u"}, "unsq"), "axes", {0, -1});
  b.node("Squeeze", {"u"}, {"y"}, "all");
  b.output("y");
  const Graph g = infer_shapes(b.import());
  EXPECT_EQ(g.nodes[0].inputs, (Strings{"x", "sq_axes"}));
  EXPECT_EQ(g.initializers.at("sq_axes"), ints({1}));
  EXPECT_EQ(g.nodes[1].inputs, (Strings{"s", "unsq_axes"}));
  EXPECT_EQ(g.initializers.at("unsq_axes"), ints({0, -1}));
  EXPECT_EQ(g.nodes[2].inputs, (Strings{"u"}));
  EXPECT_EQ(g.info("u")->shape, (Shape{1, 3, 2, 1}));
  EXPECT_EQ(g.info("y")->shape, (Shape{3, 2}));
}

TEST(OnnxNormalize, SliceAndPadAttributesBecomeInputs) {
  ModelBuilder b(9);
  b.input("x", {4, 6});
  auto& s = b.node("Slice", {"x"}, {"s"}, "sl");
  attr_ints(s, "starts", {1});
  attr_ints(s, "ends", {-1});
  attr_ints(s, "axes", {1});
  auto& p = b.node("Pad", {"s"}, {"y"}, "pad");
  attr_ints(p, "pads", {0, 1, 2, 3});
  attr_float(p, "value", 1.5f);
  b.output("y");
  const Graph g = infer_shapes(b.import());
  EXPECT_EQ(g.nodes[0].inputs, (Strings{"x", "sl_starts", "sl_ends", "sl_axes"}));
  EXPECT_EQ(g.initializers.at("sl_ends"), ints({-1}));
  EXPECT_EQ(g.nodes[1].inputs, (Strings{"s", "pad_pads", "pad_value"}));
  EXPECT_EQ(g.initializers.at("pad_pads"), ints({0, 1, 2, 3}));
  EXPECT_EQ(g.initializers.at("pad_value"), Tensor::scalar_float(1.5f));
  EXPECT_EQ(g.nodes[1].attr_string_or("mode", ""), "constant");
  EXPECT_EQ(g.info("s")->shape, (Shape{4, 4}));
  EXPECT_EQ(g.info("y")->shape, (Shape{6, 8}));
}

TEST(OnnxNormalize, DropoutIsIdentityAtInference) {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  b.init("ratio", Tensor::scalar_float(0.5f));
  b.init("train", Tensor::from_int64(DType::kBool, {}, {0}));
  attr_int(b.node("Dropout", {"x", "ratio", "train"}, {"y"}, "d1"), "seed", 3);
  b.node("Dropout", {"y"}, {"z", "mask"}, "d2");
  b.output("z");
  b.output("mask");
  const Graph g = infer_shapes(b.import());
  EXPECT_EQ(g.nodes[0].op_type, "Identity");
  EXPECT_EQ(g.nodes[0].inputs, (Strings{"x"}));
  EXPECT_TRUE(g.nodes[0].attrs.empty());
  EXPECT_EQ(g.nodes[1].op_type, "Dropout");  // the mask is asked for
  EXPECT_EQ(g.nodes[1].inputs, (Strings{"y"}));
  EXPECT_EQ(g.info("mask")->dtype, DType::kBool);
  EXPECT_EQ(g.info("mask")->shape, (Shape{2, 3}));
}

TEST(OnnxNormalize, UpsampleAndOldResizeBecomeNearestResize) {
  for (int64_t opset : {9, 10}) {
    ModelBuilder b(opset);
    b.input("x", {1, 1, 2, 3});
    b.init("scales", Tensor::from_floats({4}, {1, 1, 2, 1.5f}));
    attr_string(b.node(opset == 9 ? "Upsample" : "Resize", {"x", "scales"}, {"y"}, "up"), "mode", "nearest");
    b.output("y");
    const Graph g = infer_shapes(b.import());
    const Node& n = g.nodes.at(0);
    EXPECT_EQ(n.op_type, "Resize");
    EXPECT_EQ(n.inputs, (Strings{"x", "", "scales"}));
    EXPECT_EQ(n.attr_string_or("coordinate_transformation_mode", ""), "asymmetric");
    EXPECT_EQ(n.attr_string_or("nearest_mode", ""), "floor");
    EXPECT_EQ(n.attr_string_or("mode", ""), "nearest");
    EXPECT_EQ(g.info("y")->shape, (Shape{1, 1, 4, 4}));
  }
}

TEST(OnnxNormalize, ResizeElevenDropsRoiAndEmptyScales) {
  ModelBuilder b(11);
  b.input("x", {1, 1, 2, 3});
  b.init("roi", Tensor(DType::kFloat32, {0}));
  b.init("scales", Tensor(DType::kFloat32, {0}));
  b.init("sizes", ints({1, 1, 5, 7}));
  auto& r = b.node("Resize", {"x", "roi", "scales", "sizes"}, {"y"}, "rs");
  attr_string(r, "coordinate_transformation_mode", "align_corners");
  attr_float(r, "cubic_coeff_a", -0.5f);
  b.output("y");
  const Graph g = infer_shapes(b.import());
  const Node& n = g.nodes.at(0);
  EXPECT_EQ(n.inputs, (Strings{"x", "", "", "sizes"}));
  EXPECT_EQ(n.attrs.size(), 3u);
  EXPECT_EQ(n.attr_string_or("coordinate_transformation_mode", ""), "align_corners");
  EXPECT_EQ(n.attr_string_or("nearest_mode", ""), "round_prefer_floor");
  EXPECT_EQ(g.info("y")->shape, (Shape{1, 1, 5, 7}));
}

TEST(OnnxNormalize, BatchNormKeepsOnlyEpsilon) {
  ModelBuilder b(9);
  b.input("x", {1, 2, 3, 3});
  for (const char* p : {"s", "bb", "m", "v"}) b.init(p, Tensor(DType::kFloat32, {2}));
  attr_float(b.node("BatchNormalization", {"x", "s", "bb", "m", "v"}, {"y"}, "bn"), "momentum", 0.8f);
  b.output("y");
  const Graph g = b.import();
  EXPECT_EQ(g.nodes[0].attrs.size(), 1u);
  EXPECT_FLOAT_EQ(g.nodes[0].attr_float("epsilon"), 1e-5f);
}

TEST(OnnxNormalize, DropoutWithRunTimeTrainingModeStaysDropout) {
  ModelBuilder b(13);
  b.input("x", {3, 4}).input("r", {}).input("t", {}, DType::kBool);
  b.init("zero", Tensor::scalar_float(0.0f));
  b.init("on", Tensor::from_int64(DType::kBool, {}, {1}));
  attr_int(b.node("Dropout", {"x", "r", "t"}, {"y", "mask"}, "d1"), "seed", 3);  // run-time training_mode
  b.node("Dropout", {"y", "zero", "on"}, {"z"}, "d2");                           // training with ratio 0
  b.node("Dropout", {"z", "r", "on"}, {"w"}, "d3");                              // training, run-time ratio
  b.output("w");
  b.output("mask");
  const Graph g = infer_shapes(b.import());
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].op_type, "Dropout");
  EXPECT_EQ(g.nodes[0].inputs, (Strings{"x", "r", "t"}));
  EXPECT_EQ(g.nodes[0].outputs, (Strings{"y", "mask"}));
  EXPECT_TRUE(g.nodes[0].attrs.empty());
  EXPECT_EQ(g.info("mask")->dtype, DType::kBool);
  EXPECT_EQ(g.nodes[1].op_type, "Identity");
  EXPECT_EQ(g.nodes[1].inputs, (Strings{"y"}));
  EXPECT_EQ(g.nodes[2].op_type, "Dropout");
  EXPECT_EQ(g.nodes[2].inputs, (Strings{"z", "r", "on"}));
}

TEST(OnnxNormalize, BatchNormTrainingModeKeepsMomentum) {
  ModelBuilder b(15);
  b.input("x", {4, 2, 3, 3});
  for (const char* p : {"s", "bb", "m", "v"}) b.init(p, Tensor(DType::kFloat32, {2}));
  auto& n = b.node("BatchNormalization", {"x", "s", "bb", "m", "v"}, {"y", "rm", "rv"}, "bn");
  attr_int(n, "training_mode", 1);
  attr_float(n, "epsilon", 0.01f);
  b.output("y");
  b.output("rm");
  b.output("rv");
  const Graph g = infer_shapes(b.import());
  const Node& bn = g.nodes.at(0);
  EXPECT_EQ(bn.outputs, (Strings{"y", "rm", "rv"}));
  EXPECT_EQ(bn.attrs.size(), 3u);
  EXPECT_EQ(bn.attr_int("training_mode"), 1);
  EXPECT_FLOAT_EQ(bn.attr_float("momentum"), 0.9f);
  EXPECT_FLOAT_EQ(bn.attr_float("epsilon"), 0.01f);
  EXPECT_EQ(g.info("rm")->shape, (Shape{2}));
  EXPECT_EQ(g.info("rv")->shape, (Shape{2}));
  // training_mode = 0 keeps epsilon only (as BatchNormalization-9).
  ModelBuilder c(15);
  c.input("x", {1, 2});
  for (const char* p : {"s", "bb", "m", "v"}) c.init(p, Tensor(DType::kFloat32, {2}));
  attr_int(c.node("BatchNormalization", {"x", "s", "bb", "m", "v"}, {"y"}, "bn"), "training_mode", 0);
  c.output("y");
  EXPECT_EQ(c.import().nodes.at(0).attrs.size(), 1u);
}

TEST(OnnxNormalize, MaxPoolIndicesKeepStorageOrder) {
  ModelBuilder b(12);
  b.input("x", {1, 2, 4, 4});
  auto& p = b.node("MaxPool", {"x"}, {"y", "idx"}, "mp");
  attr_ints(p, "kernel_shape", {2, 2});
  attr_ints(p, "strides", {2, 2});
  attr_int(p, "storage_order", 1);
  auto& q = b.node("MaxPool", {"y"}, {"z"}, "mp2");
  attr_ints(q, "kernel_shape", {2, 2});
  attr_int(q, "storage_order", 1);  // no Indices: dropped
  b.output("z");
  b.output("idx");
  const Graph g = infer_shapes(b.import());
  EXPECT_EQ(g.nodes[0].outputs, (Strings{"y", "idx"}));
  EXPECT_EQ(g.nodes[0].attr_int("storage_order"), 1);
  EXPECT_FALSE(g.nodes[1].has_attr("storage_order"));
  EXPECT_EQ(g.info("idx")->dtype, DType::kInt64);
  EXPECT_EQ(g.info("idx")->shape, (Shape{1, 2, 2, 2}));
}

TEST(OnnxNormalize, ResizeInterpolationKeepsTheAttributesItReads) {
  ModelBuilder b(13);
  b.input("x", {1, 1, 4, 4}).input("roi", {8});
  b.init("scales", Tensor::from_floats({4}, {1, 1, 2, 2}));
  b.init("sizes", ints({1, 1, 3, 3}));
  auto& lin = b.node("Resize", {"x", "roi", "scales"}, {"a"}, "lin");
  attr_string(lin, "mode", "linear");
  attr_string(lin, "nearest_mode", "floor");  // not read by linear
  attr_float(lin, "cubic_coeff_a", -0.5f);    // not read by linear
  auto& cub = b.node("Resize", {"x", "", "scales"}, {"c"}, "cub");
  attr_string(cub, "mode", "cubic");
  attr_string(cub, "coordinate_transformation_mode", "align_corners");
  attr_int(cub, "exclude_outside", 1);
  auto& crop = b.node("Resize", {"x", "roi", "", "sizes"}, {"t"}, "crop");
  attr_string(crop, "mode", "linear");
  attr_string(crop, "coordinate_transformation_mode", "tf_crop_and_resize");
  attr_float(crop, "extrapolation_value", 10.0f);
  b.output("a");
  b.output("c");
  b.output("t");
  const Graph g = infer_shapes(b.import());
  EXPECT_EQ(print_graph(g),
            "graph test (opset 13)\n"
            "input  x: float32[1,1,4,4]\n"
            "input  roi: float32[8]\n"
            "init   scales: float32[4]\n"
            "init   sizes: int64[4]\n"
            "node   lin = Resize(x, , scales) {coordinate_transformation_mode=\"half_pixel\", mode=\"linear\"} -> a: float32[1,1,8,8]\n"
            "node   cub = Resize(x, , scales) {coordinate_transformation_mode=\"align_corners\", cubic_coeff_a=-0.75, "
            "exclude_outside=1, mode=\"cubic\"} -> c: float32[1,1,8,8]\n"
            "node   crop = Resize(x, roi, , sizes) {coordinate_transformation_mode=\"tf_crop_and_resize\", "
            "extrapolation_value=10, mode=\"linear\"} -> t: float32[1,1,3,3]\n"
            "output a\n"
            "output c\n"
            "output t\n");
}

TEST(OnnxNormalize, LegacySoftmaxOverTheLastAxisStaysOneNode) {
  ModelBuilder b(11);
  b.input("x", {-1, 10});
  b.node("Softmax", {"x"}, {"y"}, "sm");  // default axis 1 = last axis of a 2-D input
  b.output("y");
  const Graph g = b.import();
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].attr_int("axis"), -1);
}

TEST(OnnxNormalize, LegacySoftmaxOverLeadingAxesFlattens) {
  ModelBuilder b(11);
  b.input("x", {2, 3, 4});
  b.node("Softmax", {"x"}, {"y"}, "sm");  // softmax over the 12 values of each batch row
  b.output("y");
  const Graph g = infer_shapes(b.import());
  ASSERT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(print_graph(g),
            "graph test (opset 11)\n"
            "input  x: float32[2,3,4]\n"
            "node   sm_flatten = Flatten(x) {axis=1} -> sm_flat: float32[2,12]\n"
            "node   sm = Softmax(sm_flat) {axis=-1} -> sm_2d: float32[2,12]\n"
            "node   sm_shape_1 = Shape(x) -> sm_shape: int64[3]\n"
            "node   sm_reshape = Reshape(sm_2d, sm_shape) -> y: float32[2,3,4]\n"
            "output y\n");
}

TEST(OnnxNormalize, Opset13FormsPassThrough) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 2}).input("lo", {});
  b.init("axes", ints({0}));
  b.node("Unsqueeze", {"x", "axes"}, {"u"}, "u");
  b.node("Clip", {"u", "lo"}, {"y"}, "c");
  b.output("y");
  const Graph g = infer_shapes(b.import());
  EXPECT_EQ(g.nodes[0].inputs, (Strings{"x", "axes"}));
  EXPECT_EQ(g.nodes[1].inputs, (Strings{"u", "lo"}));
  EXPECT_EQ(g.info("y")->shape, (Shape{1, 1, 3, 2}));
}

}  // namespace
}  // namespace tauvta::graph
