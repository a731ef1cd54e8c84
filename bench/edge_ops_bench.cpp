// The float path of the edge models' operators (Google Benchmark), each against the form it
// replaces in the same run, so the figures are ratios: LayerNormalization against the seven-node
// chain opset 13 exports (what fuse_patterns turns into it), Gelu against its Erf chain,
// ReduceMean over H and W against GlobalAveragePool, on ViT-B/16's token tensor [1,197,768]
// and ShuffleNet's last feature map [1,1024,7,7].
//   build/bench/edge_ops_bench [--benchmark_repetitions=5]
#include <cmath>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "cpu/float_executor.h"
#include "graph/passes.h"
#include "graph/shape_inference.h"

namespace {

using namespace tauvta;
using graph::Graph;
using graph::Node;
using graph::Tensor;

Tensor wave(graph::Shape s, float scale) {
  Tensor t(graph::DType::kFloat32, std::move(s));
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = scale * std::sin(0.37f * float(i));
  return t;
}

Graph graph_on(const graph::Shape& x_shape) {
  Graph g;
  g.inputs = {"x"};
  graph::ValueInfo& x = g.info_mut("x");
  x.shape = x_shape;
  x.known_shape = true;
  return g;
}

void add(Graph& g, const std::string& op, std::vector<std::string> in, const std::string& out,
         std::map<std::string, graph::AttrValue> attrs = {}) {
  g.nodes.push_back(Node{op + std::to_string(g.nodes.size()), op, std::move(in), {out}, std::move(attrs)});
  g.outputs = {out};
}

// torch's F.layer_norm over the last axis at opset 13.
Graph layer_norm_chain(const graph::Shape& s) {
  Graph g = graph_on(s);
  g.initializers["two"] = Tensor::scalar_float(2.0f);
  g.initializers["eps"] = Tensor::scalar_float(1e-6f);
  g.initializers["gamma"] = wave({s.back()}, 1.0f);
  g.initializers["beta"] = wave({s.back()}, 0.5f);
  const std::map<std::string, graph::AttrValue> last = {{"axes", std::vector<int64_t>{-1}}};
  add(g, "ReduceMean", {"x"}, "m", last);
  add(g, "Sub", {"x", "m"}, "d");
  add(g, "Pow", {"d", "two"}, "p");
  add(g, "ReduceMean", {"p"}, "v", last);
  add(g, "Add", {"v", "eps"}, "ve");
  add(g, "Sqrt", {"ve"}, "sd");
  add(g, "Div", {"d", "sd"}, "n");
  add(g, "Mul", {"n", "gamma"}, "y");
  add(g, "Add", {"y", "beta"}, "z");
  return graph::infer_shapes(g);
}

Graph gelu_chain(const graph::Shape& s) {
  Graph g = graph_on(s);
  g.initializers["root2"] = Tensor::scalar_float(1.4142135f);
  g.initializers["one"] = Tensor::scalar_float(1.0f);
  g.initializers["half"] = Tensor::scalar_float(0.5f);
  add(g, "Div", {"x", "root2"}, "a");
  add(g, "Erf", {"a"}, "e");
  add(g, "Add", {"e", "one"}, "p");
  add(g, "Mul", {"x", "p"}, "q");
  add(g, "Mul", {"q", "half"}, "y");
  return graph::infer_shapes(g);
}

Graph spatial_mean(const graph::Shape& s, bool reduce_mean) {
  Graph g = graph_on(s);
  if (reduce_mean) {
    add(g, "ReduceMean", {"x"}, "y", {{"axes", std::vector<int64_t>{2, 3}}});
  } else {
    add(g, "GlobalAveragePool", {"x"}, "y");
  }
  return graph::infer_shapes(g);
}

void run(benchmark::State& state, const Graph& g, const graph::Shape& s) {
  const cpu::TensorMap in{{"x", wave(s, 2.0f)}};
  for (auto _ : state) benchmark::DoNotOptimize(cpu::run_float(g, in));
  state.SetItemsProcessed(state.iterations() * graph::num_elements(s));
}

const graph::Shape kTokens = {1, 197, 768};  // ViT-B/16
const graph::Shape kMlp = {1, 197, 3072};    // ViT-B/16's MLP hidden layer
const graph::Shape kMap = {1, 1024, 7, 7};   // ShuffleNetV2 x1.0 before its ReduceMean

void BM_LayerNormChain(benchmark::State& s) { run(s, layer_norm_chain(kTokens), kTokens); }
void BM_LayerNormFused(benchmark::State& s) { run(s, graph::fuse_patterns(layer_norm_chain(kTokens)), kTokens); }
void BM_GeluChain(benchmark::State& s) { run(s, gelu_chain(kMlp), kMlp); }
void BM_GeluFused(benchmark::State& s) { run(s, graph::fuse_patterns(gelu_chain(kMlp)), kMlp); }
void BM_ReduceMeanHW(benchmark::State& s) { run(s, spatial_mean(kMap, true), kMap); }
void BM_GlobalAveragePool(benchmark::State& s) { run(s, spatial_mean(kMap, false), kMap); }

BENCHMARK(BM_LayerNormChain)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LayerNormFused)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GeluChain)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GeluFused)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReduceMeanHW)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GlobalAveragePool)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
