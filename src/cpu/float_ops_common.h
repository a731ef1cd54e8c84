// What every float kernel shares: the argument bundle a kernel receives (node, input tensors,
// opset), error helpers that name the node, axis normalization and small shape utilities.
// Kernels read version-dependent operands through these helpers so both the attribute form
// (older opsets) and the input form (newer opsets) are accepted.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/tensor.h"

namespace tauvta::cpu {

using graph::DType;
using graph::Node;
using graph::Shape;
using graph::Tensor;

struct OpArgs {
  const Node& node;
  std::span<const Tensor* const> inputs;  // nullptr: omitted optional input
  int64_t opset;

  size_t num_inputs() const { return inputs.size(); }
  // Input i, which must be present; throws naming the node otherwise.
  const Tensor& in(size_t i) const;
  // Input i or nullptr when omitted (or beyond the inputs given).
  const Tensor* opt(size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }

  // Throws tauvta::Error "node 'x' (Op): <msg>".
  [[noreturn]] void fail(const std::string& msg) const;
  // Input i must have one of the given dtypes.
  void expect_dtype(size_t i, std::initializer_list<DType> allowed) const;

  // Integer list operand that moved from an attribute to an input across opsets (axes, pads,
  // starts, ...): the attribute when present, else input `input_index` when given, else nullopt.
  std::optional<std::vector<int64_t>> ints_attr_or_input(const std::string& attr, size_t input_index) const;
  // Scalar float operand that moved from an attribute to an input (Clip min/max, Pad value).
  std::optional<double> scalar_attr_or_input(const std::string& attr, size_t input_index) const;
};

// A kernel's result list, built by moving (a braced list would copy every tensor).
template <class... Ts>
std::vector<Tensor> outputs(Ts&&... ts) {
  std::vector<Tensor> v;
  v.reserve(sizeof...(ts));
  (v.push_back(std::forward<Ts>(ts)), ...);
  return v;
}

// Axis in [-rank, rank) (or [-rank, rank] when `inclusive`) mapped to [0, rank]; throws naming the
// node when out of range.
int64_t normalize_axis(const OpArgs& a, int64_t axis, int64_t rank, const char* what = "axis",
                       bool inclusive = false);

// Row-major element strides of a shape.
std::vector<int64_t> strides_of(const Shape& s);
int64_t product(const Shape& s, size_t begin, size_t end);

// NumPy broadcasting of two shapes; throws naming the node when incompatible.
Shape broadcast_shapes(const OpArgs& a, const Shape& x, const Shape& y);

// "[1,2,3]" for any integer list (attributes in error messages).
std::string dims_string(const std::vector<int64_t>& v);

}  // namespace tauvta::cpu
