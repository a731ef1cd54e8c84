// Tensor files in and out: NumPy .npy (read and write), ONNX TensorProto .pb (read), and IDX
// image/label files (read; gzip-compressed or plain, as Debian's dataset-fashion-mnist ships
// them). Errors name the file and what is wrong with it.
#pragma once

#include <filesystem>

#include "graph/tensor.h"

namespace tauvta::io {

graph::Tensor read_npy(const std::filesystem::path& path);
// Refuses to replace an existing file unless `overwrite`.
void write_npy(const std::filesystem::path& path, const graph::Tensor& t, bool overwrite);

graph::Tensor read_tensor_pb(const std::filesystem::path& path);

// By extension: .npy (NumPy) or .pb (ONNX TensorProto, as the ONNX test suites ship inputs);
// anything else is refused naming the file.
graph::Tensor read_tensor_file(const std::filesystem::path& path);

// IDX: unsigned-byte images [N, rows, cols] or labels [N] (dtype uint8).
graph::Tensor read_idx(const std::filesystem::path& path);

}  // namespace tauvta::io
