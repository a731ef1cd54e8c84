// Helpers for the float kernel tests: build a node, evaluate it through eval_float_node, and
// compare float results with a tolerance that names the first differing element.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cpu/float_executor.h"
#include "graph/graph.h"

namespace tauvta::cpu::testing_util {

using graph::AttrValue;
using graph::DType;
using graph::Node;
using graph::Shape;
using graph::Tensor;

inline Node make_node(const std::string& op, size_t n_inputs, std::map<std::string, AttrValue> attrs = {},
                      size_t n_outputs = 1) {
  Node n;
  n.name = "n_" + op;
  n.op_type = op;
  for (size_t i = 0; i < n_inputs; ++i) n.inputs.push_back("in" + std::to_string(i));
  for (size_t i = 0; i < n_outputs; ++i) n.outputs.push_back("out" + std::to_string(i));
  n.attrs = std::move(attrs);
  return n;
}

// Evaluates `op` on the inputs (nullptr entries stand for omitted optional inputs).
inline std::vector<Tensor> eval(const std::string& op, const std::vector<const Tensor*>& inputs,
                                std::map<std::string, AttrValue> attrs = {}, size_t n_outputs = 1,
                                int64_t opset = 17) {
  Node n = make_node(op, inputs.size(), std::move(attrs), n_outputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr) n.inputs[i].clear();
  }
  return eval_float_node(n, inputs, opset);
}

inline Tensor eval1(const std::string& op, const std::vector<const Tensor*>& inputs,
                    std::map<std::string, AttrValue> attrs = {}, int64_t opset = 17) {
  return eval(op, inputs, std::move(attrs), 1, opset).at(0);
}

inline Tensor iota(Shape shape, float start = 1.0f, float step = 1.0f) {
  std::vector<float> v(size_t(graph::num_elements(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + step * float(i);
  return Tensor::from_floats(std::move(shape), std::move(v));
}

inline Tensor ints64(const std::vector<int64_t>& v) {
  return Tensor::from_int64(DType::kInt64, {int64_t(v.size())}, v);
}

inline ::testing::AssertionResult near(const Tensor& actual, const Shape& shape, const std::vector<float>& expected,
                                       float tol = 1e-5f) {
  if (actual.dtype() != DType::kFloat32) return ::testing::AssertionFailure() << "dtype " << graph::dtype_name(actual.dtype());
  if (actual.shape() != shape) {
    return ::testing::AssertionFailure() << "shape " << graph::shape_string(actual.shape()) << ", expected "
                                         << graph::shape_string(shape);
  }
  const auto a = actual.floats();
  if (a.size() != expected.size()) return ::testing::AssertionFailure() << "size " << a.size();
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(std::fabs(a[i] - expected[i]) <= tol * std::max(1.0f, std::fabs(expected[i])))) {
      return ::testing::AssertionFailure() << "element " << i << ": got " << a[i] << ", expected " << expected[i];
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tauvta::cpu::testing_util
