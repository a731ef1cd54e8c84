// Sequences of tensors in the graph layer: the shape rules of the sequence operators (element
// shapes as unions of what may be inside, split and concat shapes, kinds checked), the driver's
// refusal of a sequence where a tensor belongs, constant folding leaving sequences alone, and the
// integer path refusing sequences with a one-line reason.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/error.h"
#include "common/error_of.h"
#include "cpu/float_executor.h"
#include "graph/passes.h"
#include "graph/quantize.h"
#include "graph/shape_inference.h"

namespace tauvta::graph {
namespace {

using tauvta::testing::error_of;
using Ints = std::vector<int64_t>;

Tensor int64_scalar(int64_t v) { return Tensor::from_int64(DType::kInt64, {}, {v}); }

// A graph under construction; nodes are named n0, n1, ... and the last node's outputs are the
// graph's outputs.
struct SeqBuilder {
  Graph g;
  SeqBuilder() { g.opset = 17; }
  SeqBuilder& in(const std::string& name, Shape s, DType t = DType::kFloat32, bool sequence = false,
                 bool known = true) {
    g.inputs.push_back(name);
    ValueInfo& v = g.info_mut(name);
    v.dtype = t;
    v.shape = std::move(s);
    v.known_shape = known;
    v.sequence = sequence;
    return *this;
  }
  SeqBuilder& init(const std::string& name, Tensor t) {
    g.initializers[name] = std::move(t);
    return *this;
  }
  SeqBuilder& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                   std::map<std::string, AttrValue> attrs = {}) {
    g.nodes.push_back(
        Node{fmt::format("n{}", g.nodes.size()), op, std::move(inputs), std::move(outputs), std::move(attrs)});
    g.outputs = g.nodes.back().outputs;
    return *this;
  }
  // "sequence<float32[2,?]>", "sequence<int64>" (no element shape), "float32[2,3]", "unranked".
  std::string type_of(const std::string& v, const ShapeInferenceOptions& o = {}) const {
    const Graph r = infer_shapes(g, o);
    const ValueInfo* i = r.info(v);
    if (i == nullptr) return "none";
    if (!i->sequence && !i->known_shape) return "unranked";
    return type_string(*i);
  }
};

TEST(SequenceShapes, TypeStringsNameTheKind) {
  ValueInfo v;
  v.dtype = DType::kInt64;
  EXPECT_EQ(type_string(v), "?");
  v.sequence = true;
  EXPECT_EQ(type_string(v), "sequence<int64>");
  v.shape = {-1, 3};
  v.known_shape = true;
  EXPECT_EQ(type_string(v), "sequence<int64[?,3]>");
  v.sequence = false;
  EXPECT_EQ(type_string(v), "int64[?,3]");
}

TEST(SequenceShapes, ElementShapesAreWhatEveryElementHas) {
  EXPECT_EQ(SeqBuilder().in("a", {2, 3}).in("b", {2, 4}).node("SequenceConstruct", {"a", "b"}, {"s"}).type_of("s"),
            "sequence<float32[2,?]>");
  EXPECT_EQ(SeqBuilder().in("a", {2, 3}).in("b", {3}).node("SequenceConstruct", {"a", "b"}, {"s"}).type_of("s"),
            "sequence<float32>");  // ranks differ
  // SequenceEmpty knows no element shape, so neither does what is inserted into it (ONNX's rule).
  EXPECT_EQ(SeqBuilder().node("SequenceEmpty", {}, {"s"}, {{"dtype", int64_t(7)}}).type_of("s"), "sequence<int64>");
  SeqBuilder inserted;
  inserted.in("x", {2}).node("SequenceEmpty", {}, {"e"}).node("SequenceInsert", {"e", "x"}, {"s"});
  EXPECT_EQ(inserted.type_of("s"), "sequence<float32>");
  SeqBuilder b;
  b.in("a", {2, 3}).in("x", {2, 3}).init("p", int64_scalar(-1));
  b.node("SequenceConstruct", {"a"}, {"s"}).node("SequenceInsert", {"s", "x", "p"}, {"s2"});
  b.node("SequenceErase", {"s2"}, {"s3"}).node("SequenceAt", {"s3", "p"}, {"y"}).node("SequenceLength", {"s3"}, {"n"});
  b.g.outputs = {"y", "n"};
  EXPECT_EQ(b.type_of("s2"), "sequence<float32[2,3]>");
  EXPECT_EQ(b.type_of("s3"), "sequence<float32[2,3]>");
  EXPECT_EQ(b.type_of("y"), "float32[2,3]");
  EXPECT_EQ(b.type_of("n"), "int64[]");
  // Identity keeps the kind.
  EXPECT_EQ(SeqBuilder().in("s", {-1}, DType::kInt64, true).node("Identity", {"s"}, {"t"}).type_of("t"),
            "sequence<int64[?]>");
}

TEST(SequenceShapes, SplitToSequence) {
  auto split = [](std::map<std::string, AttrValue> attrs, const Tensor* split_value = nullptr,
                  bool runtime_split = false) {
    SeqBuilder b;
    b.in("x", {2, 6});
    std::vector<std::string> inputs = {"x"};
    if (split_value != nullptr) {
      b.init("split", *split_value);
      inputs.push_back("split");
    } else if (runtime_split) {
      b.in("split", {}, DType::kInt64);
      inputs.push_back("split");
    }
    return b.node("SplitToSequence", inputs, {"s"}, std::move(attrs)).type_of("s");
  };
  EXPECT_EQ(split({{"axis", int64_t(1)}}), "sequence<float32[2,1]>");
  EXPECT_EQ(split({{"axis", int64_t(-1)}, {"keepdims", int64_t(0)}}), "sequence<float32[2]>");
  EXPECT_EQ(split({}), "sequence<float32[1,6]>");
  const Tensor three = int64_scalar(3), four = int64_scalar(4);
  const Tensor even = Tensor::from_int64(DType::kInt64, {2}, {3, 3});
  const Tensor uneven = Tensor::from_int64(DType::kInt64, {2}, {2, 4});
  EXPECT_EQ(split({{"axis", int64_t(1)}}, &three), "sequence<float32[2,3]>");
  EXPECT_EQ(split({{"axis", int64_t(1)}}, &four), "sequence<float32[2,?]>");  // 4 and the smaller last piece
  EXPECT_EQ(split({{"axis", int64_t(1)}, {"keepdims", int64_t(0)}}, &even), "sequence<float32[2,3]>");
  EXPECT_EQ(split({{"axis", int64_t(1)}}, &uneven), "sequence<float32[2,?]>");
  EXPECT_EQ(split({{"axis", int64_t(1)}}, nullptr, true), "sequence<float32[2,?]>");
  EXPECT_EQ(SeqBuilder().in("x", {}, DType::kFloat32, false, false).node("SplitToSequence", {"x"}, {"s"}).type_of("s"),
            "sequence<float32>");
  EXPECT_EQ(error_of([&] { split({{"axis", int64_t(2)}}); }),
            "node 'n0' (SplitToSequence): axis 2 is out of range for rank 2");
  const Tensor matrix = Tensor::from_int64(DType::kInt64, {1, 1}, {6});
  EXPECT_EQ(error_of([&] { split({}, &matrix); }),
            "node 'n0' (SplitToSequence): split ('split') has shape [1,1], expected a scalar or a 1-D tensor");
  const Tensor floats = Tensor::from_floats({}, {2});
  EXPECT_EQ(error_of([&] { split({}, &floats); }),
            "node 'n0' (SplitToSequence): split ('split') is float32, expected int32 or int64");
}

TEST(SequenceShapes, ConcatFromSequence) {
  auto concat = [](std::map<std::string, AttrValue> attrs, bool known = true) {
    return SeqBuilder()
        .in("s", {2, 3}, DType::kFloat32, true, known)
        .node("ConcatFromSequence", {"s"}, {"y"}, std::move(attrs))
        .type_of("y");
  };
  EXPECT_EQ(concat({{"axis", int64_t(1)}}), "float32[2,?]");  // the sum over the elements
  EXPECT_EQ(concat({{"axis", int64_t(-2)}}), "float32[?,3]");
  EXPECT_EQ(concat({{"axis", int64_t(-1)}, {"new_axis", int64_t(1)}}), "float32[2,3,?]");  // the length
  EXPECT_EQ(concat({{"axis", int64_t(0)}, {"new_axis", int64_t(1)}}), "float32[?,2,3]");
  EXPECT_EQ(concat({{"axis", int64_t(-3)}, {"new_axis", int64_t(1)}}), "float32[?,2,3]");
  EXPECT_EQ(concat({{"axis", int64_t(0)}}, false), "unranked");
  EXPECT_EQ(error_of([&] { concat({{"axis", int64_t(3)}, {"new_axis", int64_t(1)}}); }),
            "node 'n0' (ConcatFromSequence): axis 3 is out of range for rank 3");
  EXPECT_EQ(error_of([&] { concat({{"axis", int64_t(2)}}); }),
            "node 'n0' (ConcatFromSequence): axis 2 is out of range for rank 2");
}

TEST(SequenceShapes, KindsAndDtypesAreChecked) {
  // The error of inferring a graph with a float32 sequence 's' (element shape [2]), a float32 tensor
  // 'x' of shape [2] and an int64 tensor 'i', plus `init` when given, and one node.
  auto error_with = [](const std::string& op, std::vector<std::string> inputs, const Tensor* init = nullptr) {
    SeqBuilder b;
    b.in("s", {2}, DType::kFloat32, true).in("x", {2}).in("i", {2}, DType::kInt64);
    if (init != nullptr) b.init("p", *init);
    b.node(op, std::move(inputs), {"y"});
    return error_of([&] { infer_shapes(b.g); });
  };
  EXPECT_EQ(error_with("Relu", {"s"}), "node 'n0' (Relu): input 0 ('s') is a sequence of tensors; Relu takes tensors");
  const Tensor zero = int64_scalar(0);
  EXPECT_EQ(error_with("SequenceAt", {"x", "p"}, &zero),
            "node 'n0' (SequenceAt): input 0 ('x') is a tensor, expected a sequence");
  EXPECT_EQ(error_with("SequenceConstruct", {"s"}),
            "node 'n0' (SequenceConstruct): input 0 ('s') is a sequence, expected a tensor");
  EXPECT_EQ(error_with("SequenceConstruct", {"x", "i"}),
            "node 'n0' (SequenceConstruct): input 1 ('i') is int64, input 0 is float32: a sequence holds tensors of "
            "one dtype");
  EXPECT_EQ(error_with("SequenceInsert", {"s", "i"}),
            "node 'n0' (SequenceInsert): input 1 ('i') is int64, the sequence holds float32 tensors");
  const Tensor float_position = Tensor::from_floats({}, {0});
  EXPECT_EQ(error_with("SequenceAt", {"s", "p"}, &float_position),
            "node 'n0' (SequenceAt): position ('p') is float32, expected int32 or int64");
  const Tensor two_positions = Tensor::from_int64(DType::kInt64, {2}, {0, 1});
  EXPECT_EQ(error_with("SequenceErase", {"s", "p"}, &two_positions),
            "node 'n0' (SequenceErase): position ('p') has shape [2], expected a scalar");
}

TEST(SequenceShapes, DeclaredKindsAndBindingsAreChecked) {
  SeqBuilder b;
  b.in("x", {2}).node("SequenceConstruct", {"x"}, {"s"});
  b.g.info_mut("s").dtype = DType::kFloat32;  // declared as a tensor (of unknown shape)
  EXPECT_EQ(error_of([&] { infer_shapes(b.g); }),
            "node 'n0' (SequenceConstruct): inferred a sequence for 's', but the graph records a tensor");
  SeqBuilder c;
  c.in("s", {-1, 3}, DType::kFloat32, true).node("SequenceLength", {"s"}, {"n"});
  ShapeInferenceOptions o;
  o.batch = 4;  // a sequence carries no batch: its element shape stays
  EXPECT_EQ(infer_shapes(c.g, o).info("s")->shape, (Shape{-1, 3}));
  o.input_shapes["s"] = {2, 3};
  EXPECT_EQ(error_of([&] { infer_shapes(c.g, o); }),
            "cannot set the shape of graph input 's': it is a sequence, and its elements' shapes are only known at "
            "run time");
}

TEST(SequencePasses, ConstantFoldingLeavesSequencesAlone) {
  SeqBuilder b;
  b.init("a", Tensor::from_floats({2}, {1, 2})).init("p", int64_scalar(0));
  b.node("SequenceConstruct", {"a"}, {"s"}).node("SequenceAt", {"s", "p"}, {"y"});
  ShapeInferenceOptions o;
  o.evaluate = cpu::eval_float_node;  // small known inputs: sequence operators are still not evaluated
  const Graph inferred = infer_shapes(b.g, o);
  const Graph folded = fold_constants(inferred, cpu::eval_float_node);
  ASSERT_EQ(folded.nodes.size(), 2u);
  EXPECT_EQ(folded.nodes[0].op_type, "SequenceConstruct");
  EXPECT_EQ(cpu::run_float(folded, {}).at("y"), Tensor::from_floats({2}, {1, 2}));
}

TEST(SequenceQuantize, TheIntegerPathRefusesSequencesNamingTheNode) {
  SeqBuilder b;
  b.in("x", {1, 4}).init("p", int64_scalar(0));
  b.node("Relu", {"x"}, {"r"}).node("SplitToSequence", {"r"}, {"s"}).node("SequenceAt", {"s", "p"}, {"y"});
  const Graph g = infer_shapes(b.g);
  const std::string why = "the integer path (quantization, the integer reference, the accelerator) carries tensors "
                          "only; run the model on the float reference (--float)";
  const std::string split_output = "node 'n1' (SplitToSequence): output 's' is a sequence of tensors; ";
  EXPECT_EQ(error_of([&] { refuse_sequences(g); }), split_output + why);
  EXPECT_EQ(error_of([&] { quantize(g, {}, {}); }), split_output + why);
  // Without shape inference the operator alone says it.
  SeqBuilder raw;
  raw.node("SequenceEmpty", {}, {"e"});
  EXPECT_EQ(error_of([&] { refuse_sequences(raw.g); }),
            "node 'n0' (SequenceEmpty): a sequence operator (sequences of tensors have no fixed-point form); " + why);
  // The placement reason of every sequence operator.
  EXPECT_EQ(float_fallback_why(g.nodes[1]), "a sequence operator (sequences of tensors have no fixed-point form)");
  EXPECT_EQ(float_fallback_why(g.nodes[0]), "");
  EXPECT_NO_THROW(refuse_sequences(SeqBuilder().in("x", {2}).node("Relu", {"x"}, {"y"}).g));
}

}  // namespace
}  // namespace tauvta::graph
