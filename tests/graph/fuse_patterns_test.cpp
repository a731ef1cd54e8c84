// fuse_patterns: the opset < 17 LayerNorm decomposition becomes LayerNormalization and token-wise
// MatMul (+ bias) becomes Reshape -> Gemm -> Reshape, with the float results unchanged (checked
// numerically with run_float before and after); values read outside a pattern are never fused.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "cpu/float_executor.h"
#include "graph/passes.h"
#include "graph/shape_inference.h"

namespace tauvta::graph {
namespace {

Tensor wave(Shape s, float scale, int seed) {
  Tensor t(DType::kFloat32, std::move(s));
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = scale * std::sin(0.37f * float(i) + float(seed));
  return t;
}

struct Builder {
  Graph g;
  Builder() {
    g.inputs = {"x"};
    ValueInfo& x = g.info_mut("x");
    x.shape = {2, 5, 8};
    x.known_shape = true;
  }
  void node(const std::string& op, std::vector<std::string> in, std::string out, std::map<std::string, AttrValue> a = {}) {
    g.nodes.push_back(Node{fmt::format("n{}_{}", g.nodes.size(), op), op, std::move(in), {out}, std::move(a)});
  }
  // torch's F.layer_norm at opset 13, over the last axis, then a token-wise linear layer.
  Graph transformer_piece(bool extra_reader) {
    g.initializers["two"] = Tensor::scalar_float(2.0f);
    g.initializers["eps"] = Tensor::scalar_float(1e-5f);
    g.initializers["gamma"] = wave({8}, 1.0f, 1);
    g.initializers["beta"] = wave({8}, 0.5f, 2);
    g.initializers["w"] = wave({8, 6}, 0.3f, 3);
    g.initializers["b"] = wave({6}, 0.2f, 4);
    node("ReduceMean", {"x"}, "m", {{"axes", std::vector<int64_t>{-1}}});
    node("Sub", {"x", "m"}, "d");
    node("Pow", {"d", "two"}, "p");
    node("ReduceMean", {"p"}, "v", {{"axes", std::vector<int64_t>{-1}}});
    node("Add", {"v", "eps"}, "ve");
    node("Sqrt", {"ve"}, "s");
    node("Div", {"d", "s"}, "n");
    node("Mul", {"n", "gamma"}, "y");
    node("Add", {"y", "beta"}, "z");
    node("MatMul", {"z", "w"}, "mm");
    node("Add", {"mm", "b"}, "out");
    g.outputs = {"out"};
    if (extra_reader) g.outputs.push_back("d");  // d is read outside the pattern
    return infer_shapes(g);
  }
};

std::vector<std::string> ops(const Graph& g) {
  std::vector<std::string> v;
  for (const Node& n : g.nodes) v.push_back(n.op_type);
  return v;
}

TEST(FusePatterns, LayerNormAndTokenLinearBecomeOneLayerEach) {
  const Graph g = Builder().transformer_piece(false);
  const Graph f = remove_dead_nodes(infer_shapes(fuse_patterns(g)));
  EXPECT_EQ(ops(f), (std::vector<std::string>{"LayerNormalization", "Reshape", "Gemm", "Reshape"}));
  const Node& ln = f.nodes[0];
  EXPECT_EQ(ln.inputs, (std::vector<std::string>{"x", "gamma", "beta"}));
  EXPECT_EQ(ln.outputs[0], "z");
  EXPECT_EQ(ln.attr_int("axis"), 2);
  EXPECT_FLOAT_EQ(ln.attr_float("epsilon"), 1e-5f);
  EXPECT_EQ(f.nodes[2].inputs, (std::vector<std::string>{f.nodes[1].outputs[0], "w", "b"}));
  EXPECT_EQ(shape_string(f.info(f.nodes[2].outputs[0])->shape), "[10,6]");
  EXPECT_EQ(shape_string(f.info("out")->shape), "[2,5,6]");
  const Tensor x = wave({2, 5, 8}, 3.0f, 7);
  const Tensor want = cpu::run_float(g, {{"x", x}}).at("out");
  const Tensor got = cpu::run_float(f, {{"x", x}}).at("out");
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got.floats()[size_t(i)], want.floats()[size_t(i)], 2e-5f) << i;
}

TEST(FusePatterns, ValuesReadElsewhereAreNotFusedAway) {
  const Graph g = Builder().transformer_piece(true);
  const Graph f = fuse_patterns(g);
  // The LayerNorm chain stays (d is a graph output); the linear layer still fuses.
  EXPECT_EQ(ops(f), (std::vector<std::string>{"ReduceMean", "Sub", "Pow", "ReduceMean", "Add", "Sqrt", "Div", "Mul",
                                              "Add", "Reshape", "Gemm", "Reshape"}));
}

TEST(FusePatterns, TwoDimensionalMatMulWithBiasBecomesGemm) {
  Builder b;
  b.g.info_mut("x").shape = {3, 8};
  b.g.initializers["w"] = wave({8, 4}, 0.3f, 3);
  b.g.initializers["b"] = wave({1, 4}, 0.2f, 4);
  b.node("MatMul", {"x", "w"}, "mm");
  b.node("Add", {"b", "mm"}, "out");
  b.g.outputs = {"out"};
  const Graph g = infer_shapes(b.g);
  const Graph f = remove_dead_nodes(fuse_patterns(g));
  ASSERT_EQ(ops(f), (std::vector<std::string>{"Gemm"}));
  EXPECT_EQ(f.initializers.at(f.nodes[0].inputs[2]).shape(), (Shape{4}));
  const Tensor x = wave({3, 8}, 1.0f, 5);
  const Tensor want = cpu::run_float(g, {{"x", x}}).at("out");
  const Tensor got = cpu::run_float(f, {{"x", x}}).at("out");
  for (int64_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got.floats()[size_t(i)], want.floats()[size_t(i)], 1e-6f) << i;
}


// nn.GELU() at opset 13: Div sqrt(2) -> Erf -> Add 1 -> Mul x -> Mul 0.5, and the other Mul order
// (0.5 * x first) -> one Gelu with the same values.
TEST(FusePatterns, ErfGeluChainsBecomeGelu) {
  for (bool half_first : {false, true}) {
    Builder b;
    b.g.initializers["root2"] = Tensor::scalar_float(1.4142135f);
    b.g.initializers["one"] = Tensor::scalar_float(1.0f);
    b.g.initializers["half"] = Tensor::scalar_float(0.5f);
    b.node("Div", {"x", "root2"}, "a");
    b.node("Erf", {"a"}, "e");
    b.node("Add", {"e", "one"}, "p");
    if (half_first) {
      b.node("Mul", {"x", "half"}, "h");
      b.node("Mul", {"h", "p"}, "y");
    } else {
      b.node("Mul", {"x", "p"}, "q");
      b.node("Mul", {"q", "half"}, "y");
    }
    b.g.outputs = {"y"};
    const Graph g = infer_shapes(b.g);
    const Graph f = remove_dead_nodes(fuse_patterns(g));
    ASSERT_EQ(ops(f), (std::vector<std::string>{"Gelu"})) << half_first;
    EXPECT_EQ(f.nodes[0].inputs[0], "x");
    const Tensor x = wave({2, 5, 8}, 3.0f, 2);
    const Tensor want = cpu::run_float(g, {{"x", x}}).at("y");
    const Tensor got = cpu::run_float(f, {{"x", x}}).at("y");
    for (int64_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got.floats()[size_t(i)], want.floats()[size_t(i)], 1e-5f) << i;
  }
}

}  // namespace
}  // namespace tauvta::graph
