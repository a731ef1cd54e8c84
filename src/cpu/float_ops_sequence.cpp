// The sequence operators (ONNX's sequence type, opset 11): SequenceEmpty, SequenceConstruct,
// SequenceInsert, SequenceErase, SequenceAt, SequenceLength, SplitToSequence, ConcatFromSequence.
// Sequences are values (graph::TensorSequence): an operator that changes one returns a new
// sequence and leaves its input alone. Positions may be negative (counted from the back); one out
// of range is an error naming the position and the sequence's length. All dtypes.
#include <fmt/format.h>

#include "common/error.h"
#include "cpu/op_registry.h"
#include "graph/onnx_import.h"

namespace tauvta::cpu {

namespace {

// The position operand of SequenceInsert/Erase/At (input i): an int32/int64 tensor of one value
// (a scalar, or shape [1] as some writers give it), in [-length, length) — or up to length
// itself when `end_allowed` (SequenceInsert's "append"). Returns it counted from the front.
int64_t sequence_position(const OpArgs& a, size_t i, int64_t length, bool end_allowed) {
  a.expect_dtype(i, {DType::kInt32, DType::kInt64});
  const Tensor& p = a.in(i);
  if (p.size() != 1) {
    a.fail(fmt::format("position ('{}') has shape {}, expected a scalar", a.node.input(i),
                       graph::shape_string(p.shape())));
  }
  const int64_t position = p.to_int64()[0];
  const int64_t last = end_allowed ? length : length - 1;
  if (position < -length || position > last) {
    a.fail(fmt::format("position {} is out of range for a sequence of length {} (valid: {})", position, length,
                       last < -length ? std::string("none, the sequence is empty")
                                      : fmt::format("{} to {}", -length, last)));
  }
  return position < 0 ? position + length : position;
}

void expect_element_dtype(const OpArgs& a, const TensorSequence& s, size_t tensor_index) {
  const Tensor& t = a.in(tensor_index);
  if (t.dtype() != s.dtype) {
    a.fail(fmt::format("input {} ('{}') is {}, the sequence holds {} tensors", tensor_index, a.node.input(tensor_index),
                       graph::dtype_name(t.dtype()), graph::dtype_name(s.dtype)));
  }
}

// SplitToSequence's piece sizes along a dimension of size `dim`: the listed sizes, pieces of one
// size with a smaller last one (scalar split), or pieces of size 1 (no split).
std::vector<int64_t> split_to_sequence_sizes(const OpArgs& a, int64_t axis, int64_t dim) {
  const Tensor* split = a.opt(1);
  if (split == nullptr) return std::vector<int64_t>(size_t(dim), 1);
  a.expect_dtype(1, {DType::kInt32, DType::kInt64});
  const std::vector<int64_t> v = split->to_int64();
  if (split->rank() == 0) {
    const int64_t size = v[0];
    if (size <= 0) a.fail(fmt::format("split {} must be positive (the size of every piece)", size));
    std::vector<int64_t> sizes(size_t(dim / size), size);
    if (dim % size != 0) sizes.push_back(dim % size);
    return sizes;
  }
  if (split->rank() != 1) {
    a.fail(fmt::format("split has shape {}, expected a scalar or a 1-D tensor", graph::shape_string(split->shape())));
  }
  int64_t total = 0;
  for (int64_t s : v) {
    if (s < 0) a.fail(fmt::format("split {} has a negative size", dims_string(v)));
    total += s;
  }
  if (total != dim) {
    a.fail(fmt::format("split {} sums to {}, but dimension {} has size {}", dims_string(v), total, axis, dim));
  }
  return v;
}

}  // namespace

std::vector<Value> op_SequenceEmpty(const OpArgs& a) {
  // ONNX's default element type is float.
  const int64_t code = a.node.attr_int_or("dtype", 1);
  TensorSequence s;
  s.dtype = graph::dtype_from_onnx_elem_type(int(code), a.node.describe() + ": attribute 'dtype'");
  return values(std::move(s));
}

std::vector<Value> op_SequenceConstruct(const OpArgs& a) {
  if (a.num_inputs() == 0) a.fail("needs at least one input");
  TensorSequence s;
  s.dtype = a.in(0).dtype();
  for (size_t i = 0; i < a.num_inputs(); ++i) {
    expect_element_dtype(a, s, i);
    s.tensors.push_back(a.in(i));
  }
  return values(std::move(s));
}

// Inserts input 1 before `position` (default: at the back).
std::vector<Value> op_SequenceInsert(const OpArgs& a) {
  const TensorSequence& in = a.sequence(0);
  expect_element_dtype(a, in, 1);
  const int64_t at = a.opt(2) != nullptr ? sequence_position(a, 2, in.length(), true) : in.length();
  TensorSequence out = in;
  out.tensors.insert(out.tensors.begin() + at, a.in(1));
  return values(std::move(out));
}

// Removes the tensor at `position` (default: the last one).
std::vector<Value> op_SequenceErase(const OpArgs& a) {
  const TensorSequence& in = a.sequence(0);
  int64_t at = in.length() - 1;
  if (a.opt(1) != nullptr) {
    at = sequence_position(a, 1, in.length(), false);
  } else if (in.tensors.empty()) {
    a.fail("the sequence is empty; there is no last tensor to erase");
  }
  TensorSequence out = in;
  out.tensors.erase(out.tensors.begin() + at);
  return values(std::move(out));
}

std::vector<Value> op_SequenceAt(const OpArgs& a) {
  const TensorSequence& in = a.sequence(0);
  return values(Tensor(in.tensors[size_t(sequence_position(a, 1, in.length(), false))]));
}

std::vector<Value> op_SequenceLength(const OpArgs& a) {
  return values(Tensor::from_int64(DType::kInt64, {}, {a.sequence(0).length()}));
}

// The input cut along `axis` (default 0) into a sequence: by `split` (input 1, a scalar piece
// size or a 1-D list of sizes), or into pieces of size 1, whose axis keepdims = 0 removes.
std::vector<Value> op_SplitToSequence(const OpArgs& a) {
  const Tensor& x = a.in(0);
  if (x.rank() == 0) a.fail("input 0 is a scalar; there is no axis to split along");
  const int64_t axis = normalize_axis(a, a.node.attr_int_or("axis", 0), x.rank());
  const int64_t dim = x.shape()[size_t(axis)];
  const std::vector<int64_t> sizes = split_to_sequence_sizes(a, axis, dim);
  // Every piece costs a Tensor even when empty: a huge dimension cut into size-1 pieces is
  // refused like any tensor over the size limit, not allocated.
  if (int64_t(sizes.size()) > graph::tensor_byte_limit() / int64_t(sizeof(Tensor))) {
    a.fail(fmt::format("cutting dimension {} of size {} gives {} tensors, more than the tensor size limit allows",
                       axis, dim, sizes.size()));
  }
  TensorSequence s;
  s.dtype = x.dtype();
  s.tensors = split_along_axis(x, axis, sizes);
  if (a.opt(1) == nullptr && a.node.attr_int_or("keepdims", 1) == 0) {
    Shape squeezed = x.shape();
    squeezed.erase(squeezed.begin() + axis);
    for (Tensor& t : s.tensors) t = t.reshaped(squeezed);
  }
  return values(std::move(s));
}

// The elements joined along `axis` (new_axis 0: as Concat; the elements agree outside it) or
// stacked along a new axis at `axis` (new_axis 1: as numpy.stack; the elements agree
// everywhere).
std::vector<Value> op_ConcatFromSequence(const OpArgs& a) {
  const TensorSequence& s = a.sequence(0);
  if (s.tensors.empty()) a.fail("the sequence is empty; there is nothing to concatenate");
  const bool new_axis = a.node.attr_int_or("new_axis", 0) != 0;
  const Tensor& first = s.tensors[0];
  const int64_t r = first.rank();
  if (r == 0 && !new_axis) a.fail("the elements are scalars; there is no axis to concatenate along (new_axis 0)");
  const int64_t axis = normalize_axis(a, a.node.attr_int("axis"), new_axis ? r + 1 : r);
  for (size_t i = 1; i < s.tensors.size(); ++i) {
    const Tensor& t = s.tensors[i];
    bool ok = t.dtype() == first.dtype() && t.rank() == r;
    for (int64_t d = 0; ok && d < r; ++d) {
      ok = (!new_axis && d == axis) || t.shape()[size_t(d)] == first.shape()[size_t(d)];
    }
    if (!ok) {
      const std::string where =
          new_axis ? " (new_axis 1 stacks tensors of one shape)" : fmt::format(" outside axis {}", axis);
      a.fail(fmt::format("element {} ({}{}) does not match element 0 ({}{}){}", i, graph::dtype_name(t.dtype()),
                         graph::shape_string(t.shape()), graph::dtype_name(first.dtype()),
                         graph::shape_string(first.shape()), where));
    }
  }
  // Concat does the copying: over the elements, each with a size-1 axis inserted when stacking
  // (Concat's 'axis' attribute is this node's, which then counts in the stacked rank).
  std::vector<Tensor> stacked;
  std::vector<const Tensor*> parts;
  if (new_axis) {
    stacked.reserve(s.tensors.size());
    for (const Tensor& t : s.tensors) {
      Shape shape = t.shape();
      shape.insert(shape.begin() + axis, 1);
      stacked.push_back(t.reshaped(shape));
    }
  }
  for (const Tensor& t : new_axis ? stacked : s.tensors) parts.push_back(&t);
  std::vector<Tensor> joined = op_Concat(OpArgs{a.node, parts, a.opset});
  return values(std::move(joined.at(0)));
}

}  // namespace tauvta::cpu
