// The ONNX frontend: a ModelProto (default-domain opset 9..17) becomes a Graph whose operators
// are in one normalized form per operator, whatever opset the file was written for (see
// docs/graph.md, "Import normalizations"). Errors name the file, the node, the operator and
// what is missing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "graph/tensor.h"

namespace onnx {
class ModelProto;
class TensorProto;
}  // namespace onnx

namespace tauvta::graph {

inline constexpr int64_t kMinOnnxOpset = 9;
inline constexpr int64_t kMaxOnnxOpset = 17;

// Reads and imports an .onnx file. Errors name the file.
Graph import_onnx(const std::filesystem::path& path);
// Imports serialized ModelProto bytes; `source` names them in errors (a file name, "model").
Graph import_onnx_bytes(std::string_view bytes, const std::string& source);
// Imports a parsed model; `source` names it in errors.
Graph import_onnx_model(const onnx::ModelProto& model, const std::string& source);

// A TensorProto (raw_data or typed fields) as a Tensor. `where` prefixes every error
// ("model.onnx: initializer 'w'"). External data, segments and element types a Tensor cannot
// hold are errors.
Tensor tensor_from_onnx(const onnx::TensorProto& proto, const std::string& where);

// The ONNX element type code for a dtype, and back (throws naming `where` for types a Tensor
// cannot hold).
int onnx_elem_type(DType t);
DType dtype_from_onnx_elem_type(int elem_type, const std::string& where);

// QONNX's Quant and BipolarQuant (domains qonnx.custom_op.general, finn.custom_op.general,
// onnx.brevitas): imported as they are (attributes kept, not normalized) for fold_fake_quant.
bool is_qonnx_quant(const std::string& domain, const std::string& op_type);

// The operators import_onnx accepts, sorted.
std::vector<std::string> supported_onnx_operators();

}  // namespace tauvta::graph
