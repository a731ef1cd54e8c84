// The float reference: runs a float Graph node by node on the CPU. Every supported ONNX operator
// has a kernel (cpu/float_ops_*.cpp); results agree with ONNX's reference within its tolerances.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/tensor.h"

namespace tauvta::cpu {

using TensorMap = std::map<std::string, graph::Tensor>;

// Called after each node with the node and its output tensors (calibration, per-layer errors).
using NodeObserver =
    std::function<void(const graph::Node& node, const std::vector<const graph::Tensor*>& outputs)>;

// What a run cost: the peak of the bytes held by node outputs at once (a value is freed after its
// last consumer; graph inputs and initializers are not counted).
struct FloatRunStats {
  int64_t nodes = 0;
  int64_t peak_live_bytes = 0;
};

// Runs `g` on `inputs` (by graph input name; every graph input must be given, shapes must match
// the graph's known shapes, -1 dimensions match anything) and returns the graph outputs by name.
// Each node output is checked against the shape inference recorded in g.values. Throws
// tauvta::Error naming the node on unsupported operators or bad shapes.
TensorMap run_float(const graph::Graph& g, const TensorMap& inputs, const NodeObserver& observer = {},
                    FloatRunStats* stats = nullptr);

// Evaluates one node (constant folding). `inputs[i]` is nullptr for an omitted optional input.
std::vector<graph::Tensor> eval_float_node(const graph::Node& node,
                                           const std::vector<const graph::Tensor*>& inputs,
                                           int64_t opset);

bool float_op_supported(const std::string& op_type);

}  // namespace tauvta::cpu
