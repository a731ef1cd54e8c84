#include "cpu/float_ops_common.h"

#include <cstring>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::cpu {

const Tensor& OpArgs::in(size_t i) const {
  const Tensor* t = opt(i);
  if (t == nullptr && opt_sequence(i) != nullptr) {
    fail(fmt::format("input {} ('{}') is a sequence of tensors, expected a tensor", i, node.input(i)));
  }
  if (t == nullptr) fail(fmt::format("input {} is required but missing", i));
  return *t;
}

const TensorSequence& OpArgs::sequence(size_t i) const {
  const TensorSequence* s = opt_sequence(i);
  if (s == nullptr && opt(i) != nullptr) {
    fail(fmt::format("input {} ('{}') is a tensor, expected a sequence", i, node.input(i)));
  }
  if (s == nullptr) fail(fmt::format("input {} (a sequence) is required but missing", i));
  return *s;
}

void OpArgs::fail(const std::string& msg) const { throw Error(fmt::format("{}: {}", node.describe(), msg)); }

void OpArgs::expect_dtype(size_t i, std::initializer_list<DType> allowed) const {
  const Tensor& t = in(i);
  for (DType d : allowed) {
    if (t.dtype() == d) return;
  }
  std::vector<std::string> names;
  for (DType d : allowed) names.emplace_back(graph::dtype_name(d));
  fail(fmt::format("input {} has dtype {}; this kernel takes {}", i, graph::dtype_name(t.dtype()),
                   fmt::join(names, " or ")));
}

std::optional<std::vector<int64_t>> OpArgs::ints_attr_or_input(const std::string& attr,
                                                               size_t input_index) const {
  if (node.has_attr(attr)) return node.attr_ints(attr);
  const Tensor* t = opt(input_index);
  if (t == nullptr) return std::nullopt;
  if (!graph::dtype_is_integer(t->dtype())) {
    fail(fmt::format("input {} ('{}') must be an integer tensor, got {}", input_index, attr,
                     graph::dtype_name(t->dtype())));
  }
  return t->to_int64();
}

std::optional<double> OpArgs::scalar_attr_or_input(const std::string& attr, size_t input_index) const {
  if (node.has_attr(attr)) return double(node.attr_float(attr));
  const Tensor* t = opt(input_index);
  if (t == nullptr) return std::nullopt;
  if (t->size() != 1) {
    fail(fmt::format("input {} ('{}') must hold one value, got shape {}", input_index, attr,
                     graph::shape_string(t->shape())));
  }
  if (t->dtype() == DType::kFloat64) return t->data<double>()[0];
  if (t->dtype() == DType::kFloat32) return double(t->data<float>()[0]);
  return double(t->to_int64()[0]);
}

int64_t normalize_axis(const OpArgs& a, int64_t axis, int64_t rank, const char* what, bool inclusive) {
  const int64_t hi = inclusive ? rank : rank - 1;
  if (axis < -rank || axis > hi) {
    a.fail(fmt::format("{} {} is out of range for rank {}", what, axis, rank));
  }
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

int64_t product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < s.size(); ++i) p *= s[i];
  return p;
}

Shape broadcast_shapes(const OpArgs& a, const Shape& x, const Shape& y) {
  const size_t r = std::max(x.size(), y.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t dx = i < r - x.size() ? 1 : x[i - (r - x.size())];
    const int64_t dy = i < r - y.size() ? 1 : y[i - (r - y.size())];
    if (dx != dy && dx != 1 && dy != 1) {
      a.fail(fmt::format("shapes {} and {} do not broadcast", graph::shape_string(x),
                         graph::shape_string(y)));
    }
    out[i] = dx == 1 ? dy : dx;
  }
  return out;
}

std::vector<Tensor> split_along_axis(const Tensor& x, int64_t axis, const std::vector<int64_t>& sizes) {
  const size_t elem = graph::dtype_size(x.dtype());
  const int64_t dim = x.shape()[size_t(axis)];
  const int64_t outer = product(x.shape(), 0, size_t(axis));
  const int64_t inner = product(x.shape(), size_t(axis + 1), x.shape().size());
  std::vector<Tensor> pieces;
  pieces.reserve(sizes.size());
  int64_t begin = 0;
  for (int64_t s : sizes) {
    Shape shape = x.shape();
    shape[size_t(axis)] = s;
    Tensor t(x.dtype(), shape);
    const size_t row = size_t(s * inner) * elem;
    for (int64_t o = 0; o < outer && row; ++o) {
      std::memcpy(t.raw() + size_t(o) * row, x.raw() + (size_t(o * dim + begin) * size_t(inner)) * elem, row);
    }
    begin += s;
    pieces.push_back(std::move(t));
  }
  return pieces;
}

void expect_same_dtype(const OpArgs& a, const Tensor& x, const Tensor& y) {
  if (x.dtype() != y.dtype()) {
    a.fail(fmt::format("operands have different dtypes ({} and {})", graph::dtype_name(x.dtype()),
                       graph::dtype_name(y.dtype())));
  }
}

std::string dims_string(const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ",")); }

}  // namespace tauvta::cpu
