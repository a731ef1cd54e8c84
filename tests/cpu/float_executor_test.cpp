// run_float as a whole: graph execution order, outputs that are inputs or initializers, the
// observer, freeing values after their last use, batch sizes above one, and the errors a user
// can act on (missing or unknown inputs, wrong shapes, unsupported operators, kernel failures),
// each naming the node.
#include "common/error.h"
#include "cpu/op_registry.h"
#include "float_test_util.h"

namespace tauvta::cpu {
namespace {

using namespace testing_util;
using graph::Graph;

Node node(const std::string& name, const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
          std::map<std::string, AttrValue> attrs = {}) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attrs = std::move(attrs);
  return n;
}

// x -> Conv(w, b) -> Relu -> Add(x skip) -> y, plus the initializer w as a second output.
Graph small_graph(int64_t batch) {
  Graph g;
  g.name = "small";
  g.inputs = {"x"};
  g.outputs = {"y", "w"};
  g.initializers["w"] = Tensor::from_floats({2, 2, 1, 1}, {1, 1, -1, 2});
  g.initializers["b"] = Tensor::from_floats({2}, {0, 1});
  g.nodes = {node("conv", "Conv", {"x", "w", "b"}, {"c"}), node("relu", "Relu", {"c"}, {"r"}),
             node("add", "Add", {"r", "x"}, {"y"})};
  g.info_mut("x").shape = {batch, 2, 1, 2};
  g.info_mut("x").known_shape = true;
  return g;
}

TEST(FloatExecutor, RunsNodesInOrderAndReturnsEveryOutput) {
  Graph g = small_graph(1);
  Tensor x = Tensor::from_floats({1, 2, 1, 2}, {1, 2, 3, 4});
  std::vector<std::string> seen;
  TensorMap out = run_float(g, {{"x", x}}, [&](const Node& n, const std::vector<const Tensor*>& outs) {
    seen.push_back(n.name);
    ASSERT_EQ(outs.size(), 1u);
    ASSERT_NE(outs[0], nullptr);
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"conv", "relu", "add"}));
  // conv: c0 = x0 + x1 = [4, 6]; c1 = -x0 + 2 x1 + 1 = [6, 7]; relu keeps them; + x.
  EXPECT_TRUE(near(out.at("y"), {1, 2, 1, 2}, {5, 8, 9, 11}));
  EXPECT_EQ(out.at("w"), g.initializers.at("w"));
}

TEST(FloatExecutor, BatchesAboveOneMatchOneImageAtATime) {
  Graph g = small_graph(3);
  Tensor x = iota({3, 2, 1, 2}, -5.0f, 0.75f);
  TensorMap all = run_float(g, {{"x", x}});
  Graph g1 = small_graph(1);
  for (int64_t n = 0; n < 3; ++n) {
    std::vector<float> one(x.floats().begin() + n * 4, x.floats().begin() + (n + 1) * 4);
    TensorMap o = run_float(g1, {{"x", Tensor::from_floats({1, 2, 1, 2}, one)}});
    std::vector<float> expected(o.at("y").floats().begin(), o.at("y").floats().end());
    std::vector<float> got(all.at("y").floats().begin() + n * 4, all.at("y").floats().begin() + (n + 1) * 4);
    EXPECT_EQ(got, expected) << "image " << n;
  }
}

TEST(FloatExecutor, FreesValuesAfterTheirLastConsumer) {
  // A chain of 12 Relus over 1 MiB: only the value being read and the one being written are live.
  Graph g;
  g.name = "chain";
  g.inputs = {"v0"};
  for (int i = 0; i < 12; ++i) {
    g.nodes.push_back(node("relu" + std::to_string(i), "Relu", {"v" + std::to_string(i)}, {"v" + std::to_string(i + 1)}));
  }
  g.outputs = {"v12"};
  Tensor x = iota({256, 1024}, -100.0f, 0.001f);
  FloatRunStats stats;
  TensorMap out = run_float(g, {{"v0", x}}, {}, &stats);
  EXPECT_EQ(stats.nodes, 12);
  EXPECT_EQ(stats.peak_live_bytes, 2 * int64_t(x.byte_size()));
  EXPECT_EQ(out.at("v12").shape(), x.shape());
}

TEST(FloatExecutor, InputErrors) {
  Graph g = small_graph(1);
  Tensor x = iota({1, 2, 1, 2});
  try {
    run_float(g, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "graph 'small': input 'x' is not given");
  }
  try {
    run_float(g, {{"x", x}, {"z", x}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "graph 'small' has no input 'z' (inputs: x)");
  }
  try {
    run_float(g, {{"x", iota({1, 2, 2, 2})}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "graph 'small': input 'x' has shape [1,2,2,2], the graph expects [1,2,1,2]");
  }
  try {
    run_float(g, {{"x", Tensor(DType::kInt64, {1, 2, 1, 2})}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "graph 'small': input 'x' is int64, the graph expects float32");
  }
}

TEST(FloatExecutor, NodeErrorsNameTheNode) {
  Graph g = small_graph(1);
  g.nodes[1].op_type = "LSTM";
  try {
    run_float(g, {{"x", iota({1, 2, 1, 2})}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "node 'relu' (LSTM): operator 'LSTM' has no float kernel");
  }
  g = small_graph(1);
  g.initializers["w"] = Tensor::from_floats({2, 3, 1, 1}, std::vector<float>(6, 1));
  try {
    run_float(g, {{"x", iota({1, 2, 1, 2})}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "node 'conv' (Conv): group 1 does not fit input channels 2 and weights [2,3,1,1]");
  }
  // Shape inference that disagrees with what the kernel computes is reported, not ignored.
  g = small_graph(1);
  g.info_mut("r").shape = {1, 2, 1, 3};
  g.info_mut("r").known_shape = true;
  try {
    run_float(g, {{"x", iota({1, 2, 1, 2})}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "node 'relu' (Relu): output 'r' has shape [1,2,1,2] but shape inference said [1,2,1,3]");
  }
}

TEST(FloatExecutor, OperatorTable) {
  EXPECT_TRUE(float_op_supported("Conv"));
  EXPECT_TRUE(float_op_supported("DequantizeLinear"));
  EXPECT_FALSE(float_op_supported("conv"));
  EXPECT_FALSE(float_op_supported("QConv"));
  EXPECT_EQ(float_op_table().size(), size_t(FloatOp::kCount));
  for (const FloatOpEntry& e : float_op_table()) {
    ASSERT_NE(find_float_op(e.name), nullptr) << e.name;
    EXPECT_EQ(find_float_op(e.name)->op, e.op) << e.name;
  }
}

}  // namespace
}  // namespace tauvta::cpu
