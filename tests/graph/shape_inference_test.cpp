// Shape inference, operator by operator, on graphs built directly in the IR; input binding
// (dynamic batch); shape chains followed by value; errors that name the node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include <fmt/format.h>

#include "common/error_of.h"
#include "common/error.h"
#include "graph/conv_geometry.h"
#include "cpu/float_executor.h"
#include "graph/shape_inference.h"

namespace tauvta::graph {
namespace {

using tauvta::testing::error_of;

using ::testing::HasSubstr;

Tensor ints(std::vector<int64_t> v) { return Tensor::from_int64(DType::kInt64, {int64_t(v.size())}, v); }

// A graph under construction: inputs with shapes, constants, nodes.
struct Builder {
  Graph g;
  Builder& in(const std::string& name, Shape s, DType t = DType::kFloat32, bool known = true) {
    g.inputs.push_back(name);
    ValueInfo& v = g.info_mut(name);
    v.dtype = t;
    v.shape = std::move(s);
    v.known_shape = known;
    return *this;
  }
  Builder& init(const std::string& name, Tensor t) {
    g.initializers[name] = std::move(t);
    return *this;
  }
  Builder& weight(const std::string& name, Shape s) { return init(name, Tensor(DType::kFloat32, std::move(s))); }
  Builder& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                std::map<std::string, AttrValue> attrs = {}) {
    g.nodes.push_back(Node{fmt::format("n{}", g.nodes.size()), op, std::move(inputs), std::move(outputs), std::move(attrs)});
    g.outputs = g.nodes.back().outputs;
    return *this;
  }
  Graph infer(const ShapeInferenceOptions& o = {}) const { return infer_shapes(g, o); }
  std::string shape_of(const std::string& v, const ShapeInferenceOptions& o = {}) const {
    const Graph r = infer(o);
    const ValueInfo* i = r.info(v);
    if (i == nullptr || !i->known_shape) return "unranked";
    return fmt::format("{}{}", dtype_name(i->dtype), shape_string(i->shape));
  }
};

using Ints = std::vector<int64_t>;

TEST(ShapeInference, Conv) {
  auto conv = [](Shape x, Shape w, std::map<std::string, AttrValue> attrs) {
    return Builder().in("x", x).weight("w", w).node("Conv", {"x", "w"}, {"y"}, attrs).shape_of("y");
  };
  EXPECT_EQ(conv({1, 3, 32, 32}, {16, 3, 3, 3}, {{"pads", Ints{1, 1, 1, 1}}}), "float32[1,16,32,32]");
  EXPECT_EQ(conv({2, 3, 32, 32}, {16, 3, 3, 3}, {{"strides", Ints{2, 2}}}), "float32[2,16,15,15]");
  EXPECT_EQ(conv({1, 8, 10, 10}, {8, 1, 3, 3}, {{"group", int64_t(8)}}), "float32[1,8,8,8]");  // depthwise
  EXPECT_EQ(conv({1, 8, 10, 10}, {12, 2, 3, 3}, {{"group", int64_t(4)}}), "float32[1,12,8,8]");
  EXPECT_EQ(conv({1, 1, 10, 10}, {1, 1, 3, 3}, {{"dilations", Ints{2, 3}}}), "float32[1,1,6,4]");
  EXPECT_EQ(conv({1, 1, 7, 7}, {1, 1, 3, 3}, {{"strides", Ints{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}),
            "float32[1,1,4,4]");
  EXPECT_EQ(conv({1, 1, 7, 8}, {1, 1, 2, 2}, {{"strides", Ints{3, 3}}, {"auto_pad", std::string("SAME_LOWER")}}),
            "float32[1,1,3,3]");
  EXPECT_EQ(conv({1, 1, 7, 7}, {1, 1, 3, 3}, {{"pads", Ints{5, 5, 5, 5}}, {"auto_pad", std::string("VALID")}}),
            "float32[1,1,5,5]");
  EXPECT_EQ(conv({1, 1, 5, 6}, {1, 1, 3, 3}, {{"pads", Ints{1, 0, 2, 0}}, {"strides", Ints{2, 2}}}),
            "float32[1,1,3,2]");  // asymmetric pads
  EXPECT_EQ(conv({1, 2, 9}, {4, 2, 3}, {}), "float32[1,4,7]");
  EXPECT_EQ(conv({-1, 3, 8, 8}, {4, 3, 1, 1}, {}), "float32[?,4,8,8]");
}

TEST(ShapeInference, ConvGeometryPads) {
  Node n{"c", "Conv", {"x", "w"}, {"y"}, {{"auto_pad", std::string("SAME_UPPER")}, {"strides", Ints{2, 2}}}};
  WindowGeometry g = conv_geometry(n, {1, 1, 6, 7}, {1, 1, 4, 4});
  EXPECT_EQ(g.pads_begin, (Ints{1, 1}));  // totals 2 and 3: the odd pad at the end
  EXPECT_EQ(g.pads_end, (Ints{1, 2}));
  EXPECT_EQ(g.output, (Ints{3, 4}));
  n.attrs["auto_pad"] = std::string("SAME_LOWER");
  g = conv_geometry(n, {1, 1, 6, 7}, {1, 1, 4, 4});
  EXPECT_EQ(g.pads_begin, (Ints{1, 2}));
  EXPECT_EQ(g.pads_end, (Ints{1, 1}));
}

TEST(ShapeInference, ConvTranspose) {
  auto convt = [](Shape x, Shape w, std::map<std::string, AttrValue> attrs) {
    return Builder().in("x", x).weight("w", w).node("ConvTranspose", {"x", "w"}, {"y"}, attrs).shape_of("y");
  };
  EXPECT_EQ(convt({1, 100, 1, 1}, {100, 64, 4, 4}, {}), "float32[1,64,4,4]");
  EXPECT_EQ(convt({1, 64, 4, 4}, {64, 32, 4, 4}, {{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}),
            "float32[1,32,8,8]");
  EXPECT_EQ(convt({1, 1, 3, 3}, {1, 2, 3, 3}, {{"strides", Ints{3, 2}}, {"output_padding", Ints{1, 1}}}),
            "float32[1,2,10,8]");
  EXPECT_EQ(convt({1, 1, 3, 3}, {1, 2, 3, 3}, {{"strides", Ints{3, 2}}, {"output_shape", Ints{10, 8}}}),
            "float32[1,2,10,8]");
  EXPECT_EQ(convt({1, 4, 5, 5}, {4, 3, 3, 3}, {{"group", int64_t(2)}}), "float32[1,6,7,7]");
  EXPECT_EQ(convt({1, 1, 3, 3}, {1, 2, 3, 3}, {{"strides", Ints{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}),
            "float32[1,2,6,6]");
  Node n{"t", "ConvTranspose", {"x", "w"}, {"y"}, {{"strides", Ints{3, 2}}, {"output_shape", Ints{10, 8}}}};
  const WindowGeometry g = conv_transpose_geometry(n, {1, 1, 3, 3}, {1, 2, 3, 3});
  EXPECT_EQ(g.pads_begin, (Ints{0, 0}));
  EXPECT_EQ(g.pads_end, (Ints{-1, -1}));  // one row past the full result, left zero
}

TEST(ShapeInference, Pools) {
  auto pool = [](const std::string& op, Shape x, std::map<std::string, AttrValue> attrs) {
    return Builder().in("x", x).node(op, {"x"}, {"y"}, attrs).shape_of("y");
  };
  EXPECT_EQ(pool("MaxPool", {1, 64, 112, 112}, {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}),
            "float32[1,64,56,56]");
  EXPECT_EQ(pool("MaxPool", {1, 1, 4, 4}, {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t(1)}}),
            "float32[1,1,2,2]");
  EXPECT_EQ(pool("MaxPool", {1, 1, 5, 5}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t(1)}}),
            "float32[1,1,3,3]");
  // With ceil_mode a window may not start in the end padding: 5 + 1 + 1 pads, k 2, s 2 -> 3 windows, not 4.
  EXPECT_EQ(pool("MaxPool", {1, 1, 5, 5}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}},
                                          {"ceil_mode", int64_t(1)}}),
            "float32[1,1,3,3]");
  EXPECT_EQ(pool("AveragePool", {1, 3, 32, 32}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}), "float32[1,3,16,16]");
  EXPECT_EQ(pool("AveragePool", {1, 3, 5, 5}, {{"kernel_shape", Ints{3, 3}}, {"auto_pad", std::string("SAME_UPPER")}}),
            "float32[1,3,5,5]");
  EXPECT_EQ(pool("MaxPool", {1, 1, 8, 8}, {{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}}), "float32[1,1,6,6]");
  EXPECT_EQ(pool("GlobalAveragePool", {2, 512, 7, 7}, {}), "float32[2,512,1,1]");
  EXPECT_EQ(pool("GlobalMaxPool", {2, 5, 7}, {}), "float32[2,5,1]");
}

TEST(ShapeInference, DenseLayers) {
  EXPECT_EQ(Builder().in("a", {4, 512}).weight("b", {1000, 512}).weight("c", {1000})
                .node("Gemm", {"a", "b", "c"}, {"y"}, {{"transB", int64_t(1)}}).shape_of("y"),
            "float32[4,1000]");
  EXPECT_EQ(Builder().in("a", {7, 3}).weight("b", {7, 5}).node("Gemm", {"a", "b"}, {"y"}, {{"transA", int64_t(1)}}).shape_of("y"),
            "float32[3,5]");
  EXPECT_EQ(Builder().in("a", {2, 3, 4}).weight("b", {4, 5}).node("MatMul", {"a", "b"}, {"y"}).shape_of("y"), "float32[2,3,5]");
  EXPECT_EQ(Builder().in("a", {4}).weight("b", {2, 4, 5}).node("MatMul", {"a", "b"}, {"y"}).shape_of("y"), "float32[2,5]");
  EXPECT_EQ(Builder().in("a", {3, 1, 2, 4}).in("b", {5, 4, 6}).node("MatMul", {"a", "b"}, {"y"}).shape_of("y"),
            "float32[3,5,2,6]");
  EXPECT_EQ(Builder().in("a", {2, 4}).in("b", {4}).node("MatMul", {"a", "b"}, {"y"}).shape_of("y"), "float32[2]");
}

TEST(ShapeInference, ElementwiseAndActivations) {
  EXPECT_EQ(Builder().in("a", {2, 1, 4}).in("b", {3, 1}).node("Add", {"a", "b"}, {"y"}).shape_of("y"), "float32[2,3,4]");
  EXPECT_EQ(Builder().in("a", {-1, 4}).in("b", {4}).node("Mul", {"a", "b"}, {"y"}).shape_of("y"), "float32[?,4]");
  EXPECT_EQ(Builder().in("a", {2, 3}, DType::kInt32).in("b", {}, DType::kInt32).node("Sub", {"a", "b"}, {"y"}).shape_of("y"),
            "int32[2,3]");
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "LeakyRelu", "Softmax", "Identity"}) {
    EXPECT_EQ(Builder().in("x", {1, 5}).node(op, {"x"}, {"y"}).shape_of("y"), "float32[1,5]") << op;
  }
  EXPECT_EQ(Builder().in("x", {1, 3, 4, 4}).weight("s", {3, 1, 1}).node("PRelu", {"x", "s"}, {"y"}).shape_of("y"),
            "float32[1,3,4,4]");
  EXPECT_EQ(Builder().in("x", {1, 3}).init("lo", Tensor::scalar_float(0)).init("hi", Tensor::scalar_float(6))
                .node("Clip", {"x", "lo", "hi"}, {"y"}).shape_of("y"),
            "float32[1,3]");
  Builder bn;
  bn.in("x", {2, 3, 4, 4});
  for (const char* p : {"s", "b", "m", "v"}) bn.weight(p, {3});
  EXPECT_EQ(bn.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}).shape_of("y"), "float32[2,3,4,4]");
  const Graph d = Builder().in("x", {3, 4}).node("Dropout", {"x"}, {"y", "mask"}).infer();
  EXPECT_EQ(d.info("mask")->dtype, DType::kBool);
  EXPECT_EQ(d.info("mask")->shape, (Shape{3, 4}));
}

TEST(ShapeInference, TensorManipulation) {
  EXPECT_EQ(Builder().in("x", {2, 3, 4, 5}).node("Flatten", {"x"}, {"y"}, {{"axis", int64_t(2)}}).shape_of("y"), "float32[6,20]");
  EXPECT_EQ(Builder().in("x", {2, 3}).node("Flatten", {"x"}, {"y"}, {{"axis", int64_t(0)}}).shape_of("y"), "float32[1,6]");
  EXPECT_EQ(Builder().in("x", {2, 3, 4}).init("s", ints({0, -1})).node("Reshape", {"x", "s"}, {"y"}).shape_of("y"),
            "float32[2,12]");
  EXPECT_EQ(Builder().in("x", {0, 3}).init("s", ints({3, 0})).node("Reshape", {"x", "s"}, {"y"}, {{"allowzero", int64_t(1)}})
                .shape_of("y"),
            "float32[3,0]");
  EXPECT_EQ(Builder().in("x", {2, 3, 4}).in("s", {2}, DType::kInt64).node("Reshape", {"x", "s"}, {"y"}).shape_of("y"),
            "float32[?,?]");  // data-dependent: only the rank is known
  EXPECT_EQ(Builder().in("x", {2, 3, 4}).node("Transpose", {"x"}, {"y"}).shape_of("y"), "float32[4,3,2]");
  EXPECT_EQ(Builder().in("x", {2, 3, 4}).node("Transpose", {"x"}, {"y"}, {{"perm", Ints{0, 2, 1}}}).shape_of("y"),
            "float32[2,4,3]");
  EXPECT_EQ(Builder().in("a", {1, 2, 5}).in("b", {1, 3, 5}).node("Concat", {"a", "b"}, {"y"}, {{"axis", int64_t(-2)}}).shape_of("y"),
            "float32[1,5,5]");
  EXPECT_EQ(Builder().in("x", {1, 3, 4, 4}).init("p", ints({0, 0, 1, 2, 0, 0, 3, 4})).node("Pad", {"x", "p"}, {"y"}).shape_of("y"),
            "float32[1,3,8,10]");
  EXPECT_EQ(Builder().in("x", {1, 3, 4, 4}).node("Shape", {"x"}, {"y"}).shape_of("y"), "int64[4]");
  EXPECT_EQ(Builder().in("x", {1, 3, 4, 4}).node("Shape", {"x"}, {"y"}, {{"start", int64_t(-3)}, {"end", int64_t(-1)}}).shape_of("y"),
            "int64[2]");
  EXPECT_EQ(Builder().in("x", {5, 6, 7}).init("i", ints({0, 2, 1, 1})).node("Gather", {"x", "i"}, {"y"}, {{"axis", int64_t(1)}})
                .shape_of("y"),
            "float32[5,4,7]");
  EXPECT_EQ(Builder().in("x", {5, 6}).init("i", Tensor::from_int64(DType::kInt64, {}, {2})).node("Gather", {"x", "i"}, {"y"})
                .shape_of("y"),
            "float32[6]");
  EXPECT_EQ(Builder().in("x", {3, 4}).init("a", ints({0, 3})).node("Unsqueeze", {"x", "a"}, {"y"}).shape_of("y"), "float32[1,3,4,1]");
  EXPECT_EQ(Builder().in("x", {1, 3, 1}).init("a", ints({-1})).node("Squeeze", {"x", "a"}, {"y"}).shape_of("y"), "float32[1,3]");
  EXPECT_EQ(Builder().in("x", {1, 3, 1}).node("Squeeze", {"x"}, {"y"}).shape_of("y"), "float32[3]");
  EXPECT_EQ(Builder().in("x", {2, 3}).node("Cast", {"x"}, {"y"}, {{"to", int64_t(7)}}).shape_of("y"), "int64[2,3]");
}

TEST(ShapeInference, Slice) {
  auto slice = [](Shape x, Ints starts, Ints ends, Ints axes, Ints steps) {
    Builder b;
    b.in("x", x).init("s", ints(starts)).init("e", ints(ends)).init("a", ints(axes)).init("t", ints(steps));
    return b.node("Slice", {"x", "s", "e", "a", "t"}, {"y"}).shape_of("y");
  };
  EXPECT_EQ(slice({20, 10, 5}, {0, 0}, {3, 10}, {0, 1}, {1, 1}), "float32[3,10,5]");
  EXPECT_EQ(slice({20, 10, 5}, {1}, {INT64_MAX}, {1}, {2}), "float32[20,5,5]");
  EXPECT_EQ(slice({20, 10, 5}, {-1}, {INT64_MIN}, {1}, {-1}), "float32[20,10,5]");  // reversed
  EXPECT_EQ(slice({20, 10, 5}, {20}, {-1000}, {1}, {-3}), "float32[20,4,5]");
  EXPECT_EQ(slice({20, 10, 5}, {5}, {2}, {-1}, {1}), "float32[20,10,0]");
}

TEST(ShapeInference, ResizeAndQuantization) {
  EXPECT_EQ(Builder().in("x", {1, 3, 5, 5}).init("s", Tensor::from_floats({4}, {1, 1, 2, 0.5f}))
                .node("Resize", {"x", "", "s"}, {"y"}).shape_of("y"),
            "float32[1,3,10,2]");
  EXPECT_EQ(Builder().in("x", {1, 3, 5, 5}).init("z", ints({1, 3, 7, 8})).node("Resize", {"x", "", "", "z"}, {"y"}).shape_of("y"),
            "float32[1,3,7,8]");
  EXPECT_EQ(Builder().in("x", {2, 3}).init("s", Tensor::scalar_float(0.1f)).node("QuantizeLinear", {"x", "s"}, {"y"}).shape_of("y"),
            "uint8[2,3]");
  EXPECT_EQ(Builder().in("x", {2, 3}).init("s", Tensor::from_floats({3}, {1, 2, 3}))
                .init("z", Tensor::from_int64(DType::kInt8, {3}, {0, 0, 0}))
                .node("QuantizeLinear", {"x", "s", "z"}, {"y"}).shape_of("y"),
            "int8[2,3]");
  EXPECT_EQ(Builder().in("x", {2, 3}, DType::kInt8).init("s", Tensor::scalar_float(0.1f))
                .node("DequantizeLinear", {"x", "s"}, {"y"}).shape_of("y"),
            "float32[2,3]");
}

// The forms the frontend keeps for training-capable and multi-output nodes.
TEST(ShapeInference, TrainingAndIndicesOutputs) {
  // MaxPool's Indices: int64 of the output's shape.
  const Graph mp = Builder().in("x", {2, 3, 5, 5})
                       .node("MaxPool", {"x"}, {"y", "idx"},
                             {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"storage_order", int64_t(1)}})
                       .infer();
  EXPECT_EQ(mp.info("y")->shape, (Shape{2, 3, 2, 2}));
  EXPECT_EQ(mp.info("idx")->dtype, DType::kInt64);
  EXPECT_EQ(mp.info("idx")->shape, (Shape{2, 3, 2, 2}));
  const Graph mp_dyn = Builder().in("x", {-1, 3, 4, 4}).node("MaxPool", {"x"}, {"y", "idx"}, {{"kernel_shape", Ints{2, 2}}}).infer();
  EXPECT_EQ(mp_dyn.info("idx")->shape, (Shape{-1, 3, 3, 3}));
  // BatchNormalization in training mode: running mean and variance [C], the dtype of `mean`.
  Builder bn;
  bn.in("x", {4, 3, 2, 2});
  for (const char* p : {"s", "b", "m", "v"}) bn.weight(p, {3});
  const Graph t = bn.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"},
                          {{"training_mode", int64_t(1)}, {"momentum", 0.9f}})
                      .infer();
  EXPECT_EQ(t.info("y")->shape, (Shape{4, 3, 2, 2}));
  EXPECT_EQ(t.info("rm")->shape, (Shape{3}));
  EXPECT_EQ(t.info("rv")->shape, (Shape{3}));
  EXPECT_EQ(t.info("rv")->dtype, DType::kFloat32);
  Builder bn_dyn;  // channels from the parameters when the input's are unknown
  bn_dyn.in("x", {-1, -1, 5});
  for (const char* p : {"s", "b", "m", "v"}) bn_dyn.weight(p, {6});
  EXPECT_EQ(bn_dyn.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm"}, {{"training_mode", int64_t(1)}})
                .shape_of("rm"),
            "float32[6]");
  // Dropout with a run-time training_mode (and ratio): y like x, mask bool.
  const Graph d = Builder().in("x", {3, 4}).in("r", {}).in("t", {}, DType::kBool)
                      .node("Dropout", {"x", "r", "t"}, {"y", "mask"}).infer();
  EXPECT_EQ(d.info("y")->shape, (Shape{3, 4}));
  EXPECT_EQ(d.info("mask")->dtype, DType::kBool);
  EXPECT_EQ(d.info("mask")->shape, (Shape{3, 4}));
  // Training with ratio 0 is deterministic.
  EXPECT_EQ(Builder().in("x", {3}).init("r", Tensor::scalar_float(0)).init("t", Tensor::from_int64(DType::kBool, {}, {1}))
                .node("Dropout", {"x", "r", "t"}, {"y"}).shape_of("y"),
            "float32[3]");
}

TEST(ShapeInference, ResizeInterpolationModes) {
  auto resize = [](Shape x, std::vector<std::string> in, std::map<std::string, AttrValue> attrs, DType t = DType::kFloat32) {
    return Builder().in("x", x, t).in("roi", {8}).init("s", Tensor::from_floats({4}, {1, 1, 0.6f, 1.7f}))
        .init("z", ints({1, 1, 3, 3})).node("Resize", in, {"y"}, attrs).shape_of("y");
  };
  EXPECT_EQ(resize({1, 1, 4, 4}, {"x", "", "s"}, {{"mode", std::string("linear")}}), "float32[1,1,2,6]");
  EXPECT_EQ(resize({1, 1, 4, 4}, {"x", "", "s"},
                   {{"mode", std::string("cubic")}, {"cubic_coeff_a", -0.5f}, {"exclude_outside", int64_t(1)}}),
            "float32[1,1,2,6]");
  EXPECT_EQ(resize({1, 1, 4, 4}, {"x", "roi", "", "z"},
                   {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
                    {"extrapolation_value", 10.0f}}),
            "float32[1,1,3,3]");
  // The output size ignores roi (floor(in * scale), as ONNX's reference and shape inference).
  EXPECT_EQ(resize({1, 1, 4, 4}, {"x", "roi", "s"},
                   {{"mode", std::string("nearest")}, {"coordinate_transformation_mode", std::string("tf_crop_and_resize")}}),
            "float32[1,1,2,6]");
  // Nearest selects elements of any dtype; interpolation needs floats.
  EXPECT_EQ(resize({1, 1, 4, 4}, {"x", "", "s"}, {{"mode", std::string("nearest")}}, DType::kInt32), "int32[1,1,2,6]");
  EXPECT_EQ(error_of([&] { resize({1, 1, 4, 4}, {"x", "", "s"}, {{"mode", std::string("linear")}}, DType::kInt32); }),
            "node 'n0' (Resize): input 0 ('x') is int32, expected a float tensor");
  EXPECT_EQ(error_of([&] {
              Builder().in("x", {1, 1, 4, 4}).in("roi", {4}).init("z", ints({1, 1, 3, 3}))
                  .node("Resize", {"x", "roi", "", "z"}, {"y"},
                        {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("tf_crop_and_resize")}})
                  .infer();
            }),
            "node 'n0' (Resize): length of roi (a start and an end per axis of rank 4) is 4, expected 8");
  EXPECT_EQ(error_of([&] {
              Builder().in("x", {1, 1, 4, 4}).init("z", ints({1, 1, 3, 3}))
                  .node("Resize", {"x", "", "", "z"}, {"y"},
                        {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("tf_crop_and_resize")}})
                  .infer();
            }),
            "node 'n0' (Resize): coordinate_transformation_mode 'tf_crop_and_resize' needs input 1 (roi)");
}

TEST(ShapeInferenceErrors, TrainingForms) {
  // A constant true training_mode with a non-zero (or the default 0.5) ratio is random.
  EXPECT_EQ(error_of([] {
              Builder().in("x", {3}).init("r", Tensor::scalar_float(0.25f)).init("t", Tensor::from_int64(DType::kBool, {}, {1}))
                  .node("Dropout", {"x", "r", "t"}, {"y"}).infer();
            }),
            "node 'n0' (Dropout): training_mode is true and ratio is 0.25: training-mode Dropout is random (supported: "
            "inference, or training with ratio 0)");
  EXPECT_EQ(error_of([] {
              Builder().in("x", {3}).init("t", Tensor::from_int64(DType::kBool, {}, {1}))
                  .node("Dropout", {"x", "", "t"}, {"y"}).infer();
            }),
            "node 'n0' (Dropout): training_mode is true and ratio is 0.5: training-mode Dropout is random (supported: "
            "inference, or training with ratio 0)");
  EXPECT_EQ(error_of([] { Builder().in("x", {3}).in("t", {}, DType::kInt64).node("Dropout", {"x", "", "t"}, {"y"}).infer(); }),
            "node 'n0' (Dropout): training_mode 't' is int64, expected bool");
  Builder bn;
  bn.in("x", {2, 3});
  for (const char* p : {"s", "b", "m", "v"}) bn.weight(p, {3});
  EXPECT_EQ(error_of([&] { bn.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm"}).infer(); }),
            "node 'n0' (BatchNormalization): outputs running_mean and running_var need training_mode = 1");
}

TEST(ShapeInference, FollowsShapeChainsByValue) {
  // torch's x.view(x.size(0), -1): Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
  Builder b;
  b.in("x", {-1, 3, 4, 4}).init("zero", Tensor::from_int64(DType::kInt64, {}, {0})).init("ax", ints({0}))
      .init("minus1", ints({-1}));
  b.node("Shape", {"x"}, {"s"}).node("Gather", {"s", "zero"}, {"n"}).node("Unsqueeze", {"n", "ax"}, {"nu"})
      .node("Concat", {"nu", "minus1"}, {"target"}, {{"axis", int64_t(0)}}).node("Reshape", {"x", "target"}, {"y"});
  EXPECT_EQ(b.shape_of("y"), "float32[?,?]");  // batch unbound: only the rank
  ShapeInferenceOptions o;
  o.batch = 8;
  EXPECT_EQ(b.shape_of("y", o), "float32[8,48]");
  // Float scale arithmetic on shapes (older Upsample exports): Cast -> Mul -> Cast.
  Builder c;
  c.in("x", {1, 2, 3, 3}).init("two", Tensor::scalar_float(2.0f)).init("idx", ints({2, 3}))
      .init("head", ints({1, 2}));
  c.node("Shape", {"x"}, {"s"}).node("Gather", {"s", "idx"}, {"hw"}).node("Cast", {"hw"}, {"hwf"}, {{"to", int64_t(1)}})
      .node("Mul", {"hwf", "two"}, {"scaled"}).node("Cast", {"scaled"}, {"hw2"}, {{"to", int64_t(7)}})
      .node("Concat", {"head", "hw2"}, {"sizes"}, {{"axis", int64_t(0)}}).node("Resize", {"x", "", "", "sizes"}, {"y"});
  EXPECT_EQ(c.shape_of("y"), "float32[1,2,6,6]");
}

TEST(ShapeInference, BindsInputShapes) {
  Builder b;
  b.in("x", {-1, 3, -1, -1}).weight("w", {4, 3, 3, 3}).node("Conv", {"x", "w"}, {"y"});
  ShapeInferenceOptions o;
  o.input_shapes["x"] = {2, 3, 10, 12};
  EXPECT_EQ(b.shape_of("y", o), "float32[2,4,8,10]");
  o.input_shapes["x"] = {2, 4, 10, 12};
  EXPECT_EQ(error_of([&] { b.infer(o); }), "graph input 'x': shape [2,4,10,12] does not match the model's [?,3,?,?]");
  o.input_shapes.clear();
  o.input_shapes["w"] = {1};
  EXPECT_EQ(error_of([&] { b.infer(o); }), "cannot set the shape of 'w': it is not a graph input (inputs: x)");
  o.input_shapes.clear();
  o.batch = 5;
  EXPECT_EQ(b.shape_of("y", o), "float32[5,4,?,?]");
}

TEST(ShapeInference, UnrankedInputsStayUnranked) {
  Builder b;
  b.in("x", {}, DType::kFloat32, /*known=*/false).node("Relu", {"x"}, {"r"}).node("Flatten", {"r"}, {"y"});
  const Graph g = b.infer();
  EXPECT_FALSE(g.info("r")->known_shape);
  EXPECT_EQ(shape_string(g.info("y")->shape), "[?,?]");
}

TEST(ShapeInferenceErrors, NameTheNode) {
  EXPECT_EQ(error_of([] { Builder().in("x", {1, 4, 8, 8}).weight("w", {8, 3, 3, 3}).node("Conv", {"x", "w"}, {"y"}).infer(); }),
            "node 'n0' (Conv): input has 4 channels, the weight [8,3,3,3] with group 1 expects 3");
  EXPECT_EQ(error_of([] { Builder().in("a", {2, 3}).in("b", {4}).node("Add", {"a", "b"}, {"y"}).infer(); }),
            "node 'n0' (Add): shapes [2,3] and [4] cannot be broadcast together");
  EXPECT_EQ(error_of([] { Builder().in("a", {2, 3}).in("b", {4}, DType::kInt64).node("Add", {"a", "b"}, {"y"}).infer(); }),
            "node 'n0' (Add): inputs have different dtypes (float32 and int64)");
  EXPECT_EQ(error_of([] { Builder().in("a", {2, 3}).weight("b", {4, 5}).node("Gemm", {"a", "b"}, {"y"}).infer(); }),
            "node 'n0' (Gemm): A [2,3] and B [4,5] have different inner dimensions (3 and 4)");
  EXPECT_EQ(error_of([] { Builder().in("x", {2, 3}).init("s", ints({4, 2})).node("Reshape", {"x", "s"}, {"y"}).infer(); }),
            "node 'n0' (Reshape): cannot reshape [2,3] (6 elements) to [4,2] (8 elements)");
  EXPECT_EQ(error_of([] { Builder().in("a", {1, 2}).in("b", {2, 2}).node("Concat", {"a", "b"}, {"y"}, {{"axis", int64_t(0)}})
                              .node("Concat", {"y", "b"}, {"z"}, {{"axis", int64_t(1)}}).infer(); }),
            "node 'n1' (Concat): input 1 has shape [2,2]; dimension 0 should be 3 as in the other inputs");
  EXPECT_EQ(error_of([] { Builder().in("x", {1, 1, 2, 2}).node("MaxPool", {"x"}, {"y"}, {{"kernel_shape", Ints{3, 3}}}).infer(); }),
            "node 'n0' (MaxPool): the window (extent 3) is larger than spatial dimension 0 of size 2 plus padding 0+0");
  EXPECT_EQ(error_of([] { Builder().in("x", {2, 3}).node("Softmax", {"x"}, {"y"}, {{"axis", int64_t(2)}}).infer(); }),
            "node 'n0' (Softmax): axis 2 is out of range for rank 2");
  EXPECT_EQ(error_of([] { Builder().in("x", {2, 3}).node("Foo", {"x"}, {"y"}).infer(); }),
            "node 'n0' (Foo): operator Foo has no shape inference rule");
  Builder declared;
  declared.in("x", {2, 3}).node("Relu", {"x"}, {"y"});
  ValueInfo& y = declared.g.info_mut("y");
  y.shape = {3, 2};
  y.known_shape = true;
  EXPECT_EQ(error_of([&] { declared.infer(); }),
            "node 'n0' (Relu): inferred float32[2,3] for 'y', but the graph records float32[3,2]");
}

}  // namespace
}  // namespace tauvta::graph

namespace tauvta::graph {
namespace {

// A hostile model must be refused before anything is allocated: a one-node Pad of 10^9 on a
// 1x1x2x2 input asks for 16 EB (more than int64 counts: the product saturates, never wraps).
TEST(ShapeInferenceErrors, TensorsOverTheSizeLimitAreRefusedNamingTheNode) {
  const auto pad = [](int64_t p) {
    return Builder().in("x", {1, 1, 2, 2}).init("p", ints({0, 0, p, p, 0, 0, p, p})).node("Pad", {"x", "p"}, {"y"});
  };
  EXPECT_EQ(error_of([&] { pad(1000000000).infer(); }),
            "node 'n0' (Pad): output 'y', float32 [1,1,2000000002,2000000002] would take more than 2^63 bytes, over "
            "the 4 GiB tensor limit (--max-tensor-mib raises it)");
  EXPECT_EQ(error_of([&] { pad(100000).infer(); }),
            "node 'n0' (Pad): output 'y', float32 [1,1,200002,200002] would take 149 GiB, over the 4 GiB tensor "
            "limit (--max-tensor-mib raises it)");
  // The limit can be raised (it is process-wide, so restore it).
  set_tensor_byte_limit(int64_t(1) << 40);
  EXPECT_EQ(pad(100000).shape_of("y"), "float32[1,1,200002,200002]");
  set_tensor_byte_limit(kDefaultTensorByteLimit);
  EXPECT_THAT(error_of([] { Tensor(DType::kInt64, {1 << 20, 1 << 20}); }),
              HasSubstr("a tensor of int64 [1048576,1048576] would take 8192 GiB, over the 4 GiB tensor limit"));
  EXPECT_THAT(error_of([] { set_tensor_byte_limit(0); }), HasSubstr("must be positive"));
}


TEST(ShapeInference, MathReductionsAndGenerators) {
  Builder b;
  b.in("x", {2, 3, 4}).in("f", {3, 4}).in("i", {3, 1}, DType::kInt64).in("c", {1, 4}, DType::kBool)
      .init("ax", ints({1})).init("shape", ints({5, 1, 4})).init("reps", ints({2, 1, 1})).init("sz", ints({1, 3}))
      .weight("g", {4});
  b.node("Div", {"x", "f"}, {"div"}).node("Pow", {"x", "i"}, {"pow"}).node("Equal", {"x", "f"}, {"eq"})
      .node("Where", {"c", "x", "f"}, {"wh"}).node("Max", {"x", "f", "x"}, {"mx"})
      .node("ReduceMean", {"x"}, {"rm"}, {{"axes", Ints{-1}}, {"keepdims", int64_t(0)}})
      .node("ReduceSum", {"x", "ax"}, {"rs"}).node("ReduceMax", {"x"}, {"rall"})
      .node("LayerNormalization", {"x", "g"}, {"ln", "mean", "inv"}, {{"axis", int64_t(-1)}})
      .node("Expand", {"f", "shape"}, {"ex"}).node("Tile", {"x", "reps"}, {"ti"})
      .node("Split", {"x", "sz"}, {"s0", "s2"}, {{"axis", int64_t(2)}}).node("HardSwish", {"x"}, {"hs"});
  EXPECT_EQ(b.shape_of("div"), "float32[2,3,4]");
  EXPECT_EQ(b.shape_of("pow"), "float32[2,3,4]");
  EXPECT_EQ(b.shape_of("eq"), "bool[2,3,4]");
  EXPECT_EQ(b.shape_of("wh"), "float32[2,3,4]");
  EXPECT_EQ(b.shape_of("mx"), "float32[2,3,4]");
  EXPECT_EQ(b.shape_of("rm"), "float32[2,3]");
  EXPECT_EQ(b.shape_of("rs"), "float32[2,1,4]");
  EXPECT_EQ(b.shape_of("rall"), "float32[1,1,1]");
  EXPECT_EQ(b.shape_of("ln"), "float32[2,3,4]");
  EXPECT_EQ(b.shape_of("inv"), "float32[2,3,1]");
  EXPECT_EQ(b.shape_of("ex"), "float32[5,3,4]");
  EXPECT_EQ(b.shape_of("ti"), "float32[4,3,4]");
  EXPECT_EQ(b.shape_of("s2"), "float32[2,3,3]");
  EXPECT_EQ(b.shape_of("hs"), "float32[2,3,4]");
  Builder bad;
  bad.in("x", {2, 5}).init("sz", ints({2, 2}));
  bad.node("Split", {"x", "sz"}, {"a", "b"}, {{"axis", int64_t(1)}});
  EXPECT_EQ(error_of([&] { bad.infer(); }), "node 'n0' (Split): split [2,2] does not cut dimension 1 of size 5 into 2 outputs");
}

// Exported transformers compute shapes through Div, ConstantOfShape, Equal, Where and Range
// (ViT's class-token expand, ShuffleNet's channel count halving). With the float reference as
// evaluator these are followed by value and the Reshape/Expand targets become exact.
TEST(ShapeInference, EvaluatorFollowsAnyShapeArithmetic) {
  Builder b;
  b.in("x", {2, 48, 7, 7}).init("two", Tensor::from_int64(DType::kInt64, {}, {2})).init("idx", ints({1}))
      .init("rest", ints({7, 7})).init("batch_idx", ints({0}))
      .init("groups", ints({2}));
  b.node("Shape", {"x"}, {"s"}).node("Gather", {"s", "idx"}, {"c"}).node("Div", {"c", "two"}, {"half"})
      .node("Gather", {"s", "batch_idx"}, {"n"})
      .node("Concat", {"n", "groups", "half", "rest"}, {"target"}, {{"axis", int64_t(0)}})
      .node("Reshape", {"x", "target"}, {"y"});
  // Without an evaluator the Div's value is unknown: only the rank of y.
  EXPECT_EQ(b.shape_of("y"), "float32[?,?,?,?,?]");
  ShapeInferenceOptions o;
  o.evaluate = cpu::eval_float_node;
  EXPECT_EQ(b.shape_of("y", o), "float32[2,2,24,7,7]");
  // The ViT class-token pattern: ConstantOfShape(len) * -1, Equal, Where -> Expand target.
  Builder v;
  v.in("x", {3, 49, 16}).weight("cls", {1, 1, 16}).init("len", ints({3})).init("m1", ints({-1}))
      .init("target", ints({3, -1, -1}));
  v.node("ConstantOfShape", {"len"}, {"ones"}, {{"value", Tensor::from_int64(DType::kInt64, {1}, {1})}})
      .node("Mul", {"ones", "m1"}, {"neg"}).node("Equal", {"target", "neg"}, {"is_neg"})
      .node("Where", {"is_neg", "ones", "target"}, {"shape"}).node("Expand", {"cls", "shape"}, {"tok"});
  EXPECT_EQ(v.shape_of("tok"), "float32[?,?,?]");
  EXPECT_EQ(v.shape_of("tok", o), "float32[3,1,16]");
}

}  // namespace
}  // namespace tauvta::graph
