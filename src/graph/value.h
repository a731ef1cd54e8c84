// What a graph value holds at run time: a Tensor, or a TensorSequence — ONNX's sequence type, an
// ordered list of tensors that the Sequence operators (SequenceConstruct, SplitToSequence, ...)
// make and take. Every other operator, and everything below the float reference (quantization,
// the integer executor, the accelerator), works on tensors only.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "graph/tensor.h"

namespace tauvta::graph {

struct TensorSequence {
  // The elements' dtype. Every element has it, and an empty sequence keeps it (ONNX types a
  // sequence by its element type, so SequenceEmpty's dtype attribute and a graph's declaration
  // still say what may be inserted).
  DType dtype = DType::kFloat32;
  // The elements may differ in shape, rank included.
  std::vector<Tensor> tensors;

  int64_t length() const { return int64_t(tensors.size()); }
  // Bytes of element data (what run_float's live-memory accounting counts).
  int64_t byte_size() const {
    int64_t n = 0;
    for (const Tensor& t : tensors) n += int64_t(t.byte_size());
    return n;
  }
  // "sequence of 3 float32 tensors"
  std::string describe() const {
    return "sequence of " + std::to_string(tensors.size()) + " " + dtype_name(dtype) +
           (tensors.size() == 1 ? " tensor" : " tensors");
  }
  friend bool operator==(const TensorSequence&, const TensorSequence&) = default;
};

using Value = std::variant<Tensor, TensorSequence>;

inline bool is_sequence(const Value& v) { return std::holds_alternative<TensorSequence>(v); }

}  // namespace tauvta::graph
