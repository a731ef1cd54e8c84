// The ONNX operators the frontend accepts, declared once: the opsets in which each one changed
// (so a model's opset resolves to an operator version), the attributes each version accepts and
// its input/output arity. The importer checks every node against this table before normalizing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tauvta::graph {

struct OnnxAttrSpec {
  std::string_view name;
  int first_version = 1;   // operator versions in which the attribute exists
  int last_version = 999;
};

struct OnnxOpSpec {
  std::string_view name;
  std::vector<int> versions;  // opsets (<= 17) that introduced a new version of the operator
  std::vector<OnnxAttrSpec> attrs;
  int min_inputs, max_inputs;
  int min_outputs, max_outputs;
};

// The spec of `op_type`, or nullptr when the frontend does not accept it.
const OnnxOpSpec* find_onnx_op(std::string_view op_type);
const std::vector<OnnxOpSpec>& onnx_op_specs();

// The operator version in effect at `opset` (the largest version <= opset), or 0 when the
// operator did not exist yet.
int onnx_op_version(const OnnxOpSpec& spec, int64_t opset);

// The operators of ONNX's sequence type (ConcatFromSequence, SequenceAt, SequenceConstruct,
// SequenceEmpty, SequenceErase, SequenceInsert, SequenceLength, SplitToSequence): each takes or
// makes a sequence of tensors (graph/value.h). Identity, which passes either, is not one of them.
bool is_sequence_operator(std::string_view op_type);

// Whether attribute `name` exists in operator version `version`.
bool onnx_attr_allowed(const OnnxOpSpec& spec, int version, std::string_view name);

}  // namespace tauvta::graph
