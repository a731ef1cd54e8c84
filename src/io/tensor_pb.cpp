// ONNX TensorProto files (the inputs and outputs of ONNX's conformance tests). The element
// conversion is the ONNX frontend's (graph::tensor_from_onnx), so initializers and .pb files
// accept and reject exactly the same tensors.
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <onnx/onnx-data_pb.h>  // TensorProto and SequenceProto, with ONNX_ML=1 (set by the onnx_proto target)

#include "common/error.h"
#include "graph/onnx_import.h"
#include "io/pb_file.h"
#include "io/tensor_files.h"

namespace tauvta::io {

graph::Tensor read_tensor_pb(const std::filesystem::path& path) {
  std::ifstream in;
  const onnx::TensorProto proto = read_pb_message<onnx::TensorProto>(path, "TensorProto", in);
  // The bytes of a SequenceProto parse as a TensorProto too (its name reads as dims, its tensors
  // as a segment): a file that does so is named for what it is, not refused as a segmented tensor.
  if (proto.has_segment()) {
    in.clear();
    in.seekg(0);
    onnx::SequenceProto sequence;
    if (sequence.ParseFromIstream(&in) && sequence.elem_type() == onnx::SequenceProto::TENSOR &&
        sequence.tensor_values_size() > 0) {
      throw Error(fmt::format("{}: holds an ONNX SequenceProto (a sequence of {} tensors), not a TensorProto; a tensor "
                              "is expected here", path.string(), sequence.tensor_values_size()));
    }
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
