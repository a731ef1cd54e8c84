// What every float kernel shares: the argument bundle a kernel receives (node, input tensors and
// sequences, opset), error helpers that name the node, axis normalization and small shape utilities.
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
#include "graph/value.h"

namespace tauvta::cpu {

using graph::DType;
using graph::Node;
using graph::Shape;
using graph::Tensor;
using graph::TensorSequence;
using graph::Value;

struct OpArgs {
  const Node& node;
  std::span<const Tensor* const> inputs;  // nullptr: omitted optional input, or a sequence
  int64_t opset;
  // Per input, the sequence when input i is one (nullptr otherwise); empty when no input is. Only
  // value kernels (op_registry.h: the sequence operators and Identity) are given sequences.
  std::span<const TensorSequence* const> sequences = {};

  size_t num_inputs() const { return inputs.size(); }
  // Input i, which must be a present tensor; throws naming the node otherwise.
  const Tensor& in(size_t i) const;
  // Input i or nullptr when omitted (or beyond the inputs given, or a sequence).
  const Tensor* opt(size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }
  // Input i as a sequence, or nullptr when it is not one.
  const TensorSequence* opt_sequence(size_t i) const { return i < sequences.size() ? sequences[i] : nullptr; }
  // Input i, which must be a sequence; throws naming the node otherwise.
  const TensorSequence& sequence(size_t i) const;

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

// A value kernel's result list (op_registry.h), built by moving.
template <class... Ts>
std::vector<Value> values(Ts&&... ts) {
  std::vector<Value> v;
  v.reserve(sizeof...(ts));
  (v.emplace_back(std::forward<Ts>(ts)), ...);
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

// Fails the node with "operands have different dtypes (X and Y)" unless x and y share a dtype.
void expect_same_dtype(const OpArgs& a, const Tensor& x, const Tensor& y);

// x cut along `axis` into consecutive pieces of the given sizes (non-negative, summing to the
// dimension; the caller checks): Split and SplitToSequence.
std::vector<Tensor> split_along_axis(const Tensor& x, int64_t axis, const std::vector<int64_t>& sizes);

// "[1,2,3]" for any integer list (attributes in error messages).
std::string dims_string(const std::vector<int64_t>& v);

}  // namespace tauvta::cpu
