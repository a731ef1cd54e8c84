// Shape rules of the element-wise math and logic operators, the Reduce family,
// LayerNormalization and the shape-operand generators (ConstantOfShape, Range, Expand, Tile,
// Split, ScatterND): what transformers and the newer CNNs add to the layer operators.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "graph/shape_rules.h"

namespace tauvta::graph {

namespace {

std::vector<ValueInfo> numeric_unary(const InferArgs& a) {
  if (a.in(0).dtype == DType::kBool) a.fail("does not take bool");
  return same_as_input(a);
}

std::vector<ValueInfo> bool_unary(const InferArgs& a) {
  if (a.in(0).dtype != DType::kBool) a.fail(fmt::format("input is {}, expected bool", dtype_name(a.in(0).dtype)));
  return same_as_input(a);
}

// Broadcast of every input; all of input 0's dtype unless `mixed` (Pow's exponent).
ValueInfo broadcast_all(const InferArgs& a, DType out, bool mixed = false) {
  Shape s;
  for (size_t i = 0; i < a.node.inputs.size(); ++i) {
    const ValueInfo& v = a.in(i);
    if (!mixed && v.dtype != a.in(0).dtype) {
      a.fail(fmt::format("inputs have different dtypes ({} and {})", dtype_name(a.in(0).dtype), dtype_name(v.dtype)));
    }
    if (!v.known_shape) return unranked(out);
    s = i == 0 ? v.shape : broadcast(a, s, v.shape);
  }
  return ranked(out, s);
}

std::vector<ValueInfo> same_dtype_binary(const InferArgs& a) { return {broadcast_all(a, a.in(0).dtype)}; }
std::vector<ValueInfo> pow_rule(const InferArgs& a) { return {broadcast_all(a, a.in(0).dtype, true)}; }
std::vector<ValueInfo> compare(const InferArgs& a) { return {broadcast_all(a, DType::kBool)}; }

std::vector<ValueInfo> logical(const InferArgs& a) {
  for (size_t i = 0; i < 2; ++i) {
    if (a.in(i).dtype != DType::kBool) a.fail(fmt::format("input {} is {}, expected bool", i, dtype_name(a.in(i).dtype)));
  }
  return {broadcast_all(a, DType::kBool)};
}

std::vector<ValueInfo> where(const InferArgs& a) {
  if (a.in(0).dtype != DType::kBool) a.fail(fmt::format("condition is {}, expected bool", dtype_name(a.in(0).dtype)));
  if (a.in(1).dtype != a.in(2).dtype) {
    a.fail(fmt::format("X is {}, Y is {}", dtype_name(a.in(1).dtype), dtype_name(a.in(2).dtype)));
  }
  for (size_t i = 0; i < 3; ++i) {
    if (!a.in(i).known_shape) return {unranked(a.in(1).dtype)};
  }
  return {ranked(a.in(1).dtype, broadcast(a, broadcast(a, a.in(0).shape, a.in(1).shape), a.in(2).shape))};
}

std::vector<ValueInfo> reduce(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (x.dtype == DType::kBool) a.fail("does not take bool");
  std::optional<std::vector<int64_t>> axes;
  if (a.node.has_attr("axes")) {
    axes = a.node.attr_ints("axes");
  } else if (a.opt(1) != nullptr) {
    axes = a.ints(1);
    if (!axes) return {x.known_shape && a.node.attr_int_or("keepdims", 1) ? ranked(x.dtype, Shape(x.shape.size(), -1))
                                                                         : unranked(x.dtype)};
  }
  if ((!axes || axes->empty()) && a.node.attr_int_or("noop_with_empty_axes", 0) != 0) return same_as_input(a);
  if (!x.known_shape) return {unranked(x.dtype)};
  const int64_t r = int64_t(x.shape.size());
  std::vector<bool> reduced(size_t(r), !axes || axes->empty());
  if (axes) {
    for (int64_t ax : *axes) {
      const int64_t k = normalize_axis(a, ax, r, "axes");
      if (reduced[size_t(k)]) a.fail(fmt::format("axis {} is reduced twice", ax));
      reduced[size_t(k)] = true;
    }
  }
  const bool keep = a.node.attr_int_or("keepdims", 1) != 0;
  Shape out;
  for (int64_t k = 0; k < r; ++k) {
    if (!reduced[size_t(k)]) out.push_back(x.shape[size_t(k)]);
    else if (keep) out.push_back(1);
  }
  return {ranked(x.dtype, out)};
}

std::vector<ValueInfo> layer_norm(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  expect_float(a, 0);
  for (size_t i = 1; i < 3; ++i) {
    if (a.opt(i) != nullptr && a.in(i).dtype != x.dtype) {
      a.fail(fmt::format("input {} is {}, X is {}", i, dtype_name(a.in(i).dtype), dtype_name(x.dtype)));
    }
  }
  if (a.node.attr_int_or("stash_type", 1) != 1) a.fail("only stash_type 1 (float32) is supported");
  if (!x.known_shape) return {unranked(x.dtype), unranked(DType::kFloat32), unranked(DType::kFloat32)};
  const int64_t r = int64_t(x.shape.size());
  if (r == 0) a.fail("X must have rank >= 1");
  const int64_t axis = normalize_axis(a, a.node.attr_int_or("axis", -1), r, "axis");
  const Shape norm(x.shape.begin() + axis, x.shape.end());
  for (size_t i = 1; i < 3; ++i) {
    if (a.opt(i) == nullptr || !a.in(i).known_shape) continue;
    if (a.in(i).shape.size() > norm.size() || broadcast(a, a.in(i).shape, norm) != norm) {
      a.fail(fmt::format("input {} {} does not broadcast to the normalized shape {}", i, shape_string(a.in(i).shape),
                         shape_string(norm)));
    }
  }
  Shape stats = x.shape;
  for (int64_t k = axis; k < r; ++k) stats[size_t(k)] = 1;
  return {ranked(x.dtype, x.shape), ranked(DType::kFloat32, stats), ranked(DType::kFloat32, stats)};
}

DType constant_of_shape_dtype(const InferArgs& a) {
  return a.node.has_attr("value") ? a.node.attr_tensor("value").dtype() : DType::kFloat32;
}

std::vector<ValueInfo> constant_of_shape(const InferArgs& a) {
  const DType t = constant_of_shape_dtype(a);
  if (a.in(0).dtype != DType::kInt64) a.fail(fmt::format("shape is {}, expected int64", dtype_name(a.in(0).dtype)));
  if (std::optional<std::vector<int64_t>> dims = a.ints(0)) {
    for (int64_t d : *dims) {
      if (d < 0) a.fail(fmt::format("shape {} has a negative dimension", shape_string(*dims)));
    }
    return {ranked(t, *dims)};
  }
  const ValueInfo& s = a.in(0);
  if (s.known_shape && s.shape.size() == 1 && s.shape[0] >= 0) return {ranked(t, Shape(size_t(s.shape[0]), -1))};
  return {unranked(t)};
}

std::vector<ValueInfo> range(const InferArgs& a) {
  const DType t = a.in(0).dtype;
  for (size_t i = 1; i < 3; ++i) {
    if (a.in(i).dtype != t) a.fail("start, limit and delta must have one dtype");
  }
  const Tensor *s = a.value(0), *l = a.value(1), *d = a.value(2);
  if (s == nullptr || l == nullptr || d == nullptr) return {ranked(t, {-1})};
  const double start = s->cast(DType::kFloat64).data<double>()[0];
  const double limit = l->cast(DType::kFloat64).data<double>()[0];
  const double delta = d->cast(DType::kFloat64).data<double>()[0];
  if (delta == 0) a.fail("delta is 0");
  const double n = std::ceil((limit - start) / delta);
  return {ranked(t, {n > 0 ? int64_t(n) : 0})};
}

std::vector<ValueInfo> expand(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (a.in(1).dtype != DType::kInt64) a.fail("shape must be int64");
  const std::optional<std::vector<int64_t>> dims = a.ints(1);
  if (!dims) {
    const ValueInfo& s = a.in(1);
    if (x.known_shape && s.known_shape && s.shape.size() == 1 && s.shape[0] >= 0) {
      return {ranked(x.dtype, Shape(std::max(x.shape.size(), size_t(s.shape[0])), -1))};
    }
    return {unranked(x.dtype)};
  }
  if (!x.known_shape) return {unranked(x.dtype)};
  return {ranked(x.dtype, broadcast(a, x.shape, *dims))};
}

std::vector<ValueInfo> tile(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (a.in(1).dtype != DType::kInt64) a.fail("repeats must be int64");
  if (!x.known_shape) return {unranked(x.dtype)};
  const std::optional<std::vector<int64_t>> reps = a.ints(1);
  if (!reps) return {ranked(x.dtype, Shape(x.shape.size(), -1))};
  if (reps->size() != x.shape.size()) {
    a.fail(fmt::format("repeats {} has {} values for the rank-{} input", shape_string(*reps), reps->size(), x.shape.size()));
  }
  Shape out = x.shape;
  for (size_t i = 0; i < out.size(); ++i) {
    if ((*reps)[i] < 0) a.fail(fmt::format("repeats {} has a negative value", shape_string(*reps)));
    if (out[i] >= 0) out[i] *= (*reps)[i];
  }
  return {ranked(x.dtype, out)};
}

std::vector<ValueInfo> split(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  const size_t parts = a.node.outputs.size();
  if (!x.known_shape) return std::vector<ValueInfo>(parts, unranked(x.dtype));
  const int64_t axis = normalize_axis(a, a.node.attr_int_or("axis", 0), int64_t(x.shape.size()), "axis");
  const int64_t dim = x.shape[size_t(axis)];
  std::optional<std::vector<int64_t>> sizes;
  if (a.node.has_attr("split")) sizes = a.node.attr_ints("split");
  else if (a.opt(1) != nullptr) {
    sizes = a.ints(1);
    if (!sizes) {
      Shape s = x.shape;
      s[size_t(axis)] = -1;
      return std::vector<ValueInfo>(parts, ranked(x.dtype, s));
    }
  }
  if (sizes) {
    int64_t total = 0;
    for (int64_t v : *sizes) total += v;
    if (sizes->size() != parts || (dim >= 0 && total != dim)) {
      a.fail(fmt::format("split {} does not cut dimension {} of size {} into {} outputs", shape_string(*sizes), axis,
                         dim, parts));
    }
  } else if (dim >= 0 && dim % int64_t(parts) != 0) {
    a.fail(fmt::format("dimension {} of size {} does not split into {} equal parts", axis, dim, parts));
  }
  std::vector<ValueInfo> outs;
  for (size_t i = 0; i < parts; ++i) {
    Shape s = x.shape;
    s[size_t(axis)] = sizes ? (*sizes)[i] : (dim < 0 ? -1 : dim / int64_t(parts));
    outs.push_back(ranked(x.dtype, s));
  }
  return outs;
}

std::vector<ValueInfo> scatter_nd(const InferArgs& a) {
  if (a.in(1).dtype != DType::kInt64) a.fail("indices must be int64");
  if (a.in(2).dtype != a.in(0).dtype) a.fail("updates and data have different dtypes");
  return same_as_input(a);
}

}  // namespace

ShapeRule find_math_rule(const std::string& op) {
  static const std::map<std::string, ShapeRule> rules = {
      {"Abs", numeric_unary},
      {"And", logical},
      {"Ceil", float_unary},
      {"ConstantOfShape", constant_of_shape},
      {"Div", same_dtype_binary},
      {"Equal", compare},
      {"Erf", float_unary},
      {"Exp", float_unary},
      {"Expand", expand},
      {"Floor", float_unary},
      {"Gelu", float_unary},
      {"Greater", compare},
      {"GreaterOrEqual", compare},
      {"HardSigmoid", float_unary},
      {"HardSwish", float_unary},
      {"LayerNormalization", layer_norm},
      {"Less", compare},
      {"LessOrEqual", compare},
      {"Log", float_unary},
      {"Max", same_dtype_binary},
      {"Mean", same_dtype_binary},
      {"Min", same_dtype_binary},
      {"Mod", same_dtype_binary},
      {"Neg", numeric_unary},
      {"Not", bool_unary},
      {"Or", logical},
      {"Pow", pow_rule},
      {"Range", range},
      {"Reciprocal", float_unary},
      {"ReduceL1", reduce},
      {"ReduceL2", reduce},
      {"ReduceLogSum", reduce},
      {"ReduceLogSumExp", reduce},
      {"ReduceMax", reduce},
      {"ReduceMean", reduce},
      {"ReduceMin", reduce},
      {"ReduceProd", reduce},
      {"ReduceSum", reduce},
      {"ReduceSumSquare", reduce},
      {"ScatterND", scatter_nd},
      {"Split", split},
      {"Sqrt", float_unary},
      {"Sum", same_dtype_binary},
      {"Tile", tile},
      {"Where", where},
      {"Xor", logical},
  };
  auto it = rules.find(op);
  return it == rules.end() ? nullptr : it->second;
}

}  // namespace tauvta::graph
