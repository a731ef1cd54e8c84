// The ONNX frontend on models built in the test: initializers in raw_data and typed fields, graph
// inputs, node names, topological order, opset rules, and must-fail cases pinning the messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "common/error_of.h"
#include "common/error.h"
#include "graph/onnx_import.h"
#include "onnx_builder.h"

namespace tauvta::graph {
namespace {

using tauvta::testing::error_of;

using ::testing::HasSubstr;
using testing::attr;
using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::ModelBuilder;
using testing::Storage;

// One tensor of every dtype a Tensor holds, with negative and large values where they fit.
std::vector<std::pair<std::string, Tensor>> sample_tensors() {
  std::vector<std::pair<std::string, Tensor>> v;
  v.emplace_back("f32", Tensor::from_floats({2, 3}, {1.5f, -2.25f, 0.0f, 3e10f, -1e-7f, 7.0f}));
  v.emplace_back("f64", Tensor::from_floats({3}, {0.1f, -0.2f, 1e30f}).cast(DType::kFloat64));
  v.emplace_back("i32", Tensor::from_int64(DType::kInt32, {2, 2}, {-2147483648LL, 2147483647LL, 0, -5}));
  v.emplace_back("i64", Tensor::from_int64(DType::kInt64, {3}, {INT64_MIN, INT64_MAX, -1}));
  v.emplace_back("i8", Tensor::from_int64(DType::kInt8, {4}, {-128, 127, 0, -1}));
  v.emplace_back("u8", Tensor::from_int64(DType::kUInt8, {1, 3}, {0, 255, 128}));
  v.emplace_back("i16", Tensor::from_int64(DType::kInt16, {2}, {-32768, 32767}));
  v.emplace_back("b", Tensor::from_int64(DType::kBool, {3}, {1, 0, 1}));
  v.emplace_back("scalar", Tensor::scalar_float(4.0f));
  v.emplace_back("empty", Tensor(DType::kInt64, {0}));
  return v;
}

TEST(OnnxImport, InitializersFromRawDataAndTypedFieldsAgree) {
  for (Storage storage : {Storage::kRaw, Storage::kTyped}) {
    ModelBuilder b;
    b.input("x", {1});
    for (const auto& [name, t] : sample_tensors()) b.init(name, t, storage);
    b.node("Identity", {"x"}, {"y"});
    b.output("y");
    const Graph g = b.import();
    for (const auto& [name, t] : sample_tensors()) {
      ASSERT_TRUE(g.is_initializer(name)) << name;
      EXPECT_EQ(g.initializers.at(name), t) << name << (storage == Storage::kRaw ? " raw" : " typed");
    }
  }
}

TEST(OnnxImportErrors, NarrowIntegerOutOfRangeInInt32Data) {
  onnx::TensorProto p;
  p.set_name("w");
  p.set_data_type(onnx::TensorProto::UINT8);
  p.add_dims(2);
  p.add_int32_data(7);
  p.add_int32_data(256);
  EXPECT_EQ(error_of([&] { tensor_from_onnx(p, "initializer 'w'"); }),
            "initializer 'w': int32_data value 256 at index 1 does not fit uint8");
  p.set_data_type(onnx::TensorProto::INT8);
  p.set_int32_data(1, -128);
  EXPECT_EQ(tensor_from_onnx(p, "w").to_int64(), (std::vector<int64_t>{7, -128}));
}

TEST(OnnxImport, ConstantNodesBecomeInitializers) {
  ModelBuilder b;
  b.input("x", {2});
  testing::attr_tensor(b.node("Constant", {}, {"c1"}), "value", Tensor::from_floats({2}, {1, 2}), Storage::kTyped);
  attr_ints(b.node("Constant", {}, {"c2"}), "value_ints", {4, -1});
  testing::attr_float(b.node("Constant", {}, {"c3"}), "value_float", 0.5f);
  attr_int(b.node("Constant", {}, {"c4"}), "value_int", 7);
  b.node("Add", {"x", "c1"}, {"y"});
  b.output("y");
  b.output("c2");
  const Graph g = b.import();
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.initializers.at("c1"), Tensor::from_floats({2}, {1, 2}));
  EXPECT_EQ(g.initializers.at("c2"), testing::ints({4, -1}));
  EXPECT_EQ(g.initializers.at("c3"), Tensor::scalar_float(0.5f));
  EXPECT_EQ(g.initializers.at("c4"), Tensor::from_int64(DType::kInt64, {}, {7}));
}

TEST(OnnxImport, InitializersListedAsInputsAreNotInputs) {
  ModelBuilder b(9);
  b.input("x", {-1, 4}).input("w", {4, 3});
  b.init("w", Tensor(DType::kFloat32, {4, 3}));
  b.node("MatMul", {"x", "w"}, {"y"});
  b.output("y", {-1, 3});
  const Graph g = b.import();
  EXPECT_EQ(g.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(g.info("x")->shape, (Shape{-1, 4}));
  EXPECT_TRUE(g.info("x")->known_shape);
  EXPECT_EQ(g.opset, 9);
}

TEST(OnnxImport, NamesUnnamedAndDuplicateNodesUniquely) {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Relu", {"x"}, {"a"});
  b.node("Relu", {"a"}, {"Relu_0"});  // a value already called Relu_0
  b.node("Relu", {"Relu_0"}, {"c"}, "dup");
  b.node("Relu", {"c"}, {"d"}, "dup");
  b.output("d");
  const Graph g = b.import();
  std::vector<std::string> names;
  for (const Node& n : g.nodes) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Relu_0_1", "Relu_1", "dup", "dup_1"}));
}

TEST(OnnxImport, OutputsWithoutElementTypeDeclareNothing) {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  b.proto().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
  const Graph g = b.import();
  EXPECT_EQ(g.info("y"), nullptr);
}

TEST(OnnxImport, SortsNodesTopologically) {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Relu", {"a"}, {"y"}, "second");
  b.node("Relu", {"x"}, {"a"}, "first");
  b.output("y");
  const Graph g = b.import();
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].name, "first");
  EXPECT_EQ(g.nodes[1].name, "second");
}

TEST(OnnxImport, ReadsFilesAndNamesThemInErrors) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tauvta_graph_import_test";
  std::filesystem::create_directories(dir);
  ModelBuilder b;
  b.input("x", {2});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  {
    std::ofstream(dir / "good.onnx", std::ios::binary) << b.bytes();
    std::ofstream(dir / "garbage.onnx", std::ios::binary) << "\x0a\xff\xff\xff\xff this is not a model";
    std::ofstream(dir / "empty.onnx", std::ios::binary);
  }
  const Graph g = import_onnx(dir / "good.onnx");
  EXPECT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(error_of([&] { import_onnx(dir / "garbage.onnx"); }),
            (dir / "garbage.onnx").string() + ": not a valid ONNX model (the protobuf message does not parse)");
  EXPECT_EQ(error_of([&] { import_onnx(dir / "empty.onnx"); }),
            (dir / "empty.onnx").string() + ": the file is empty, not an ONNX model");
  EXPECT_EQ(error_of([&] { import_onnx(dir / "missing.onnx"); }), (dir / "missing.onnx").string() + ": cannot open the file");
  std::filesystem::remove_all(dir);
}

// ---- opsets ----

Graph single_node_model(int64_t opset, const std::string& op, const std::string& domain = "") {
  ModelBuilder b(opset, domain);
  b.input("x", {1, 2, 3, 3});
  b.node(op, {"x"}, {"y"});
  b.output("y");
  return b.import();
}

TEST(OnnxImport, OpsetRange) {
  EXPECT_EQ(single_node_model(17, "Relu").opset, 17);
  EXPECT_EQ(error_of([] { single_node_model(18, "Relu"); }), "test.onnx: opset 18 is not supported (supported: 9 to 17)");
  // Older than 9: accepted only when no operator changed since.
  EXPECT_EQ(single_node_model(1, "GlobalAveragePool").opset, 1);
  EXPECT_EQ(error_of([] { single_node_model(6, "Relu"); }), "no error");
  // Operators that changed since: ONNX's version converter upgrades the model to opset 9 first.
  const Graph flat = single_node_model(8, "Flatten");
  EXPECT_EQ(flat.opset, 9);
  ASSERT_EQ(flat.nodes.size(), 1u);
  EXPECT_EQ(flat.nodes[0].op_type, "Flatten");
}

TEST(OnnxImport, UpgradesOldOpsetsWithOnnxsVersionConverter) {
  // Opset 6 BatchNormalization still has is_test, which opset 7 removed; the upgraded model
  // computes what the old one did.
  ModelBuilder b(6);
  b.input("x", {1, 2, 2, 2});
  for (const char* n : {"scale", "bias", "mean", "var"}) b.init(n, Tensor::from_floats({2}, {1.5f, 0.5f}));
  auto& bn = b.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"}, "bn");
  auto* a = bn.add_attribute();
  a->set_name("is_test");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  b.output("y");
  const Graph g = b.import();
  EXPECT_EQ(g.opset, 9);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "BatchNormalization");
  EXPECT_FALSE(g.nodes[0].attrs.count("is_test"));
}

TEST(OnnxImport, RejectsOtherDomains) {
  EXPECT_EQ(error_of([] { single_node_model(1, "Relu", "com.microsoft"); }),
            "test.onnx: the model imports no opset of the default ONNX domain (imports: 'com.microsoft' 1)");
  ModelBuilder b;
  b.input("x", {2});
  auto& n = b.node("FusedGemm", {"x"}, {"y"}, "fused");
  n.set_domain("com.microsoft");
  b.output("y");
  EXPECT_EQ(error_of([&] { b.import(); }),
            "test.onnx: node 'fused' (FusedGemm): operator domain 'com.microsoft' is not supported (only the default "
            "ONNX domain)");
}

// ---- must-fail: unsupported operators, attributes, values; broken graphs ----

TEST(OnnxImportErrors, UnsupportedOperatorListsTheSupportedOnes) {
  ModelBuilder b;
  b.input("x", {1, 2, 3});
  b.node("LSTM", {"x"}, {"y"}, "x");
  b.output("y");
  EXPECT_EQ(error_of([&] { b.import(); }),
            "test.onnx: node 'x' (LSTM): operator LSTM is not supported (supported: Abs, Add, And, AveragePool, "
            "BatchNormalization, Cast, Ceil, Clip, Concat, ConcatFromSequence, Constant, ConstantOfShape, Conv, "
            "ConvTranspose, "
            "DequantizeLinear, Div, Dropout, Elu, Equal, Erf, Exp, Expand, Flatten, Floor, Gather, Gemm, "
            "GlobalAveragePool, GlobalMaxPool, Greater, GreaterOrEqual, HardSigmoid, HardSwish, Identity, "
            "InstanceNormalization, LayerNormalization, LeakyRelu, Less, LessOrEqual, Log, LogSoftmax, MatMul, Max, "
            "MaxPool, Mean, Min, Mod, Mul, Neg, Not, Or, PRelu, Pad, Pow, QuantizeLinear, Range, Reciprocal, "
            "ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceSum, "
            "ReduceSumSquare, Relu, Reshape, Resize, ScatterND, Selu, SequenceAt, SequenceConstruct, SequenceEmpty, "
            "SequenceErase, SequenceInsert, SequenceLength, Shape, Shrink, Sigmoid, Sign, Slice, Softmax, Softplus, "
            "Split, SplitToSequence, Sqrt, Squeeze, Sub, Sum, Tanh, Tile, Transpose, Unsqueeze, Upsample, Where, Xor)");
}

TEST(OnnxImportErrors, UnsupportedAttributeValue) {
  ModelBuilder b;
  b.input("x", {1, 1, 5, 5});
  b.init("w", Tensor(DType::kFloat32, {1, 1, 3, 3}));
  attr_string(b.node("Conv", {"x", "w"}, {"y"}), "auto_pad", "FOO");
  b.output("y");
  EXPECT_EQ(error_of([&] { b.import(); }),
            "test.onnx: node 'Conv_0' (Conv): auto_pad 'FOO' is not supported (supported: NOTSET, SAME_UPPER, "
            "SAME_LOWER, VALID)");
}

TEST(OnnxImportErrors, UnknownAttribute) {
  ModelBuilder b(14);
  b.input("x", {2});
  attr_int(b.node("Relu", {"x"}, {"y"}, "r"), "alpha", 1);
  b.output("y");
  EXPECT_EQ(error_of([&] { b.import(); }),
            "test.onnx: node 'r' (Relu): attribute 'alpha' is not supported for Relu version 14 (accepted: none)");
  ModelBuilder c(13);
  c.input("x", {2});
  testing::attr_float(c.node("Clip", {"x"}, {"y"}, "c"), "min", 0.0f);
  c.output("y");
  EXPECT_EQ(error_of([&] { c.import(); }),
            "test.onnx: node 'c' (Clip): attribute 'min' is not supported for Clip version 13 (accepted: none)");
}

TEST(OnnxImportErrors, OutOfScopeFeatures) {
  {
    ModelBuilder b(9);  // BatchNormalization-9: statistics outputs mean training with saved_mean/saved_var
    b.input("x", {1, 2});
    for (const char* p : {"s", "bb", "m", "v"}) b.init(p, Tensor(DType::kFloat32, {2}));
    b.node("BatchNormalization", {"x", "s", "bb", "m", "v"}, {"y", "rm"}, "bn");
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'bn' (BatchNormalization): output 1 ('rm', a training-mode statistic of "
              "BatchNormalization before version 14) is not supported");
  }
  {
    ModelBuilder b(15);
    b.input("x", {1, 2});
    for (const char* p : {"s", "bb", "m", "v"}) b.init(p, Tensor(DType::kFloat32, {2}));
    b.node("BatchNormalization", {"x", "s", "bb", "m", "v"}, {"y", "rm"}, "bn");
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'bn' (BatchNormalization): output 1 ('rm', a training-mode statistic, but "
              "training_mode is 0) is not supported");
  }
  {
    ModelBuilder b;
    b.input("x", {2});
    attr_int(b.node("Cast", {"x"}, {"y"}, "c"), "to", onnx::TensorProto::FLOAT16);
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'c' (Cast): attribute 'to': element type FLOAT16 is not supported (supported: FLOAT, "
              "DOUBLE, INT8, UINT8, INT16, INT32, INT64, BOOL)");
  }
  {
    ModelBuilder b(10);  // Resize-10 (Upsample-9's semantics): nearest only
    b.input("x", {1, 1, 2, 2});
    b.init("scales", Tensor::from_floats({4}, {1, 1, 2, 2}));
    attr_string(b.node("Resize", {"x", "scales"}, {"y"}, "up"), "mode", "linear");
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'up' (Resize): mode 'linear' is not supported (supported: nearest)");
  }
  {
    ModelBuilder b;
    b.input("x", {1, 1, 2, 2});
    b.init("scales", Tensor::from_floats({4}, {1, 1, 2, 2}));
    attr_string(b.node("Resize", {"x", "", "scales"}, {"y"}, "up"), "mode", "bicubic");
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'up' (Resize): mode 'bicubic' is not supported (supported: nearest, linear, cubic)");
  }
  {
    ModelBuilder b;
    b.input("x", {1, 1, 2, 2});
    b.init("scales", Tensor::from_floats({4}, {1, 1, 2, 2}));
    auto& r = b.node("Resize", {"x", "", "scales"}, {"y"}, "up");
    attr_string(r, "mode", "cubic");
    attr_string(r, "coordinate_transformation_mode", "tf_half_pixel_for_nn");
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'up' (Resize): coordinate_transformation_mode 'tf_half_pixel_for_nn' is not supported "
              "with mode 'cubic' (supported with nearest and linear)");
  }
  {
    ModelBuilder b;
    b.input("x", {1, 1, 2, 2});
    b.init("sizes", testing::ints({1, 1, 3, 3}));
    auto& r = b.node("Resize", {"x", "", "", "sizes"}, {"y"}, "crop");
    attr_string(r, "mode", "linear");
    attr_string(r, "coordinate_transformation_mode", "tf_crop_and_resize");
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'crop' (Resize): coordinate_transformation_mode 'tf_crop_and_resize' needs input 1 "
              "(roi)");
  }
  {
    ModelBuilder b;
    b.input("x", {2});
    b.init("t", Tensor::from_int64(DType::kBool, {}, {1}));
    b.node("Dropout", {"x", "", "t"}, {"y"}, "d");  // ratio defaults to 0.5
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'd' (Dropout): training_mode 't' is a constant true and ratio is 0.5: training-mode "
              "Dropout is random (supported: inference, or training with ratio 0)");
  }
}

TEST(OnnxImportErrors, MissingInput) {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Add", {"x", "nope"}, {"y"}, "add");
  b.output("y");
  EXPECT_EQ(error_of([&] { b.import(); }),
            "test.onnx: node 'add' (Add): input 'nope' is not a graph input, an initializer or the output of any node");
}

TEST(OnnxImportErrors, BrokenGraphs) {
  {
    ModelBuilder b;
    b.input("x", {2});
    b.node("Add", {"x", "b"}, {"a"}, "n1");
    b.node("Relu", {"a"}, {"b"}, "n2");
    b.output("b");
    EXPECT_EQ(error_of([&] { b.import(); }), "test.onnx: the graph has a cycle through nodes 'n1', 'n2'");
  }
  {
    ModelBuilder b;
    b.input("x", {2});
    b.node("Relu", {"x"}, {"y"}, "r");
    b.output("z");
    EXPECT_EQ(error_of([&] { b.import(); }), "test.onnx: graph 'test': output 'z' is not produced by any node");
  }
  {
    ModelBuilder b;
    b.input("x", {2});
    b.node("Add", {"x"}, {"y"}, "a");
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }), "test.onnx: node 'a' (Add): has 1 inputs, expected 2 to 2");
  }
  {
    ModelBuilder b;
    b.input("x", {2});
    b.node("Relu", {"x"}, {"y"}, "r");
    b.output("y");
    onnx::TensorProto* t = b.proto().mutable_graph()->add_initializer();
    t->set_name("w");
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(3);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: initializer 'w': external tensor data is not supported (save the model with its tensors "
              "inside the .onnx file)");
    t->set_data_location(onnx::TensorProto::DEFAULT);
    t->set_raw_data(std::string(8, '\0'));
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: initializer 'w': raw_data has 8 bytes, a float32 tensor of shape [3] needs 12");
    t->clear_raw_data();
    t->add_float_data(1.0f);
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: initializer 'w': float_data holds 1 values, the shape [3] needs 3");
  }
  {
    ModelBuilder b;
    auto* in = b.proto().mutable_graph()->add_input();
    in->set_name("seq");
    in->mutable_type()->mutable_sequence_type();
    b.node("Identity", {"seq"}, {"y"});
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: graph input 'seq' is a sequence of values of no declared type; only tensors and sequences "
              "of tensors are supported");
    in->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_map_type();
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: graph input 'seq' is a sequence of maps; only tensors and sequences of tensors are "
              "supported");
    in->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto::FLOAT16);
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: graph input 'seq' (its elements): element type FLOAT16 is not supported (supported: FLOAT, "
              "DOUBLE, INT8, UINT8, INT16, INT32, INT64, BOOL)");
    in->mutable_type()->mutable_optional_type();
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: graph input 'seq' is optional; only tensors and sequences of tensors are supported");
  }
}

// ---- sequences of tensors (ONNX's sequence type) ----

TEST(OnnxImport, SequenceInputsAndOutputsAreValuesWithAnElementType) {
  ModelBuilder b(16);
  b.sequence_input("s", {-1, 3});
  b.input("x", {2, 3});
  b.node("SequenceInsert", {"s", "x"}, {"s2"}, "insert");
  b.sequence_output("s2", {}, DType::kFloat32);
  const Graph g = b.import();
  ASSERT_NE(g.info("s"), nullptr);
  EXPECT_TRUE(g.info("s")->sequence);
  EXPECT_EQ(g.info("s")->dtype, DType::kFloat32);
  EXPECT_TRUE(g.info("s")->known_shape);
  EXPECT_EQ(g.info("s")->shape, (Shape{-1, 3}));
  ASSERT_NE(g.info("s2"), nullptr);
  EXPECT_TRUE(g.info("s2")->sequence);
  EXPECT_FALSE(g.info("s2")->known_shape);
  EXPECT_FALSE(g.info("x")->sequence);
  EXPECT_EQ(print_graph(g),
            "graph test (opset 16)\n"
            "input  s: sequence<float32[?,3]>\n"
            "input  x: float32[2,3]\n"
            "node   insert = SequenceInsert(s, x) -> s2: sequence<float32>\n"
            "output s2\n");
}

TEST(OnnxImportErrors, SequenceOperatorAttributes) {
  {
    ModelBuilder b(12);
    b.sequence_input("s", {2});
    b.node("ConcatFromSequence", {"s"}, {"y"}, "cat");
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }), "test.onnx: node 'cat' (ConcatFromSequence): missing attribute 'axis'");
  }
  {
    ModelBuilder b(12);
    b.sequence_input("s", {2});
    auto& n = b.node("ConcatFromSequence", {"s"}, {"y"}, "cat");
    attr_int(n, "axis", 0);
    attr_int(n, "new_axis", 2);
    b.output("y");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'cat' (ConcatFromSequence): attribute 'new_axis' = 2 must be 0 or 1");
  }
  {
    ModelBuilder b(12);
    b.input("x", {2});
    attr_int(b.node("SplitToSequence", {"x"}, {"s"}, "split"), "keepdims", -1);
    b.output("s");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'split' (SplitToSequence): attribute 'keepdims' = -1 must be 0 or 1");
  }
  {
    ModelBuilder b(12);
    attr_int(b.node("SequenceEmpty", {}, {"s"}, "empty"), "dtype", onnx::TensorProto::STRING);
    b.output("s");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'empty' (SequenceEmpty): attribute 'dtype': element type STRING is not supported "
              "(supported: FLOAT, DOUBLE, INT8, UINT8, INT16, INT32, INT64, BOOL)");
  }
  {
    ModelBuilder b(10);  // the sequence operators came with opset 11
    b.input("x", {2});
    b.node("SequenceConstruct", {"x"}, {"s"}, "make");
    b.output("s");
    EXPECT_EQ(error_of([&] { b.import(); }),
              "test.onnx: node 'make' (SequenceConstruct): operator SequenceConstruct does not exist at opset 10");
  }
}

// SequenceMap (and If, Loop, Scan) run a subgraph: tauvta executes flat graphs only.
TEST(OnnxImportErrors, SubgraphOperatorsAreRefusedAsSuch) {
  ModelBuilder b(17);
  b.sequence_input("s", {2});
  auto& n = b.node("SequenceMap", {"s"}, {"t"}, "map");
  auto& body = attr(n, "body");
  body.set_type(onnx::AttributeProto::GRAPH);
  body.mutable_g()->set_name("body");
  b.output("t");
  EXPECT_EQ(error_of([&] { b.import(); }),
            "test.onnx: node 'map' (SequenceMap): operator SequenceMap runs a subgraph (attribute 'body'); operators "
            "with subgraphs (If, Loop, Scan, SequenceMap) are not supported");
}

}  // namespace
}  // namespace tauvta::graph
