// TensorProto stores its elements either as little-endian bytes in raw_data or in one typed
// repeated field chosen by the element type: float_data (FLOAT), double_data (DOUBLE),
// int64_data (INT64) and int32_data for every narrower integer type and BOOL.
#include "io/tensor_proto.h"

#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "common/error.h"
#include "io/tensor_files.h"

namespace tauvta::io {

using graph::DType;
using graph::Tensor;

std::string onnx_type_name(int data_type) {
  if (onnx::TensorProto_DataType_IsValid(data_type)) {
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(data_type));
  }
  return fmt::format("type {}", data_type);
}

namespace {

DType dtype_from_onnx(int data_type, const std::string& where) {
  switch (data_type) {
    case onnx::TensorProto::FLOAT: return DType::kFloat32;
    case onnx::TensorProto::DOUBLE: return DType::kFloat64;
    case onnx::TensorProto::INT8: return DType::kInt8;
    case onnx::TensorProto::UINT8: return DType::kUInt8;
    case onnx::TensorProto::INT16: return DType::kInt16;
    case onnx::TensorProto::INT32: return DType::kInt32;
    case onnx::TensorProto::INT64: return DType::kInt64;
    case onnx::TensorProto::BOOL: return DType::kBool;
    default: break;
  }
  throw Error(fmt::format("{}: tensor element type {} is not supported (supported: FLOAT, DOUBLE, INT8, "
                          "UINT8, INT16, INT32, INT64, BOOL)", where, onnx_type_name(data_type)));
}

template <class Field>
void check_count(const Field& f, int64_t n, const char* field, const std::string& where,
                 const graph::Shape& shape) {
  if (int64_t(f.size()) != n) {
    throw Error(fmt::format("{}: {} holds {} values, the shape {} needs {}", where, field, f.size(),
                            graph::shape_string(shape), n));
  }
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& where) {
  const std::string name = p.name().empty() ? where : fmt::format("{} (tensor '{}')", where, p.name());
  if (p.data_location() == onnx::TensorProto::EXTERNAL || p.external_data_size() > 0) {
    throw Error(fmt::format("{}: external tensor data is not supported", name));
  }
  if (p.has_segment()) throw Error(fmt::format("{}: segmented tensors are not supported", name));
  if (!p.has_data_type() || p.data_type() == onnx::TensorProto::UNDEFINED) {
    throw Error(fmt::format("{}: tensor has no element type", name));
  }
  const DType dtype = dtype_from_onnx(p.data_type(), name);
  graph::Shape shape(p.dims().begin(), p.dims().end());
  for (int64_t d : shape) {
    if (d < 0) throw Error(fmt::format("{}: negative dimension in shape {}", name, graph::shape_string(shape)));
  }
  Tensor t(dtype, shape);
  const int64_t n = t.size();

  if (p.has_raw_data()) {
    if (p.raw_data().size() != t.byte_size()) {
      throw Error(fmt::format("{}: raw_data has {} bytes, shape {} of {} needs {}", name, p.raw_data().size(),
                              graph::shape_string(shape), graph::dtype_name(dtype), t.byte_size()));
    }
    if (n) std::memcpy(t.raw(), p.raw_data().data(), t.byte_size());  // little-endian host assumed
    return t;
  }

  switch (dtype) {
    case DType::kFloat32:
      check_count(p.float_data(), n, "float_data", name, shape);
      std::copy(p.float_data().begin(), p.float_data().end(), t.data<float>());
      break;
    case DType::kFloat64:
      check_count(p.double_data(), n, "double_data", name, shape);
      std::copy(p.double_data().begin(), p.double_data().end(), t.data<double>());
      break;
    case DType::kInt64:
      check_count(p.int64_data(), n, "int64_data", name, shape);
      std::copy(p.int64_data().begin(), p.int64_data().end(), t.data<int64_t>());
      break;
    case DType::kInt32:
      check_count(p.int32_data(), n, "int32_data", name, shape);
      std::copy(p.int32_data().begin(), p.int32_data().end(), t.data<int32_t>());
      break;
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kInt16:
    case DType::kBool: {
      check_count(p.int32_data(), n, "int32_data", name, shape);
      const int64_t lo = dtype == DType::kInt8 ? -128 : dtype == DType::kInt16 ? -32768 : 0;
      const int64_t hi = dtype == DType::kInt8 ? 127 : dtype == DType::kInt16 ? 32767 : dtype == DType::kBool ? 1 : 255;
      std::vector<int64_t> v(p.int32_data().begin(), p.int32_data().end());
      for (size_t i = 0; i < v.size(); ++i) {
        if (v[i] < lo || v[i] > hi) {
          throw Error(fmt::format("{}: int32_data[{}] = {} is out of range for {}", name, i, v[i],
                                  graph::dtype_name(dtype)));
        }
      }
      t = Tensor::from_int64(dtype, shape, v);
      break;
    }
  }
  return t;
}

Tensor read_tensor_pb(const std::filesystem::path& path) {
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
  return tensor_from_proto(proto, path.string());
}

}  // namespace tauvta::io
