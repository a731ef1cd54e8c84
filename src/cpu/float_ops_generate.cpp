// Operators that make or rearrange tensors from shape operands: ConstantOfShape, Range, Expand,
// Tile, Split and ScatterND. Exported transformers compute their class-token expansion, window
// masks and head splits with these; every size comes from an operand, so each is checked before
// anything is allocated (Tensor's constructor enforces the tensor byte limit).
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "cpu/float_ops_broadcast.h"
#include "cpu/float_ops_dispatch.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

namespace {

std::vector<int64_t> shape_operand(const OpArgs& a, size_t i, const char* what) {
  const Tensor& t = a.in(i);
  if (t.dtype() != DType::kInt64) {
    a.fail(fmt::format("{} must be int64, got {}", what, graph::dtype_name(t.dtype())));
  }
  if (t.rank() != 1) a.fail(fmt::format("{} must be 1-D, got shape {}", what, graph::shape_string(t.shape())));
  return t.to_int64();
}

}  // namespace

// A tensor of shape `input` filled with the one-element `value` attribute (default float 0).
std::vector<Tensor> op_ConstantOfShape(const OpArgs& a) {
  const std::vector<int64_t> dims = shape_operand(a, 0, "the shape");
  for (int64_t d : dims) {
    if (d < 0) a.fail(fmt::format("shape {} has a negative dimension", dims_string(dims)));
  }
  Tensor value = Tensor::scalar_float(0.0f);
  if (a.node.has_attr("value")) {
    value = a.node.attr_tensor("value");
    if (value.size() != 1) {
      a.fail(fmt::format("attribute 'value' must hold one element, got shape {}", graph::shape_string(value.shape())));
    }
  }
  Tensor out(value.dtype(), dims);
  const size_t elem = graph::dtype_size(value.dtype());
  for (int64_t i = 0; i < out.size(); ++i) std::memcpy(out.raw() + size_t(i) * elem, value.raw(), elem);
  return outputs(std::move(out));
}

// start, start + delta, ... while before limit: max(ceil((limit - start) / delta), 0) elements.
std::vector<Tensor> op_Range(const OpArgs& a) {
  const Tensor &s = a.in(0), &l = a.in(1), &d = a.in(2);
  for (size_t i = 0; i < 3; ++i) {
    if (a.in(i).dtype() != s.dtype() || a.in(i).size() != 1) {
      a.fail("start, limit and delta must be scalars of one dtype");
    }
  }
  Tensor out;
  dispatch_numeric(a, s.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T start = s.data<T>()[0], limit = l.data<T>()[0], delta = d.data<T>()[0];
    if (delta == T(0)) a.fail("delta is 0");
    const double n = std::ceil((double(limit) - double(start)) / double(delta));
    if (!(n < 1e12)) a.fail(fmt::format("{} elements are too many", n));
    const int64_t count = n > 0 ? int64_t(n) : 0;
    out = Tensor(s.dtype(), {count});
    T* p = out.data<T>();
    for (int64_t i = 0; i < count; ++i) p[i] = T(start + T(i) * delta);
  });
  return outputs(std::move(out));
}

// Bidirectional broadcast of the input with `shape` (so the output may be larger than both).
std::vector<Tensor> op_Expand(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const std::vector<int64_t> dims = shape_operand(a, 1, "the shape");
  return outputs(broadcast_to(x, broadcast_shapes(a, x.shape(), dims)));
}

// Each axis repeated `repeats[axis]` times.
std::vector<Tensor> op_Tile(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const std::vector<int64_t> reps = shape_operand(a, 1, "repeats");
  if (int64_t(reps.size()) != x.rank()) {
    a.fail(fmt::format("repeats {} has {} values for the rank-{} input", dims_string(reps), reps.size(), x.rank()));
  }
  // As a broadcast: [d0, d1, ...] -> [r0, d0, r1, d1, ...] then merged pairwise.
  Shape src_shape, out_shape, final_shape;
  for (size_t i = 0; i < reps.size(); ++i) {
    if (reps[i] < 0) a.fail(fmt::format("repeats {} has a negative value", dims_string(reps)));
    src_shape.insert(src_shape.end(), {1, x.shape()[i]});
    out_shape.insert(out_shape.end(), {reps[i], x.shape()[i]});
    final_shape.push_back(reps[i] * x.shape()[i]);
  }
  return outputs(broadcast_to(x.reshaped(src_shape), out_shape).reshaped(final_shape));
}

// Split along `axis` into the sizes given by `split` (an input from opset 13, an attribute
// before), or into as many equal parts as the node has outputs.
std::vector<Tensor> op_Split(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const int64_t axis = normalize_axis(a, a.node.attr_int_or("axis", 0), x.rank());
  const int64_t dim = x.shape()[size_t(axis)];
  const size_t parts = a.node.outputs.size();
  std::vector<int64_t> sizes;
  if (std::optional<std::vector<int64_t>> s = a.ints_attr_or_input("split", 1)) {
    sizes = *s;
    int64_t total = 0;
    for (int64_t v : sizes) {
      if (v < 0) a.fail(fmt::format("split {} has a negative size", dims_string(sizes)));
      total += v;
    }
    if (sizes.size() != parts || total != dim) {
      a.fail(fmt::format("split {} does not cut dimension {} of size {} into {} outputs", dims_string(sizes), axis,
                         dim, parts));
    }
  } else {
    if (parts == 0 || dim % int64_t(parts) != 0) {
      a.fail(fmt::format("dimension {} of size {} does not split into {} equal parts", axis, dim, parts));
    }
    sizes.assign(parts, dim / int64_t(parts));
  }
  return split_along_axis(x, axis, sizes);
}

// data with the slices addressed by the last axis of `indices` replaced by `updates`
// (reduction none, add or mul; indices may be negative).
std::vector<Tensor> op_ScatterND(const OpArgs& a) {
  const Tensor &data = a.in(0), &indices = a.in(1), &updates = a.in(2);
  if (indices.dtype() != DType::kInt64) a.fail("indices must be int64");
  if (updates.dtype() != data.dtype()) a.fail("updates and data have different dtypes");
  if (indices.rank() < 1) a.fail("indices must have rank >= 1");
  const int64_t q = indices.rank(), k = indices.shape().back(), r = data.rank();
  if (k > r) a.fail(fmt::format("indices address {} axes of a rank-{} tensor", k, r));
  Shape want(indices.shape().begin(), indices.shape().end() - 1);
  want.insert(want.end(), data.shape().begin() + k, data.shape().end());
  if (updates.shape() != want) {
    a.fail(fmt::format("updates have shape {}, expected {}", graph::shape_string(updates.shape()),
                       graph::shape_string(want)));
  }
  const std::string reduction = a.node.attr_string_or("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul") {
    a.fail(fmt::format("reduction '{}' is not supported (none, add, mul)", reduction));
  }
  Tensor out = data;
  const int64_t slice = product(data.shape(), size_t(k), size_t(r));
  const std::vector<int64_t> strides = strides_of(data.shape());
  const std::vector<int64_t> idx = indices.to_int64();
  const int64_t n = q == 1 ? 1 : product(indices.shape(), 0, size_t(q - 1));
  dispatch_any(a, data.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* po = out.data<T>();
    const T* pu = updates.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; ++j) {
        int64_t v = idx[size_t(i * k + j)];
        const int64_t d = data.shape()[size_t(j)];
        if (v < 0) v += d;
        if (v < 0 || v >= d) a.fail(fmt::format("index {} is out of range for axis {} of size {}", idx[size_t(i * k + j)], j, d));
        off += v * strides[size_t(j)];
      }
      for (int64_t e = 0; e < slice; ++e) {
        T& dst = po[off + e];
        const T u = pu[i * slice + e];
        if (reduction == "add") {
          if constexpr (std::is_same_v<T, bool>) dst = dst || u;
          else dst = T(dst + u);
        } else if (reduction == "mul") {
          if constexpr (std::is_same_v<T, bool>) dst = dst && u;
          else dst = T(dst * u);
        } else {
          dst = u;
        }
      }
    }
  });
  return outputs(std::move(out));
}

}  // namespace tauvta::cpu
