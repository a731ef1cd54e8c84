// Shape rules of the element-wise arithmetic and the tensor-manipulation operators (the ones
// shape computations are made of).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/onnx_import.h"
#include "graph/shape_rules.h"

namespace tauvta::graph {

namespace {

std::vector<ValueInfo> binary_arith(const InferArgs& a) {
  const ValueInfo &x = a.in(0), &y = a.in(1);
  if (x.dtype != y.dtype) {
    a.fail(fmt::format("inputs have different dtypes ({} and {})", dtype_name(x.dtype), dtype_name(y.dtype)));
  }
  if (!x.known_shape || !y.known_shape) return {unranked(x.dtype)};
  return {ranked(x.dtype, broadcast(a, x.shape, y.shape))};
}

std::vector<ValueInfo> cast(const InferArgs& a) {
  const DType to = dtype_from_onnx_elem_type(int(a.node.attr_int("to")), a.node.describe() + ": attribute 'to'");
  const ValueInfo& x = a.in(0);
  return {x.known_shape ? ranked(to, x.shape) : unranked(to)};
}

std::vector<ValueInfo> concat(const InferArgs& a) {
  const DType t = a.in(0).dtype;
  std::optional<Shape> out;
  int64_t axis = 0;
  for (size_t i = 0; i < a.node.inputs.size(); ++i) {
    const ValueInfo& v = a.in(i);
    if (v.dtype != t) {
      a.fail(fmt::format("input {} ('{}') is {}, input 0 is {}", i, a.node.input(i), dtype_name(v.dtype), dtype_name(t)));
    }
    if (!v.known_shape) return {unranked(t)};
    if (!out) {
      out = v.shape;
      axis = normalize_axis(a, a.node.attr_int("axis"), int64_t(v.shape.size()), "axis");
      continue;
    }
    if (v.shape.size() != out->size()) {
      a.fail(fmt::format("input {} has shape {}, input 0 has rank {}", i, shape_string(v.shape), out->size()));
    }
    for (size_t d = 0; d < out->size(); ++d) {
      int64_t& o = (*out)[d];
      if (int64_t(d) == axis) {
        o = (o < 0 || v.shape[d] < 0) ? -1 : o + v.shape[d];
      } else if (o < 0) {
        o = v.shape[d];
      } else if (v.shape[d] >= 0 && v.shape[d] != o) {
        a.fail(fmt::format("input {} has shape {}; dimension {} should be {} as in the other inputs", i,
                           shape_string(v.shape), d, o));
      }
    }
  }
  return {ranked(t, *out)};
}

std::vector<ValueInfo> flatten(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (!x.known_shape) return {ranked(x.dtype, {-1, -1})};
  const size_t r = x.shape.size();
  const size_t axis = size_t(normalize_axis(a, a.node.attr_int_or("axis", 1), int64_t(r), "axis", true));
  return {ranked(x.dtype, {dim_product(x.shape, 0, axis), dim_product(x.shape, axis, r)})};
}

std::vector<ValueInfo> gather(const InferArgs& a) {
  const ValueInfo &x = a.in(0), &idx = a.in(1);
  if (idx.dtype != DType::kInt64 && idx.dtype != DType::kInt32) {
    a.fail(fmt::format("indices are {}, expected int32 or int64", dtype_name(idx.dtype)));
  }
  if (!x.known_shape || !idx.known_shape) return {unranked(x.dtype)};
  if (x.shape.empty()) a.fail("data must have rank 1 or more");
  const size_t axis = size_t(normalize_axis(a, a.node.attr_int_or("axis", 0), int64_t(x.shape.size()), "axis"));
  if (std::optional<std::vector<int64_t>> v = a.ints(1); v && x.shape[axis] >= 0) {
    for (int64_t i : *v) {
      if (i < -x.shape[axis] || i >= x.shape[axis]) {
        a.fail(fmt::format("index {} is out of range for dimension {} of size {}", i, axis, x.shape[axis]));
      }
    }
  }
  Shape out(x.shape.begin(), x.shape.begin() + int64_t(axis));
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), x.shape.begin() + int64_t(axis) + 1, x.shape.end());
  return {ranked(x.dtype, out)};
}

std::vector<ValueInfo> pad(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (a.opt(2) != nullptr && a.in(2).dtype != x.dtype) {
    a.fail(fmt::format("constant_value is {}, the data is {}", dtype_name(a.in(2).dtype), dtype_name(x.dtype)));
  }
  if (!x.known_shape) return {unranked(x.dtype)};
  const size_t r = x.shape.size();
  Shape out(r, -1);
  if (std::optional<std::vector<int64_t>> pads = a.ints(1)) {
    if (pads->size() != 2 * r) a.fail(fmt::format("pads has {} values, expected {} for rank {}", pads->size(), 2 * r, r));
    for (size_t i = 0; i < r; ++i) {
      if (x.shape[i] < 0) continue;
      out[i] = x.shape[i] + (*pads)[i] + (*pads)[i + r];
      if (out[i] < 0) a.fail(fmt::format("pads {} make dimension {} negative", shape_string(*pads), i));
    }
  }
  return {ranked(x.dtype, out)};
}

std::vector<ValueInfo> reshape(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  const ValueInfo& s = a.in(1);
  if (s.dtype != DType::kInt64) a.fail(fmt::format("shape is {}, expected int64", dtype_name(s.dtype)));
  const std::optional<std::vector<int64_t>> target = a.ints(1);
  if (!target) {
    if (s.known_shape && s.shape.size() == 1 && s.shape[0] >= 0) return {ranked(x.dtype, Shape(size_t(s.shape[0]), -1))};
    return {unranked(x.dtype)};
  }
  const bool allowzero = a.node.attr_int_or("allowzero", 0) != 0;
  Shape out = *target;
  int64_t infer_at = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && !allowzero) {
      if (!x.known_shape || i >= x.shape.size()) {
        if (x.known_shape) a.fail(fmt::format("shape {} copies dimension {}, the input {} has no such dimension",
                                              shape_string(*target), i, shape_string(x.shape)));
        out[i] = -1;
      } else {
        out[i] = x.shape[i];
      }
    } else if (out[i] == -1) {
      if (infer_at >= 0) a.fail(fmt::format("shape {} has more than one -1", shape_string(*target)));
      infer_at = int64_t(i);
    } else if (out[i] < -1) {
      a.fail(fmt::format("shape {} has the invalid dimension {}", shape_string(*target), out[i]));
    }
  }
  const int64_t total = x.known_shape ? dim_product(x.shape, 0, x.shape.size()) : -1;
  if (infer_at >= 0) {
    int64_t rest = 1;
    for (size_t i = 0; i < out.size(); ++i) {
      if (int64_t(i) != infer_at) rest = (rest < 0 || out[i] < 0) ? -1 : rest * out[i];
    }
    out[size_t(infer_at)] = -1;
    if (total >= 0 && rest > 0) {
      if (total % rest != 0) {
        a.fail(fmt::format("cannot reshape {} ({} elements) to {}", shape_string(x.shape), total, shape_string(*target)));
      }
      out[size_t(infer_at)] = total / rest;
    }
  }
  const int64_t n = dim_product(out, 0, out.size());
  if (total >= 0 && n >= 0 && n != total) {
    a.fail(fmt::format("cannot reshape {} ({} elements) to {} ({} elements)", shape_string(x.shape), total,
                       shape_string(out), n));
  }
  return {ranked(x.dtype, out)};
}

std::vector<ValueInfo> shape_of(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (!x.known_shape) return {ranked(DType::kInt64, {-1})};
  const int64_t r = int64_t(x.shape.size());
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t(0), r); };
  const int64_t start = clamp(a.node.attr_int_or("start", 0)), end = clamp(a.node.attr_int_or("end", r));
  return {ranked(DType::kInt64, {std::max<int64_t>(0, end - start)})};
}

std::vector<ValueInfo> slice(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (!x.known_shape) return {unranked(x.dtype)};
  const auto starts = a.ints(1), ends = a.ints(2);
  std::optional<std::vector<int64_t>> axes = a.ints(3), steps = a.ints(4);
  Shape out = x.shape;
  const bool axes_known = a.opt(3) == nullptr || axes.has_value();
  if (!starts || !ends || !axes_known || (a.opt(4) != nullptr && !steps)) {
    if (axes) {
      for (int64_t ax : *axes) out[size_t(normalize_axis(a, ax, int64_t(out.size()), "axes"))] = -1;
    } else {
      std::fill(out.begin(), out.end(), -1);
    }
    return {ranked(x.dtype, out)};
  }
  for (const SliceAxis& s : resolve_slice(a, x.shape)) out[s.axis] = s.count;
  return {ranked(x.dtype, out)};
}

std::vector<ValueInfo> squeeze(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (!x.known_shape) return {unranked(x.dtype)};
  const int64_t r = int64_t(x.shape.size());
  std::set<int64_t> drop;
  if (a.opt(1) != nullptr) {
    const std::optional<std::vector<int64_t>> axes = a.ints(1);
    if (!axes) return {unranked(x.dtype)};
    for (int64_t ax : *axes) {
      const int64_t k = normalize_axis(a, ax, r, "axes");
      if (x.shape[size_t(k)] >= 0 && x.shape[size_t(k)] != 1) {
        a.fail(fmt::format("cannot squeeze dimension {} of size {} (shape {})", k, x.shape[size_t(k)], shape_string(x.shape)));
      }
      drop.insert(k);
    }
  } else {
    for (int64_t k = 0; k < r; ++k) {
      if (x.shape[size_t(k)] < 0) return {unranked(x.dtype)};
      if (x.shape[size_t(k)] == 1) drop.insert(k);
    }
  }
  Shape out;
  for (int64_t k = 0; k < r; ++k) {
    if (!drop.count(k)) out.push_back(x.shape[size_t(k)]);
  }
  return {ranked(x.dtype, out)};
}

std::vector<ValueInfo> unsqueeze(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  const std::optional<std::vector<int64_t>> axes = a.ints(1);
  if (!x.known_shape) return {unranked(x.dtype)};
  if (!axes) {
    const ValueInfo& ax = a.in(1);
    if (ax.known_shape && ax.shape.size() == 1 && ax.shape[0] >= 0) {
      return {ranked(x.dtype, Shape(x.shape.size() + size_t(ax.shape[0]), -1))};
    }
    return {unranked(x.dtype)};
  }
  const int64_t r = int64_t(x.shape.size() + axes->size());
  std::set<int64_t> insert;
  for (int64_t ax : *axes) {
    if (!insert.insert(normalize_axis(a, ax, r, "axes")).second) a.fail(fmt::format("axis {} is given twice", ax));
  }
  Shape out;
  size_t next = 0;
  for (int64_t k = 0; k < r; ++k) out.push_back(insert.count(k) ? 1 : x.shape[next++]);
  return {ranked(x.dtype, out)};
}

std::vector<ValueInfo> transpose(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (!x.known_shape) return {unranked(x.dtype)};
  const size_t r = x.shape.size();
  std::vector<int64_t> perm(r);
  for (size_t i = 0; i < r; ++i) perm[i] = int64_t(r - 1 - i);
  perm = a.node.attr_ints_or("perm", perm);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = sorted.size() == r;
  for (size_t i = 0; ok && i < r; ++i) ok = sorted[i] == int64_t(i);
  if (!ok) a.fail(fmt::format("perm {} is not a permutation of the {} axes of {}", shape_string(perm), r, shape_string(x.shape)));
  Shape out(r);
  for (size_t i = 0; i < r; ++i) out[i] = x.shape[size_t(perm[i])];
  return {ranked(x.dtype, out)};
}

}  // namespace

std::vector<SliceAxis> resolve_slice(const InferArgs& a, const Shape& x) {
  const std::vector<int64_t> starts = *a.ints(1), ends = *a.ints(2);
  std::vector<int64_t> axes, steps(starts.size(), 1);
  if (a.opt(3) != nullptr) {
    axes = *a.ints(3);
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  }
  if (a.opt(4) != nullptr) steps = *a.ints(4);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    a.fail(fmt::format("starts, ends, axes and steps have {}, {}, {} and {} values", starts.size(), ends.size(),
                       axes.size(), steps.size()));
  }
  std::vector<SliceAxis> out;
  std::set<int64_t> seen;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t axis = normalize_axis(a, axes[i], int64_t(x.size()), "axes");
    if (!seen.insert(axis).second) a.fail(fmt::format("axis {} is sliced twice", axis));
    const int64_t d = x[size_t(axis)], step = steps[i];
    if (step == 0) a.fail("a step is 0");
    if (d < 0) {
      out.push_back({size_t(axis), 0, step, -1});
      continue;
    }
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += d;
    if (e < 0) e += d;
    int64_t count;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      count = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      count = s > e ? (s - e + (-step) - 1) / (-step) : 0;
    }
    out.push_back({size_t(axis), s, step, count});
  }
  return out;
}

ShapeRule find_tensor_rule(const std::string& op) {
  static const std::map<std::string, ShapeRule> rules = {
      {"Add", binary_arith},     {"Cast", cast},       {"Concat", concat},   {"Flatten", flatten},
      {"Gather", gather},        {"Mul", binary_arith}, {"Pad", pad},        {"Reshape", reshape},
      {"Shape", shape_of},       {"Slice", slice},     {"Squeeze", squeeze}, {"Sub", binary_arith},
      {"Transpose", transpose},  {"Unsqueeze", unsqueeze},
  };
  auto it = rules.find(op);
  return it == rules.end() ? nullptr : it->second;
}

}  // namespace tauvta::graph
