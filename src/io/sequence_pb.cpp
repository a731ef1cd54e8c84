// ONNX SequenceProto files: how ONNX's conformance tests store a sequence input or output. Only
// sequences of tensors are read (tauvta's TensorSequence); each element goes through the ONNX
// frontend's tensor conversion, so it accepts and rejects what an initializer would.
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <onnx/onnx-data_pb.h>  // SequenceProto, with ONNX_ML=1 (set by the onnx_proto target)

#include "common/error.h"
#include "graph/onnx_import.h"
#include "io/pb_file.h"
#include "io/tensor_files.h"

namespace tauvta::io {

graph::TensorSequence read_sequence_pb(const std::filesystem::path& path, std::optional<graph::DType> dtype) {
  std::ifstream in;
  const onnx::SequenceProto proto = read_pb_message<onnx::SequenceProto>(path, "SequenceProto", in);
  std::string where = path.string();
  if (!proto.name().empty()) where += fmt::format(" (sequence '{}')", proto.name());
  const bool other_values = proto.sparse_tensor_values_size() > 0 || proto.sequence_values_size() > 0 ||
                            proto.map_values_size() > 0 || proto.optional_values_size() > 0;
  if (proto.elem_type() != onnx::SequenceProto::TENSOR || other_values) {
    const std::string kind = onnx::SequenceProto::DataType_IsValid(proto.elem_type())
                                 ? onnx::SequenceProto::DataType_Name(proto.elem_type())
                                 : fmt::format("type {}", proto.elem_type());
    throw Error(fmt::format("{}: a sequence of {}{}; only sequences of tensors are supported", where, kind,
                            other_values ? " with non-tensor values" : ""));
  }
  graph::TensorSequence s;
  for (int k = 0; k < proto.tensor_values_size(); ++k) {
    s.tensors.push_back(graph::tensor_from_onnx(proto.tensor_values(k), fmt::format("{}: element {}", where, k)));
  }
  if (!dtype && s.tensors.empty()) {
    throw Error(fmt::format("{}: an empty sequence records no element dtype, and none was given", where));
  }
  s.dtype = dtype ? *dtype : s.tensors[0].dtype();
  for (size_t k = 0; k < s.tensors.size(); ++k) {
    if (s.tensors[k].dtype() != s.dtype) {
      throw Error(fmt::format("{}: element {} is {}, expected {} like {}", where, k,
                              graph::dtype_name(s.tensors[k].dtype()), graph::dtype_name(s.dtype),
                              dtype ? "the caller asked" : "element 0"));
    }
  }
  return s;
}

}  // namespace tauvta::io
