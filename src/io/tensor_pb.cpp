// ONNX TensorProto files (the inputs and outputs of ONNX's conformance tests). The element
// conversion is the ONNX frontend's (graph::tensor_from_onnx), so initializers and .pb files
// accept and reject exactly the same tensors.
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>  // with ONNX_ML=1 (set by the onnx_proto target): the onnx-ml messages

#include "common/error.h"
#include "graph/onnx_import.h"
#include "io/tensor_files.h"

namespace tauvta::io {

graph::Tensor read_tensor_pb(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(fmt::format("{}: is a directory, not a file", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open for reading: {}", path.string(), std::strerror(errno)));
  onnx::TensorProto proto;
  if (!proto.ParseFromIstream(&in)) {
    throw Error(fmt::format("{}: not a valid ONNX TensorProto (protobuf parse failed)", path.string()));
  }
  std::string where = path.string();
  if (!proto.name().empty()) where += fmt::format(" (tensor '{}')", proto.name());
  return graph::tensor_from_onnx(proto, where);
}

graph::Tensor read_tensor_file(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".npy") return read_npy(path);
  if (ext == ".pb") return read_tensor_pb(path);
  throw Error(fmt::format("{}: unknown tensor file type '{}' (expected .npy or .pb)", path.string(), ext));
}

}  // namespace tauvta::io
