// Data-movement operators, dtype-agnostic (elements are moved as bytes): Transpose, Concat,
// Gather, Slice, Pad (constant, reflect, edge; pads as attribute or input, negative pads crop).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "cpu/float_ops_dispatch.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

namespace {

// dst (dense, shape `dims`) = src viewed with element strides `strides` from `offset`.
template <class E>
void strided_copy_typed(const std::vector<int64_t>& dims, const E* src, int64_t offset,
                        const std::vector<int64_t>& strides, E* dst) {
  const size_t r = dims.size();
  if (r == 0) {
    dst[0] = src[offset];
    return;
  }
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  const int64_t n = dims[r - 1], st = strides[r - 1];
  std::vector<int64_t> idx(r, 0);
  int64_t off = offset;
  while (true) {
    const E* s = src + off;
    if (st == 1) {
      std::memcpy(dst, s, size_t(n) * sizeof(E));
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i] = s[i * st];
    }
    dst += n;
    size_t k = r - 1;
    while (true) {
      if (k == 0) return;
      --k;
      ++idx[k];
      off += strides[k];
      if (idx[k] < dims[k]) break;
      off -= strides[k] * dims[k];
      idx[k] = 0;
    }
  }
}

void strided_copy(size_t elem, const std::vector<int64_t>& dims, const uint8_t* src, int64_t offset,
                  const std::vector<int64_t>& strides, uint8_t* dst) {
  switch (elem) {
    case 1: return strided_copy_typed(dims, src, offset, strides, dst);
    case 2: return strided_copy_typed(dims, reinterpret_cast<const uint16_t*>(src), offset, strides, reinterpret_cast<uint16_t*>(dst));
    case 4: return strided_copy_typed(dims, reinterpret_cast<const uint32_t*>(src), offset, strides, reinterpret_cast<uint32_t*>(dst));
    default: return strided_copy_typed(dims, reinterpret_cast<const uint64_t*>(src), offset, strides, reinterpret_cast<uint64_t*>(dst));
  }
}

}  // namespace

std::vector<Tensor> op_Transpose(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const int64_t r = x.rank();
  std::vector<int64_t> perm = a.node.attr_ints_or("perm", {});
  if (perm.empty()) {
    for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
  }
  if (int64_t(perm.size()) != r) {
    a.fail(fmt::format("perm {} has {} entries for an input of rank {}", dims_string(perm), perm.size(), r));
  }
  std::vector<bool> seen(size_t(r), false);
  for (int64_t& p : perm) {
    p = normalize_axis(a, p, r, "perm entry");
    if (seen[size_t(p)]) a.fail(fmt::format("perm {} is not a permutation", dims_string(perm)));
    seen[size_t(p)] = true;
  }
  const std::vector<int64_t> in_strides = strides_of(x.shape());
  Shape out_shape(static_cast<size_t>(r));
  std::vector<int64_t> src_strides(static_cast<size_t>(r));
  for (size_t i = 0; i < size_t(r); ++i) {
    out_shape[i] = x.shape()[size_t(perm[i])];
    src_strides[i] = in_strides[size_t(perm[i])];
  }
  Tensor out(x.dtype(), out_shape);
  strided_copy(graph::dtype_size(x.dtype()), out_shape, x.raw(), 0, src_strides, out.raw());
  return outputs(std::move(out));
}

std::vector<Tensor> op_Concat(const OpArgs& a) {
  if (a.num_inputs() == 0) a.fail("needs at least one input");
  const Tensor& first = a.in(0);
  const int64_t r = first.rank();
  const int64_t axis = normalize_axis(a, a.node.attr_int("axis"), r);
  Shape out_shape = first.shape();
  out_shape[size_t(axis)] = 0;
  for (size_t i = 0; i < a.num_inputs(); ++i) {
    const Tensor& t = a.in(i);
    bool ok = t.dtype() == first.dtype() && t.rank() == r;
    for (int64_t d = 0; ok && d < r; ++d) ok = d == axis || t.shape()[size_t(d)] == first.shape()[size_t(d)];
    if (!ok) {
      a.fail(fmt::format("input {} ({}{}) does not match input 0 ({}{}) outside axis {}", i,
                         graph::dtype_name(t.dtype()), graph::shape_string(t.shape()),
                         graph::dtype_name(first.dtype()), graph::shape_string(first.shape()), axis));
    }
    out_shape[size_t(axis)] += t.shape()[size_t(axis)];
  }
  Tensor out(first.dtype(), out_shape);
  const size_t elem = graph::dtype_size(first.dtype());
  const int64_t outer = product(out_shape, 0, size_t(axis));
  const size_t out_row = size_t(product(out_shape, size_t(axis), size_t(r))) * elem;
  size_t col = 0;
  for (size_t i = 0; i < a.num_inputs(); ++i) {
    const Tensor& t = a.in(i);
    const size_t row = size_t(product(t.shape(), size_t(axis), size_t(r))) * elem;
    for (int64_t o = 0; o < outer; ++o) {
      if (row) std::memcpy(out.raw() + size_t(o) * out_row + col, t.raw() + size_t(o) * row, row);
    }
    col += row;
  }
  return outputs(std::move(out));
}

std::vector<Tensor> op_Gather(const OpArgs& a) {
  const Tensor& data = a.in(0);
  const Tensor& indices = a.in(1);
  if (indices.dtype() != DType::kInt32 && indices.dtype() != DType::kInt64) {
    a.fail(fmt::format("indices must be int32 or int64, got {}", graph::dtype_name(indices.dtype())));
  }
  const int64_t r = data.rank();
  if (r == 0) a.fail("data must have rank >= 1");
  const int64_t axis = normalize_axis(a, a.node.attr_int_or("axis", 0), r);
  const int64_t dim = data.shape()[size_t(axis)];
  Shape out_shape(data.shape().begin(), data.shape().begin() + axis);
  out_shape.insert(out_shape.end(), indices.shape().begin(), indices.shape().end());
  out_shape.insert(out_shape.end(), data.shape().begin() + axis + 1, data.shape().end());
  Tensor out(data.dtype(), out_shape);
  const size_t elem = graph::dtype_size(data.dtype());
  const int64_t outer = product(data.shape(), 0, size_t(axis));
  const size_t inner = size_t(product(data.shape(), size_t(axis + 1), size_t(r))) * elem;
  const std::vector<int64_t> idx = indices.to_int64();
  uint8_t* dst = out.raw();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k : idx) {
      if (k < -dim || k >= dim) {
        a.fail(fmt::format("index {} is out of range for axis {} of size {}", k, axis, dim));
      }
      if (k < 0) k += dim;
      if (inner) std::memcpy(dst, data.raw() + (size_t(o * dim + k)) * inner, inner);
      dst += inner;
    }
  }
  return outputs(std::move(out));
}

std::vector<Tensor> op_Slice(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const int64_t r = x.rank();
  // Opset < 10: starts/ends/axes attributes; opset >= 10: inputs 1..4 (axes and steps optional).
  const auto starts = a.ints_attr_or_input("starts", 1);
  const auto ends = a.ints_attr_or_input("ends", 2);
  if (!starts || !ends) a.fail("needs 'starts' and 'ends'");
  std::vector<int64_t> axes = a.ints_attr_or_input("axes", 3).value_or(std::vector<int64_t>{});
  std::vector<int64_t> steps = a.opt(4) ? a.opt(4)->to_int64() : std::vector<int64_t>{};
  if (axes.empty()) {
    for (size_t i = 0; i < starts->size(); ++i) axes.push_back(int64_t(i));
  }
  if (steps.empty()) steps.assign(starts->size(), 1);
  if (ends->size() != starts->size() || axes.size() != starts->size() || steps.size() != starts->size()) {
    a.fail(fmt::format("starts {}, ends {}, axes {} and steps {} differ in length", dims_string(*starts),
                       dims_string(*ends), dims_string(axes), dims_string(steps)));
  }
  Shape out_shape = x.shape();
  const std::vector<int64_t> in_strides = strides_of(x.shape());
  std::vector<int64_t> src_strides = in_strides;
  int64_t offset = 0;
  std::vector<bool> seen(size_t(r), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t ax = normalize_axis(a, axes[i], r, "axes entry");
    if (seen[size_t(ax)]) a.fail(fmt::format("axes {} repeat an axis", dims_string(axes)));
    seen[size_t(ax)] = true;
    const int64_t dim = x.shape()[size_t(ax)];
    const int64_t step = steps[i];
    if (step == 0) a.fail("steps must not be 0");
    int64_t s = (*starts)[i], e = (*ends)[i];
    // Negative positions count from the end; then clamp as ONNX does: [0, dim] for positive
    // steps, [-1, dim-1] for negative ones (so INT64 extremes mean "to the end").
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    if (step > 0) {
      s = std::clamp(s, int64_t(0), dim);
      e = std::clamp(e, int64_t(0), dim);
    } else {
      s = std::clamp(s, int64_t(0), dim - 1);
      e = std::clamp(e, int64_t(-1), dim - 1);
    }
    const int64_t len = step > 0 ? (e > s ? (e - s + step - 1) / step : 0)
                                 : (s > e ? (s - e + (-step) - 1) / (-step) : 0);
    out_shape[size_t(ax)] = len;
    if (len > 0) offset += s * in_strides[size_t(ax)];
    src_strides[size_t(ax)] = in_strides[size_t(ax)] * step;
  }
  Tensor out(x.dtype(), out_shape);
  if (out.size() > 0) strided_copy(graph::dtype_size(x.dtype()), out_shape, x.raw(), offset, src_strides, out.raw());
  return outputs(std::move(out));
}

std::vector<Tensor> op_Pad(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const int64_t r = x.rank();
  const std::string mode = a.node.attr_string_or("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    a.fail(fmt::format("mode '{}' is not supported (constant, reflect, edge)", mode));
  }
  // Opset < 11: 'pads' (or 'paddings' in opset 1) and 'value' attributes; opset >= 11: inputs.
  std::optional<std::vector<int64_t>> pads = a.ints_attr_or_input("pads", 1);
  if (!pads && a.node.has_attr("paddings")) pads = a.node.attr_ints("paddings");
  if (!pads) a.fail("needs 'pads'");
  if (int64_t(pads->size()) != 2 * r) {
    a.fail(fmt::format("pads {} must have {} entries (begin and end for each of {} axes)", dims_string(*pads),
                       2 * r, r));
  }
  Shape out_shape(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i) {
    out_shape[size_t(i)] = x.shape()[size_t(i)] + (*pads)[size_t(i)] + (*pads)[size_t(i + r)];
    if (out_shape[size_t(i)] < 0) {
      a.fail(fmt::format("pads {} crop axis {} of {} below zero", dims_string(*pads), i,
                         graph::shape_string(x.shape())));
    }
    if (mode != "constant" && x.shape()[size_t(i)] == 0 && out_shape[size_t(i)] > 0) {
      a.fail(fmt::format("mode '{}' cannot pad the empty axis {}", mode, i));
    }
  }
  // Per axis, the source index of every output index (-1: the constant value).
  std::vector<std::vector<int64_t>> src(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i) {
    const int64_t dim = x.shape()[size_t(i)], begin = (*pads)[size_t(i)];
    auto& m = src[size_t(i)];
    m.resize(size_t(out_shape[size_t(i)]));
    for (int64_t o = 0; o < out_shape[size_t(i)]; ++o) {
      int64_t s = o - begin;
      if (s < 0 || s >= dim) {
        if (mode == "constant") {
          s = -1;
        } else if (mode == "edge") {
          s = std::clamp(s, int64_t(0), dim - 1);
        } else if (dim == 1) {
          s = 0;
        } else {  // reflect without repeating the edge: period 2*(dim-1)
          const int64_t period = 2 * (dim - 1);
          s = ((s % period) + period) % period;
          if (s >= dim) s = period - s;
        }
      }
      m[size_t(o)] = s;
    }
  }
  Tensor out(x.dtype(), out_shape);
  const size_t elem = graph::dtype_size(x.dtype());
  std::vector<uint8_t> fill(elem, 0);
  if (mode == "constant") {
    const double v = a.scalar_attr_or_input("value", 2).value_or(0.0);
    Tensor c = x.dtype() == DType::kFloat64 ? Tensor(DType::kFloat64, {})
                                            : Tensor::from_floats({}, {float(v)}).cast(x.dtype());
    if (x.dtype() == DType::kFloat64) *c.data<double>() = v;
    std::memcpy(fill.data(), c.raw(), elem);
  }
  if (out.size() == 0) return outputs(std::move(out));
  const std::vector<int64_t> in_strides = strides_of(x.shape());
  // Walk output rows (all axes but the last) and copy each element through the index maps.
  const int64_t rows = r == 0 ? 1 : out.size() / out_shape[size_t(r - 1)];
  for (int64_t row = 0; row < rows; ++row) {
    int64_t rem = row, base = 0;
    bool is_fill = false;
    for (int64_t i = r - 2; i >= 0; --i) {
      const int64_t o = rem % out_shape[size_t(i)];
      rem /= out_shape[size_t(i)];
      const int64_t s = src[size_t(i)][size_t(o)];
      if (s < 0) is_fill = true;
      base += s * in_strides[size_t(i)];
    }
    uint8_t* dst = out.raw() + size_t(row * (r == 0 ? 1 : out_shape[size_t(r - 1)])) * elem;
    if (r == 0) {
      std::memcpy(dst, x.raw(), elem);
      continue;
    }
    const auto& last = src[size_t(r - 1)];
    for (size_t o = 0; o < last.size(); ++o) {
      const uint8_t* from = (is_fill || last[o] < 0) ? fill.data() : x.raw() + size_t(base + last[o]) * elem;
      std::memcpy(dst + o * elem, from, elem);
    }
  }
  return outputs(std::move(out));
}

}  // namespace tauvta::cpu
