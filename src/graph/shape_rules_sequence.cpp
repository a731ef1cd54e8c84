// Shape rules of the sequence operators (ONNX's sequence type) and of Identity, which passes a
// tensor or a sequence. A sequence's ValueInfo describes its elements (ValueInfo::sequence): the
// union of what is known about every tensor that may be in it, as ONNX's own inference does. Its
// length is not tracked, so the positions of SequenceAt/Insert/Erase are checked at run time.
#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/onnx_import.h"
#include "graph/shape_rules.h"

namespace tauvta::graph {

namespace {

const ValueInfo& sequence_input(const InferArgs& a, size_t i) {
  const ValueInfo& v = a.in(i);
  if (!v.sequence) a.fail(fmt::format("input {} ('{}') is a tensor, expected a sequence", i, a.node.input(i)));
  return v;
}

const ValueInfo& non_sequence_input(const InferArgs& a, size_t i) {
  const ValueInfo& v = a.in(i);
  if (v.sequence) a.fail(fmt::format("input {} ('{}') is a sequence, expected a tensor", i, a.node.input(i)));
  return v;
}

ValueInfo sequence_of(const ValueInfo& element) {
  ValueInfo s = element.known_shape ? ranked(element.dtype, element.shape) : unranked(element.dtype);
  s.sequence = true;
  return s;
}

ValueInfo element_of(const ValueInfo& sequence) {
  return sequence.known_shape ? ranked(sequence.dtype, sequence.shape) : unranked(sequence.dtype);
}

// What holds for both of two tensors of one dtype: the common rank, -1 where dimensions differ.
ValueInfo element_union(const ValueInfo& x, const ValueInfo& y) {
  if (!x.known_shape || !y.known_shape || x.shape.size() != y.shape.size()) return unranked(x.dtype);
  Shape s = x.shape;
  for (size_t d = 0; d < s.size(); ++d) {
    if (s[d] != y.shape[d]) s[d] = -1;
  }
  return ranked(x.dtype, s);
}

// A position (SequenceAt/Insert/Erase) or a split operand: int32 or int64.
void expect_index_dtype(const InferArgs& a, size_t i, const char* what) {
  const DType t = a.in(i).dtype;
  if (t != DType::kInt32 && t != DType::kInt64) {
    a.fail(fmt::format("{} ('{}') is {}, expected int32 or int64", what, a.node.input(i), dtype_name(t)));
  }
}

// An optional position input: a tensor of integers holding one value.
void check_position(const InferArgs& a, size_t i) {
  if (a.opt(i) == nullptr) return;
  non_sequence_input(a, i);
  expect_index_dtype(a, i, "position");
  if (a.ranked(i) && dim_product(a.in(i).shape, 0, a.in(i).shape.size()) > 1) {
    a.fail(fmt::format("position ('{}') has shape {}, expected a scalar", a.node.input(i),
                       shape_string(a.in(i).shape)));
  }
}

void expect_same_element_dtype(const InferArgs& a, const ValueInfo& seq, size_t tensor_index) {
  const ValueInfo& t = a.in(tensor_index);
  if (t.dtype != seq.dtype) {
    a.fail(fmt::format("input {} ('{}') is {}, the sequence holds {} tensors", tensor_index, a.node.input(tensor_index),
                       dtype_name(t.dtype), dtype_name(seq.dtype)));
  }
}

std::vector<ValueInfo> sequence_empty_rule(const InferArgs& a) {
  // ONNX's default element type is float.
  const DType t =
      dtype_from_onnx_elem_type(int(a.node.attr_int_or("dtype", 1)), a.node.describe() + ": attribute 'dtype'");
  ValueInfo s = unranked(t);
  s.sequence = true;
  return {s};
}

std::vector<ValueInfo> sequence_construct_rule(const InferArgs& a) {
  ValueInfo element = non_sequence_input(a, 0);
  for (size_t i = 1; i < a.node.inputs.size(); ++i) {
    const ValueInfo& v = non_sequence_input(a, i);
    if (v.dtype != element.dtype) {
      a.fail(fmt::format("input {} ('{}') is {}, input 0 is {}: a sequence holds tensors of one dtype", i,
                         a.node.input(i), dtype_name(v.dtype), dtype_name(element.dtype)));
    }
    element = element_union(element, v);
  }
  return {sequence_of(element)};
}

std::vector<ValueInfo> sequence_insert_rule(const InferArgs& a) {
  const ValueInfo& seq = sequence_input(a, 0);
  non_sequence_input(a, 1);
  expect_same_element_dtype(a, seq, 1);
  check_position(a, 2);
  return {sequence_of(element_union(element_of(seq), a.in(1)))};
}

std::vector<ValueInfo> sequence_erase_rule(const InferArgs& a) {
  const ValueInfo& seq = sequence_input(a, 0);
  check_position(a, 1);
  return {sequence_of(element_of(seq))};
}

std::vector<ValueInfo> sequence_at_rule(const InferArgs& a) {
  const ValueInfo& seq = sequence_input(a, 0);
  if (a.opt(1) == nullptr) a.fail("input 1 (position) is missing");
  check_position(a, 1);
  return {element_of(seq)};
}

std::vector<ValueInfo> sequence_length_rule(const InferArgs& a) {
  sequence_input(a, 0);
  return {ranked(DType::kInt64, {})};
}

// SplitToSequence(input[, split]) {axis, keepdims}: without split, pieces of size 1 along axis
// (keepdims 0 drops that axis); a scalar split: pieces of that size, the last one possibly
// smaller; a 1-D split: the listed sizes.
std::vector<ValueInfo> split_to_sequence_rule(const InferArgs& a) {
  const ValueInfo& x = non_sequence_input(a, 0);
  const bool has_split = a.opt(1) != nullptr;
  if (has_split) {
    non_sequence_input(a, 1);
    expect_index_dtype(a, 1, "split");
    if (a.ranked(1) && a.in(1).shape.size() > 1) {
      a.fail(fmt::format("split ('{}') has shape {}, expected a scalar or a 1-D tensor", a.node.input(1),
                         shape_string(a.in(1).shape)));
    }
  }
  if (!x.known_shape) return {sequence_of(unranked(x.dtype))};
  const int64_t r = int64_t(x.shape.size());
  if (r == 0) a.fail("input 0 is a scalar; there is no axis to split along");
  const size_t axis = size_t(normalize_axis(a, a.node.attr_int_or("axis", 0), r, "axis"));
  Shape element = x.shape;
  if (!has_split) {
    if (a.node.attr_int_or("keepdims", 1) == 0) {
      element.erase(element.begin() + int64_t(axis));
    } else {
      element[axis] = 1;
    }
    return {sequence_of(ranked(x.dtype, element))};
  }
  const std::optional<std::vector<int64_t>> split = a.ints(1);
  const bool scalar = a.ranked(1) && a.in(1).shape.empty();
  int64_t size = -1;  // the one size every piece has, when it is known
  if (split && scalar && split->at(0) > 0 && x.shape[axis] >= 0 && x.shape[axis] % split->at(0) == 0) {
    size = split->at(0);
  } else if (split && !scalar && !split->empty() &&
             std::all_of(split->begin(), split->end(), [&](int64_t v) { return v == split->front(); })) {
    size = split->front();
  }
  element[axis] = size;
  return {sequence_of(ranked(x.dtype, element))};
}

// ConcatFromSequence {axis, new_axis}: the elements joined along axis (new_axis 0, as Concat) or
// stacked along a new axis (new_axis 1, as numpy.stack). The joined axis depends on the
// sequence's run-time length, so it is unknown.
std::vector<ValueInfo> concat_from_sequence_rule(const InferArgs& a) {
  const ValueInfo& seq = sequence_input(a, 0);
  if (!seq.known_shape) return {unranked(seq.dtype)};
  const bool new_axis = a.node.attr_int_or("new_axis", 0) != 0;
  const int64_t r = int64_t(seq.shape.size());
  if (r == 0 && !new_axis) a.fail("the elements are scalars; there is no axis to concatenate along (new_axis 0)");
  // With new_axis the axis counts in the stacked rank r + 1: [-r-1, r].
  const size_t axis = size_t(normalize_axis(a, a.node.attr_int("axis"), new_axis ? r + 1 : r, "axis"));
  Shape out = seq.shape;
  if (new_axis) {
    out.insert(out.begin() + int64_t(axis), -1);
  } else {
    out[axis] = -1;
  }
  return {ranked(seq.dtype, out)};
}

// Identity: the input's kind, dtype and shape (a sequence stays a sequence).
std::vector<ValueInfo> identity_rule(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  ValueInfo out = x.known_shape ? ranked(x.dtype, x.shape) : unranked(x.dtype);
  out.sequence = x.sequence;
  return {out};
}

}  // namespace

ShapeRule find_sequence_rule(const std::string& op) {
  static const std::map<std::string, ShapeRule> rules = {
      {"ConcatFromSequence", concat_from_sequence_rule},
      {"Identity", identity_rule},
      {"SequenceAt", sequence_at_rule},
      {"SequenceConstruct", sequence_construct_rule},
      {"SequenceEmpty", sequence_empty_rule},
      {"SequenceErase", sequence_erase_rule},
      {"SequenceInsert", sequence_insert_rule},
      {"SequenceLength", sequence_length_rule},
      {"SplitToSequence", split_to_sequence_rule},
  };
  auto it = rules.find(op);
  return it == rules.end() ? nullptr : it->second;
}

}  // namespace tauvta::graph
