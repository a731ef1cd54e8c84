// The float reference: runs a float Graph node by node on the CPU. Every supported ONNX operator
// has a kernel (cpu/float_ops_*.cpp); results agree with ONNX's reference within its tolerances.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/tensor.h"
#include "graph/value.h"

namespace tauvta::cpu {

using TensorMap = std::map<std::string, graph::Tensor>;
// Values by name when some may be sequences of tensors (graph/value.h).
using ValueMap = std::map<std::string, graph::Value>;

// Called after each node with the node and its output tensors (calibration, per-layer errors);
// nullptr for an output that is a sequence.
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
// tauvta::Error naming the node on unsupported operators or bad shapes. Sequences may flow
// between nodes; a graph input or output that is a sequence needs run_float_values.
TensorMap run_float(const graph::Graph& g, const TensorMap& inputs, const NodeObserver& observer = {},
                    FloatRunStats* stats = nullptr);

// run_float with graph inputs and outputs that may be sequences of tensors (ONNX's sequence
// type): a sequence input must be given as one (its elements of the declared dtype and element
// shape), a tensor input as a tensor.
ValueMap run_float_values(const graph::Graph& g, const ValueMap& inputs, const NodeObserver& observer = {},
                          FloatRunStats* stats = nullptr);

// Evaluates one node (constant folding). `inputs[i]` is nullptr for an omitted optional input.
// A node that makes a sequence is an error (eval_float_node_values evaluates it).
std::vector<graph::Tensor> eval_float_node(const graph::Node& node,
                                           const std::vector<const graph::Tensor*>& inputs,
                                           int64_t opset);

// eval_float_node for nodes that take or make sequences: inputs and outputs are Values.
std::vector<graph::Value> eval_float_node_values(const graph::Node& node,
                                                 const std::vector<const graph::Value*>& inputs, int64_t opset);

bool float_op_supported(const std::string& op_type);

}  // namespace tauvta::cpu
