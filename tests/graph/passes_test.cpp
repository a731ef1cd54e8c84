// Constant folding, batch-norm folding (checked numerically with the float reference executor
// before and after folding) and dead-node removal; layer statistics.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/error.h"
#include "cpu/float_executor.h"
#include "graph/layer_stats.h"
#include "graph/passes.h"
#include "graph/shape_inference.h"

namespace tauvta::graph {
namespace {

using Ints = std::vector<int64_t>;

Tensor random_tensor(Shape s, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> d(lo, hi);
  Tensor t(DType::kFloat32, std::move(s));
  for (float& v : t.floats()) v = d(rng);
  return t;
}

struct Builder {
  Graph g;
  Builder& in(const std::string& name, Shape s) {
    g.inputs.push_back(name);
    ValueInfo& v = g.info_mut(name);
    v.shape = std::move(s);
    v.known_shape = true;
    return *this;
  }
  Builder& init(const std::string& name, Tensor t) {
    g.initializers[name] = std::move(t);
    return *this;
  }
  Builder& node(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                std::vector<std::string> outputs, std::map<std::string, AttrValue> attrs = {}) {
    g.nodes.push_back(Node{name, op, std::move(inputs), std::move(outputs), std::move(attrs)});
    return *this;
  }
  Builder& out(const std::string& name) {
    g.outputs.push_back(name);
    return *this;
  }
  Builder& bn(const std::string& name, const std::string& x, const std::string& y, int64_t channels, std::mt19937& rng) {
    init(name + ".s", random_tensor({channels}, rng, 0.5f, 2.0f));
    init(name + ".b", random_tensor({channels}, rng));
    init(name + ".m", random_tensor({channels}, rng));
    init(name + ".v", random_tensor({channels}, rng, 0.1f, 3.0f));
    return node(name, "BatchNormalization", {x, name + ".s", name + ".b", name + ".m", name + ".v"}, {y},
                {{"epsilon", 1e-3f}});
  }
};

float max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  float m = 0.0f;
  for (int64_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a.floats()[size_t(i)] - b.floats()[size_t(i)]));
  return m;
}

int count_op(const Graph& g, const std::string& op) {
  return int(std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op_type == op; }));
}

// Runs g before and after fold_batch_norm on the same random input; the BN must be gone and the
// outputs agree to float rounding.
void expect_bn_folds(const Graph& built, const Shape& input_shape, std::mt19937& rng) {
  const Graph g = infer_shapes(built);
  const Graph folded = fold_batch_norm(g);
  EXPECT_EQ(count_op(folded, "BatchNormalization"), 0) << print_graph(folded);
  EXPECT_EQ(folded.nodes.size() + 1, g.nodes.size());
  const cpu::TensorMap inputs = {{"x", random_tensor(input_shape, rng)}};
  const cpu::TensorMap before = cpu::run_float(g, inputs), after = cpu::run_float(folded, inputs);
  const Tensor& y = before.at("y");
  float scale = 0.0f;
  for (float v : y.floats()) scale = std::max(scale, std::abs(v));
  EXPECT_GT(scale, 0.1f);
  EXPECT_LT(max_abs_diff(y, after.at("y")), 2e-5f * scale) << print_graph(folded);
  // The originals stay untouched (they may be shared); the folded weights are new initializers.
  EXPECT_EQ(folded.initializers.at(g.nodes[0].input(1)), g.initializers.at(g.nodes[0].input(1)));
}

TEST(FoldBatchNorm, ConvWithGroupsAndBias) {
  std::mt19937 rng(1);
  Builder b;
  b.in("x", {2, 4, 7, 7}).init("w", random_tensor({6, 2, 3, 3}, rng)).init("bias", random_tensor({6}, rng));
  b.node("conv", "Conv", {"x", "w", "bias"}, {"c"}, {{"group", int64_t(2)}, {"pads", Ints{1, 1, 1, 1}}});
  b.bn("bn", "c", "y", 6, rng).out("y");
  expect_bn_folds(b.g, {2, 4, 7, 7}, rng);
}

TEST(FoldBatchNorm, DepthwiseConvWithoutBias) {
  std::mt19937 rng(2);
  Builder b;
  b.in("x", {1, 5, 6, 6}).init("w", random_tensor({5, 1, 3, 3}, rng));
  b.node("conv", "Conv", {"x", "w"}, {"c"}, {{"group", int64_t(5)}, {"strides", Ints{2, 2}}});
  b.bn("bn", "c", "y", 5, rng).out("y");
  expect_bn_folds(b.g, {1, 5, 6, 6}, rng);
}

TEST(FoldBatchNorm, ConvTransposeWithGroups) {
  std::mt19937 rng(3);
  Builder b;
  b.in("x", {2, 4, 3, 3}).init("w", random_tensor({4, 3, 4, 4}, rng));
  b.node("up", "ConvTranspose", {"x", "w"}, {"c"}, {{"group", int64_t(2)}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}});
  b.bn("bn", "c", "y", 6, rng).out("y");
  expect_bn_folds(b.g, {2, 4, 3, 3}, rng);
}

TEST(FoldBatchNorm, GemmWithVectorBias) {
  std::mt19937 rng(4);
  Builder b;
  b.in("x", {3, 8}).init("w", random_tensor({5, 8}, rng)).init("c", random_tensor({5}, rng));
  b.node("fc", "Gemm", {"x", "w", "c"}, {"g"}, {{"transB", int64_t(1)}, {"alpha", 0.5f}, {"beta", 2.0f}});
  b.bn("bn", "g", "y", 5, rng).out("y");
  expect_bn_folds(b.g, {3, 8}, rng);
}

TEST(FoldBatchNorm, GemmWithMatrixBiasAndNoBias) {
  std::mt19937 rng(5);
  Builder b;
  b.in("x", {3, 8}).init("w", random_tensor({8, 5}, rng)).init("c", random_tensor({3, 5}, rng));
  b.node("fc", "Gemm", {"x", "w", "c"}, {"g"}, {{"beta", 0.25f}});
  b.bn("bn", "g", "y", 5, rng).out("y");
  expect_bn_folds(b.g, {3, 8}, rng);
  Builder nb;
  nb.in("x", {3, 8}).init("w", random_tensor({8, 5}, rng));
  nb.node("fc", "Gemm", {"x", "w"}, {"g"});
  nb.bn("bn", "g", "y", 5, rng).out("y");
  expect_bn_folds(nb.g, {3, 8}, rng);
}

TEST(FoldBatchNorm, LeavesSharedOrUnfoldableLayersAlone) {
  std::mt19937 rng(6);
  Builder b;
  b.in("x", {1, 2, 4, 4}).init("w", random_tensor({2, 2, 1, 1}, rng));
  b.node("conv", "Conv", {"x", "w"}, {"c"});
  b.bn("bn", "c", "y", 2, rng).out("y");
  b.node("other", "Relu", {"c"}, {"z"}).out("z");  // the conv output has a second reader
  b.bn("bn_in", "x", "y2", 2, rng).out("y2");      // BN of a graph input: nothing to fold into
  const Graph g = infer_shapes(b.g);
  EXPECT_EQ(print_graph(fold_batch_norm(g)), print_graph(g));
}

TEST(FoldBatchNorm, LeavesTrainingModeAlone) {
  // A training-mode BN normalizes with the batch's statistics: folding its running statistics into
  // the conv would change the result.
  std::mt19937 rng(7);
  Builder b;
  b.in("x", {4, 2, 3, 3}).init("w", random_tensor({3, 2, 1, 1}, rng));
  b.node("conv", "Conv", {"x", "w"}, {"c"});
  b.bn("bn", "c", "y", 3, rng).out("y");
  b.g.nodes.back().attrs["training_mode"] = int64_t(1);
  b.g.nodes.back().attrs["momentum"] = 0.9f;
  Builder with_stats = b;  // the same with the running statistics as outputs
  with_stats.g.nodes.back().outputs = {"y", "rm", "rv"};
  with_stats.out("rm").out("rv");
  for (const Graph& built : {b.g, with_stats.g}) {
    const Graph g = infer_shapes(built);
    const Graph folded = fold_batch_norm(g);
    EXPECT_EQ(print_graph(folded), print_graph(g));
    // The batch statistics are what the output uses: per channel mean 0 and variance 1 (before
    // scale and bias), which the running statistics do not give.
    const cpu::TensorMap out = cpu::run_float(folded, {{"x", random_tensor({4, 2, 3, 3}, rng)}});
    const std::vector<float> y = out.at("y").to_float();
    const std::vector<float> scale = g.initializers.at("bn.s").to_float(), bias = g.initializers.at("bn.b").to_float();
    for (int64_t c = 0; c < 3; ++c) {
      double sum = 0, sum2 = 0;
      for (int64_t n = 0; n < 4; ++n) {
        for (int64_t i = 0; i < 9; ++i) {
          const double v = (y[size_t((n * 3 + c) * 9 + i)] - bias[size_t(c)]) / scale[size_t(c)];
          sum += v;
          sum2 += v * v;
        }
      }
      EXPECT_NEAR(sum / 36, 0.0, 1e-4) << c;
      EXPECT_NEAR(sum2 / 36, 1.0, 2e-2) << c;  // var / (var + eps) with eps 1e-3
    }
  }
}

TEST(FoldConstants, EvaluatesConstantNodesThroughTheEvaluator) {
  Builder b;
  b.in("x", {2, 3}).init("a", Tensor::from_floats({3}, {1, 2, 3})).init("two", Tensor::scalar_float(2));
  b.node("double", "Mul", {"a", "two"}, {"a2"});  // float: needs the evaluator
  b.node("add", "Add", {"x", "a2"}, {"y"}).out("y");
  const Graph g = infer_shapes(b.g);
  const Graph no_eval = fold_constants(g);
  EXPECT_EQ(no_eval.nodes.size(), 1u);  // small float arithmetic is shape arithmetic: folded anyway
  int calls = 0;
  const NodeEvaluator refuse = [&](const Node&, const std::vector<const Tensor*>&, int64_t) {
    ++calls;
    return std::vector<Tensor>{};
  };
  Builder big;
  big.in("x", {1, 3, 4, 4}).init("w", Tensor(DType::kFloat32, {3, 3, 1, 1})).init("bias", Tensor(DType::kFloat32, {3}));
  big.node("relu_w", "Relu", {"w"}, {"w2"});
  big.node("conv", "Conv", {"x", "w2", "bias"}, {"y"}).out("y");
  const Graph bg = infer_shapes(big.g);
  EXPECT_EQ(fold_constants(bg, refuse).nodes.size(), 2u);  // the evaluator declined: the node stays
  EXPECT_EQ(calls, 1);
  const Graph folded = fold_constants(bg, cpu::eval_float_node);
  ASSERT_EQ(folded.nodes.size(), 1u);
  EXPECT_TRUE(folded.is_initializer("w2"));
  EXPECT_EQ(folded.info("w2")->shape, (Shape{3, 3, 1, 1}));
}

TEST(FoldConstants, ShapeOfKnownShapesAndDropoutMasks) {
  Builder b;
  b.in("x", {2, 3, 4});
  b.node("s", "Shape", {"x"}, {"shape"}, {{"start", int64_t(1)}});
  b.node("d", "Dropout", {"x"}, {"y", "mask"});
  b.out("shape").out("y").out("mask");
  const Graph g = fold_constants(infer_shapes(b.g));
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "Identity");
  EXPECT_EQ(g.initializers.at("shape"), Tensor::from_int64(DType::kInt64, {2}, {3, 4}));
  const Tensor& mask = g.initializers.at("mask");
  EXPECT_EQ(mask.dtype(), DType::kBool);
  EXPECT_EQ(mask.shape(), (Shape{2, 3, 4}));
  EXPECT_TRUE(std::all_of(mask.raw(), mask.raw() + mask.size(), [](uint8_t v) { return v == 1; }));
  // A Dropout with a run-time training_mode keeps its mask: the kernel decides at run time.
  Builder t;
  t.in("x", {2, 3}).in("r", {}).in("train", {});
  t.g.info_mut("train").dtype = DType::kBool;
  t.node("d", "Dropout", {"x", "r", "train"}, {"y", "mask"}).out("y").out("mask");
  const Graph kept = fold_constants(infer_shapes(t.g));
  ASSERT_EQ(kept.nodes.size(), 1u);
  EXPECT_EQ(kept.nodes[0].op_type, "Dropout");
  EXPECT_EQ(kept.nodes[0].outputs, (std::vector<std::string>{"y", "mask"}));
  EXPECT_FALSE(kept.is_initializer("mask"));
  // An unbound batch dimension keeps the Shape node.
  Builder u;
  u.in("x", {-1, 3}).node("s", "Shape", {"x"}, {"shape"}).out("shape");
  EXPECT_EQ(fold_constants(infer_shapes(u.g)).nodes.size(), 1u);
}

TEST(RemoveDeadNodes, KeepsWhatReachesOutputs) {
  Builder b;
  b.in("x", {2}).in("unused_input", {3}).init("c", Tensor::scalar_float(1)).init("dead_c", Tensor::scalar_float(2));
  b.node("a", "Add", {"x", "c"}, {"a"});
  b.node("dead", "Mul", {"a", "dead_c"}, {"d"});
  b.node("dead2", "Relu", {"d"}, {"d2"});
  b.node("r", "Relu", {"a"}, {"y"}).out("y");
  const Graph g = remove_dead_nodes(infer_shapes(b.g));
  EXPECT_EQ(print_graph(g),
            "graph  (opset 13)\n"
            "input  x: float32[2]\n"
            "input  unused_input: float32[3]\n"
            "init   c: float32[]\n"
            "node   a = Add(x, c) -> a: float32[2]\n"
            "node   r = Relu(a) -> y: float32[2]\n"
            "output y\n");
  EXPECT_EQ(g.info("d"), nullptr);
  EXPECT_NE(g.info("unused_input"), nullptr);
}

TEST(LayerStats, MacsAndParams) {
  Builder b;
  b.in("x", {2, 4, 8, 8}).init("w", Tensor(DType::kFloat32, {6, 2, 3, 3})).init("bias", Tensor(DType::kFloat32, {6}));
  b.init("wt", Tensor(DType::kFloat32, {6, 3, 2, 2})).init("fc", Tensor(DType::kFloat32, {10, 3 * 12 * 12}));
  b.node("conv", "Conv", {"x", "w", "bias"}, {"c"}, {{"group", int64_t(2)}});       // [2,6,6,6]
  b.node("up", "ConvTranspose", {"c", "wt"}, {"u"}, {{"strides", Ints{2, 2}}});      // [2,3,12,12]
  b.node("flat", "Flatten", {"u"}, {"f"});
  b.node("dense", "Gemm", {"f", "fc", "bias2"}, {"y"}, {{"transB", int64_t(1)}}).out("y");
  b.init("bias2", Tensor(DType::kFloat32, {10}));
  b.node("dense2", "Gemm", {"f", "fc"}, {"y2"}, {{"transB", int64_t(1)}}).out("y2");  // shares fc
  const GraphStats s = graph_stats(infer_shapes(b.g));
  ASSERT_EQ(s.layers.size(), 5u);
  EXPECT_EQ(s.layers[0].macs, 2 * 6 * 6 * 6 * (2 * 3 * 3));
  EXPECT_EQ(s.layers[0].params, 6 * 2 * 3 * 3 + 6);
  EXPECT_EQ(s.layers[1].macs, 2 * 6 * 6 * 6 * (3 * 2 * 2));
  EXPECT_EQ(s.layers[1].output_shape, (Shape{2, 3, 12, 12}));
  EXPECT_EQ(s.layers[2].macs, 0);
  EXPECT_EQ(s.layers[3].macs, 2 * 10 * 432);
  EXPECT_EQ(s.layers[3].params, 4320 + 10);
  EXPECT_EQ(s.total_macs, s.layers[0].macs + s.layers[1].macs + 2 * s.layers[3].macs);
  EXPECT_EQ(s.total_params, 108 + 6 + 72 + 4320 + 10);  // fc counted once
  EXPECT_EQ(s.op_counts.at("Gemm"), 2);
  Builder unknown;
  unknown.in("x", {-1, 4}).init("w", Tensor(DType::kFloat32, {4, 2})).node("mm", "MatMul", {"x", "w"}, {"y"}).out("y");
  EXPECT_EQ(graph_stats(infer_shapes(unknown.g)).total_macs, -1);
}

}  // namespace
}  // namespace tauvta::graph
