// Inside shape inference: one rule per operator, from what is known about a node's inputs (dtype,
// shape, and the value of constant or shape-derived inputs) to its outputs' dtype and shape.
// shape_rules_nn.cpp holds the layers, shape_rules_tensor.cpp the tensor-manipulation operators,
// shape_rules_sequence.cpp the sequence operators.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/tensor.h"

namespace tauvta::graph {

struct InferArgs {
  const Node& node;
  std::vector<const ValueInfo*> infos;  // per input; nullptr when omitted
  std::vector<const Tensor*> values;    // per input; nullptr when the value is not known

  const ValueInfo* opt(size_t i) const { return i < infos.size() ? infos[i] : nullptr; }
  // Input i, which must be present.
  const ValueInfo& in(size_t i) const;
  bool ranked(size_t i) const { return opt(i) != nullptr && opt(i)->known_shape; }
  const Tensor* value(size_t i) const { return i < values.size() ? values[i] : nullptr; }
  // The value of input i as integers, when known.
  std::optional<std::vector<int64_t>> ints(size_t i) const;
  [[noreturn]] void fail(const std::string& msg) const;
};

ValueInfo unranked(DType t);
ValueInfo ranked(DType t, Shape s);

// -1-aware helpers.
int64_t dim_product(const Shape& s, size_t begin, size_t end);  // -1 when any factor is unknown
Shape broadcast(const InferArgs& a, const Shape& x, const Shape& y);
// axis in [-rank, rank) (inclusive: [-rank, rank]) -> [0, rank]; throws naming the node.
int64_t normalize_axis(const InferArgs& a, int64_t axis, int64_t rank, const char* what, bool inclusive = false);
// Throws naming the node unless both known dimensions agree.
void expect_dim(const InferArgs& a, int64_t got, int64_t want, const std::string& what);

// Slice with starts and ends (and axes, steps when given) known: per sliced axis the first
// index, the step and the element count after ONNX's clamping rules.
struct SliceAxis {
  size_t axis;
  int64_t start, step, count;  // count -1: the dimension is unknown
};
std::vector<SliceAxis> resolve_slice(const InferArgs& a, const Shape& x);

// Shared rules and checks (shape_rules_nn.cpp): input i must be float32/float64; the output is
// input 0's dtype and shape (float_unary: after checking it is a float).
void expect_float(const InferArgs& a, size_t i);
std::vector<ValueInfo> same_as_input(const InferArgs& a);
std::vector<ValueInfo> float_unary(const InferArgs& a);

using ShapeRule = std::vector<ValueInfo> (*)(const InferArgs&);
// nullptr when the operator has no rule.
ShapeRule find_nn_rule(const std::string& op);
ShapeRule find_tensor_rule(const std::string& op);
ShapeRule find_math_rule(const std::string& op);  // shape_rules_math.cpp
// The sequence operators and Identity (shape_rules_sequence.cpp): the only rules that take or
// give sequences (ValueInfo::sequence); the driver refuses a sequence input to any other operator.
ShapeRule find_sequence_rule(const std::string& op);

}  // namespace tauvta::graph
