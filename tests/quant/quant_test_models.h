// Small float graphs for the quantization tests, built directly in the IR (shapes by
// infer_shapes), with deterministic weights, plus hand-made calibration statistics.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/quantize.h"
#include "graph/shape_inference.h"

namespace tauvta::testing {

inline graph::Tensor wave(graph::Shape s, float scale, int seed = 0) {
  graph::Tensor t(graph::DType::kFloat32, s);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = scale * std::sin(0.7f * float(i) + 1.3f * float(seed));
  return t;
}

inline graph::Node make_node(const std::string& name, const std::string& op, std::vector<std::string> in,
                             std::vector<std::string> out) {
  graph::Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// x[N,1,6,6] -> conv1(3x3, pads 1) -> relu -> maxpool 2x2 -> conv2 (1x1, no bias) + residual
// -> relu -> global average pool -> flatten -> gemm -> logits (an output) -> sigmoid (a CPU
// fallback) -> mul by a constant -> out. Covers fusion, pass-through, elementwise alignment,
// exact-division pooling, fallbacks and an output that other nodes also read.
inline graph::Graph small_model(int64_t batch = 1) {
  graph::Graph g;
  g.name = "small";
  g.opset = 13;
  g.inputs = {"x"};
  g.outputs = {"logits", "out"};
  graph::ValueInfo& x = g.info_mut("x");
  x.dtype = graph::DType::kFloat32;
  x.shape = {batch, 1, 6, 6};
  x.known_shape = true;
  g.initializers["w1"] = wave({3, 1, 3, 3}, 0.5f, 1);
  g.initializers["b1"] = wave({3}, 0.2f, 2);
  g.initializers["w2"] = wave({3, 3, 1, 1}, 0.6f, 3);
  g.initializers["w3"] = wave({4, 3}, 0.8f, 4);
  g.initializers["b3"] = wave({4}, 0.3f, 5);
  g.initializers["k"] = graph::Tensor::from_floats({4}, {0.5f, -1.25f, 2.0f, 0.75f});
  graph::Node c1 = make_node("conv1", "Conv", {"x", "w1", "b1"}, {"c1"});
  c1.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  c1.attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
  g.nodes.push_back(c1);
  g.nodes.push_back(make_node("relu1", "Relu", {"c1"}, {"r1"}));
  graph::Node p = make_node("pool1", "MaxPool", {"r1"}, {"p1"});
  p.attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
  p.attrs["strides"] = std::vector<int64_t>{2, 2};
  g.nodes.push_back(p);
  g.nodes.push_back(make_node("conv2", "Conv", {"p1", "w2"}, {"c2"}));
  g.nodes.push_back(make_node("add", "Add", {"c2", "p1"}, {"a1"}));
  g.nodes.push_back(make_node("relu2", "Relu", {"a1"}, {"r2"}));
  g.nodes.push_back(make_node("gap", "GlobalAveragePool", {"r2"}, {"g1"}));
  graph::Node f = make_node("flatten", "Flatten", {"g1"}, {"f1"});
  f.attrs["axis"] = int64_t(1);
  g.nodes.push_back(f);
  graph::Node fc = make_node("fc", "Gemm", {"f1", "w3", "b3"}, {"logits"});
  fc.attrs["transB"] = int64_t(1);
  g.nodes.push_back(fc);
  g.nodes.push_back(make_node("sigmoid", "Sigmoid", {"logits"}, {"s"}));
  g.nodes.push_back(make_node("scale", "Mul", {"s", "k"}, {"out"}));
  return graph::infer_shapes(g);
}

// Statistics with the given extremes for each value (a spread of values between them).
inline graph::CalibrationStats stats_with_ranges(const std::vector<std::pair<std::string, std::pair<float, float>>>& r) {
  graph::CalibrationStats s;
  for (const auto& [name, range] : r) {
    std::vector<float> v;
    for (int i = 0; i <= 100; ++i) v.push_back(range.first + (range.second - range.first) * float(i) / 100.0f);
    s[name].add(v);
  }
  return s;
}

inline graph::CalibrationStats small_model_stats() {
  return stats_with_ranges({{"x", {0.0f, 1.0f}},
                            {"c1", {-3.0f, 2.5f}},
                            {"r1", {0.0f, 2.5f}},
                            {"p1", {0.0f, 2.5f}},
                            {"c2", {-1.2f, 1.9f}},
                            {"a1", {-2.0f, 4.0f}},
                            {"r2", {0.0f, 4.0f}},
                            {"g1", {0.0f, 1.5f}},
                            {"f1", {0.0f, 1.5f}},
                            {"logits", {-5.0f, 7.0f}},
                            {"s", {0.0f, 1.0f}},
                            {"out", {-1.25f, 2.0f}}});
}

}  // namespace tauvta::testing
