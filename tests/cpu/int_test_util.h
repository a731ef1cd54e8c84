// Small builders for the integer-executor tests: one-node quantized graphs and int tensors.
#pragma once

#include <string>
#include <vector>

#include "cpu/int_executor.h"
#include "graph/graph.h"

namespace tauvta::testing {

inline graph::Tensor ints(graph::Shape shape, std::vector<int64_t> values,
                          graph::DType dtype = graph::DType::kInt32) {
  return graph::Tensor::from_int64(dtype, std::move(shape), values);
}

// A graph of one node reading runtime inputs `inputs` (and the initializers) and writing "y".
inline graph::Graph one_node_graph(graph::Node n, const std::vector<std::string>& inputs,
                                   std::map<std::string, graph::Tensor> inits = {}) {
  graph::Graph g;
  g.name = "t";
  g.inputs = inputs;
  g.outputs = {"y"};
  g.initializers = std::move(inits);
  if (n.name.empty()) n.name = "n";
  n.outputs = {"y"};
  g.nodes.push_back(std::move(n));
  return g;
}

inline graph::Node requant_node(const std::string& op, std::vector<std::string> inputs, int64_t shift,
                                int64_t clip_min, int64_t clip_max, int64_t out_bits = 8,
                                int64_t acc_bits = 32) {
  graph::Node n;
  n.name = "n";
  n.op_type = op;
  n.inputs = std::move(inputs);
  n.attrs["shift"] = shift;
  n.attrs["clip_min"] = clip_min;
  n.attrs["clip_max"] = clip_max;
  n.attrs["out_bits"] = out_bits;
  n.attrs["acc_bits"] = acc_bits;
  return n;
}

inline std::vector<int64_t> run_values(const graph::Graph& g, const cpu::TensorMap& in,
                                       const cpu::IntRunOptions& o = {}) {
  return cpu::run_int(g, in, {}, o).at("y").to_int64();
}

// The three kernel paths the executor has; each test runs all of them.
inline std::vector<cpu::IntRunOptions> all_paths() {
  cpu::IntRunOptions fast, portable, reference;
  portable.portable_kernels = true;
  reference.reference_kernels = true;
  return {fast, portable, reference};
}

}  // namespace tauvta::testing
