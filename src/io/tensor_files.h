// Tensor files in and out: NumPy .npy (read and write), ONNX TensorProto and SequenceProto .pb
// (read), and IDX image/label files (read; gzip-compressed or plain, as Debian's
// dataset-fashion-mnist ships them). Errors name the file and what is wrong with it.
#pragma once

#include <filesystem>
#include <optional>

#include "graph/tensor.h"
#include "graph/value.h"

namespace tauvta::io {

graph::Tensor read_npy(const std::filesystem::path& path);
// The file a value is written to: NAME.npy with every character outside [A-Za-z0-9._-] as '_'.
std::string npy_file_name(const std::string& value);
// Refuses to replace an existing file unless `overwrite`.
void write_npy(const std::filesystem::path& path, const graph::Tensor& t, bool overwrite);

graph::Tensor read_tensor_pb(const std::filesystem::path& path);

// An ONNX SequenceProto of tensors (how ONNX's tests store sequence values; the bytes do not say
// whether a .pb file holds a TensorProto or a SequenceProto, so the caller decides from the
// graph's declaration). `dtype`, when given, is the element dtype every element must have, and
// what an empty sequence (whose file records none) gets; without it, the elements' own dtype,
// and an empty sequence is an error. Other element kinds (maps, sequences, optionals, sparse
// tensors) are refused naming the file.
graph::TensorSequence read_sequence_pb(const std::filesystem::path& path,
                                       std::optional<graph::DType> dtype = std::nullopt);

// By extension: .npy (NumPy) or .pb (ONNX TensorProto, as the ONNX test suites ship inputs);
// anything else is refused naming the file.
graph::Tensor read_tensor_file(const std::filesystem::path& path);

// IDX: unsigned-byte images [N, rows, cols] or labels [N] (dtype uint8).
graph::Tensor read_idx(const std::filesystem::path& path);

}  // namespace tauvta::io
