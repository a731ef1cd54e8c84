// The model IR: a Graph of Nodes (ONNX operator names and attributes, plus tauvta's integer
// operators after quantization) over named values, with initializers and per-value info (dtype,
// shape, quantization). Nodes are kept in topological order. Every pass is a function
// Graph -> Graph; verify() checks the invariants after each one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "graph/tensor.h"

namespace tauvta::graph {

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                               std::vector<std::string>, Tensor>;

struct Node {
  std::string name;     // unique in the graph (the frontend names unnamed nodes)
  std::string op_type;  // "Conv", "Relu", ... or a tauvta integer op ("QConv", ...)
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, AttrValue> attrs;

  bool has_attr(const std::string& key) const { return attrs.count(key) != 0; }
  // Typed attribute access. The *_or forms return `fallback` when absent; the others throw
  // tauvta::Error naming the node, the operator and the attribute when absent or mistyped.
  int64_t attr_int(const std::string& key) const;
  int64_t attr_int_or(const std::string& key, int64_t fallback) const;
  float attr_float(const std::string& key) const;
  float attr_float_or(const std::string& key, float fallback) const;
  std::string attr_string_or(const std::string& key, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& key) const;
  std::vector<int64_t> attr_ints_or(const std::string& key, std::vector<int64_t> fallback) const;
  std::vector<float> attr_floats_or(const std::string& key, std::vector<float> fallback) const;
  const Tensor& attr_tensor(const std::string& key) const;

  // "node 'conv1' (Conv)" — the prefix of every error about this node.
  std::string describe() const;
  // Input i, or "" when the node has fewer inputs.
  const std::string& input(size_t i) const;
};

struct ValueInfo {
  std::string name;
  DType dtype = DType::kFloat32;
  Shape shape;            // empty with known_shape=false: not yet inferred
  bool known_shape = false;
  QuantParams quant;      // quantized values carry their fixed-point format
  // A sequence of tensors (ONNX's sequence type; graph/value.h). dtype, shape and known_shape
  // then describe every element: the shape has -1 where elements may differ, and known_shape is
  // false when their ranks may differ. The sequence's length is a run-time fact.
  bool sequence = false;
};

struct Graph {
  std::string name;
  int64_t opset = 13;
  std::vector<std::string> inputs;   // runtime inputs (initializers are not listed here)
  std::vector<std::string> outputs;
  std::vector<Node> nodes;           // topological order
  std::map<std::string, Tensor> initializers;
  std::map<std::string, ValueInfo> values;  // graph inputs/outputs and every inferred value

  const Node* node(const std::string& node_name) const;  // the node named so, or nullptr
  const Node* producer(const std::string& value) const;  // nullptr for inputs and initializers
  std::vector<const Node*> consumers(const std::string& value) const;
  bool is_initializer(const std::string& value) const { return initializers.count(value) != 0; }
  const ValueInfo* info(const std::string& value) const;
  ValueInfo& info_mut(const std::string& value);  // creates an empty entry when missing
  // A fresh value or node name derived from `base` that the graph does not use yet.
  std::string unique_name(const std::string& base) const;
};

// Throws tauvta::Error naming the node and the value on: a value used before it is produced, a
// value produced twice, an unnamed or duplicate node, an output nobody produces, an empty op type.
void verify(const Graph& g);

// A value's type as print_graph writes it (quantization format aside): "float32[1,?,28,28]", "?"
// for a tensor of unknown rank, "sequence<float32[?,3]>" or "sequence<int64>" (no element shape).
std::string type_string(const ValueInfo& v);

// Readable text, one line per input/initializer/node/output, stable for golden tests:
//   input  x: float32[1,1,28,28]
//   init   w: float32[8,1,3,3]
//   node   conv1 = Conv(x, w, b) {kernel_shape=[3,3], pads=[1,1,1,1]} -> y: float32[1,8,28,28]
//   node   both = SequenceConstruct(x, y) -> xy: sequence<float32[1,?,28,28]>
//   output y
std::string print_graph(const Graph& g);

}  // namespace tauvta::graph
