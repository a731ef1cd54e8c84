// ONNX TensorProto -> graph::Tensor: the conversion behind read_tensor_pb (conformance-test
// inputs and outputs). Accepts raw_data (little-endian) and the typed repeated fields, for every
// dtype graph::Tensor has; other element types, external data and segments are errors.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>  // with ONNX_ML=1 (set by the onnx_proto target): the onnx-ml messages

#include "graph/tensor.h"

namespace tauvta::io {

// `where` prefixes every error message (a file name, or "initializer 'w'").
graph::Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& where);

// The ONNX element type's name ("FLOAT", "FLOAT16", ...), or "type <n>" for an unknown code.
std::string onnx_type_name(int data_type);

}  // namespace tauvta::io
