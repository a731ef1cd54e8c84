// TensorProto -> Tensor. Elements live either in raw_data (little-endian bytes, this machine's
// order) or in one typed repeated field chosen by the element type: float_data (FLOAT),
// double_data (DOUBLE), int64_data (INT64), int32_data (INT32 and every narrower integer, BOOL).
#include <cstring>
#include <utility>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>  // with ONNX_ML=1 (set by the onnx_proto target): the onnx-ml messages

#include "common/error.h"
#include "graph/onnx_import.h"

namespace tauvta::graph {

namespace {

std::string elem_type_name(int t) {
  if (onnx::TensorProto_DataType_IsValid(t)) {
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t));
  }
  return fmt::format("type {}", t);
}

template <class Field>
void check_count(const Field& f, int64_t n, const char* field, const std::string& where, const Shape& shape) {
  if (int64_t(f.size()) != n) {
    throw Error(fmt::format("{}: {} holds {} values, the shape {} needs {}", where, field, f.size(),
                            shape_string(shape), n));
  }
}

template <class T, class Field>
void copy_field(Tensor& t, const Field& f) {
  T* dst = t.data<T>();
  for (int i = 0; i < f.size(); ++i) dst[i] = static_cast<T>(f.Get(i));
}

// int32_data carries every narrower integer type; a value outside the element type's range is a
// malformed file, not something to wrap silently.
template <class T, class Field>
void copy_narrow_field(Tensor& t, const Field& f, const std::string& where) {
  T* dst = t.data<T>();
  for (int i = 0; i < f.size(); ++i) {
    const int64_t v = f.Get(i);
    if (int64_t(static_cast<T>(v)) != v) {
      throw Error(fmt::format("{}: int32_data value {} at index {} does not fit {}", where, v, i,
                              dtype_name(t.dtype())));
    }
    dst[i] = static_cast<T>(v);
  }
}

// The typed field a dtype's values live in when there is no raw_data, and its length.
std::pair<const char*, int64_t> typed_field_size(const onnx::TensorProto& p, DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return {"float_data", p.float_data_size()};
    case DType::kFloat64: return {"double_data", p.double_data_size()};
    case DType::kInt64: return {"int64_data", p.int64_data_size()};
    default: return {"int32_data", p.int32_data_size()};  // INT32 and every narrower integer, BOOL
  }
}

}  // namespace

int onnx_elem_type(DType t) {
  switch (t) {
    case DType::kFloat32: return onnx::TensorProto::FLOAT;
    case DType::kFloat64: return onnx::TensorProto::DOUBLE;
    case DType::kInt8: return onnx::TensorProto::INT8;
    case DType::kUInt8: return onnx::TensorProto::UINT8;
    case DType::kInt16: return onnx::TensorProto::INT16;
    case DType::kInt32: return onnx::TensorProto::INT32;
    case DType::kInt64: return onnx::TensorProto::INT64;
    case DType::kBool: return onnx::TensorProto::BOOL;
  }
  throw InternalError("unknown dtype");
}

DType dtype_from_onnx_elem_type(int elem_type, const std::string& where) {
  switch (elem_type) {
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
  throw Error(fmt::format("{}: element type {} is not supported (supported: FLOAT, DOUBLE, INT8, UINT8, "
                          "INT16, INT32, INT64, BOOL)",
                          where, elem_type_name(elem_type)));
}

Tensor tensor_from_onnx(const onnx::TensorProto& p, const std::string& where) {
  if (p.data_location() == onnx::TensorProto::EXTERNAL || p.external_data_size() > 0) {
    throw Error(fmt::format("{}: external tensor data is not supported (save the model with its "
                            "tensors inside the .onnx file)", where));
  }
  if (p.has_segment()) throw Error(fmt::format("{}: segmented tensors are not supported", where));
  const DType dtype = dtype_from_onnx_elem_type(p.data_type(), where);
  Shape shape(p.dims().begin(), p.dims().end());
  for (int64_t d : shape) {
    if (d < 0) throw Error(fmt::format("{}: negative dimension in shape {}", where, shape_string(shape)));
  }
  // The declared shape against the data the proto holds, before the tensor is allocated: dims
  // claiming terabytes over a few bytes of data are refused, not zero-filled.
  if (p.has_raw_data()) {
    const int64_t need = tensor_bytes(dtype, shape);  // saturates
    if (int64_t(p.raw_data().size()) != need) {
      throw Error(fmt::format("{}: raw_data has {} bytes, a {} tensor of shape {} needs {}", where, p.raw_data().size(),
                              dtype_name(dtype), shape_string(shape), need));
    }
  } else {
    const auto [field, have] = typed_field_size(p, dtype);
    const int64_t need = tensor_bytes(DType::kUInt8, shape);  // the element count, saturating
    if (have != need) {
      throw Error(fmt::format("{}: {} holds {} values, the shape {} needs {}", where, field, have, shape_string(shape),
                              need));
    }
  }
  Tensor t(dtype, shape);
  const int64_t n = t.size();
  if (p.has_raw_data()) {
    const std::string& raw = p.raw_data();
    if (raw.size() != t.byte_size()) {
      throw Error(fmt::format("{}: raw_data has {} bytes, a {} tensor of shape {} needs {}", where, raw.size(),
                              dtype_name(dtype), shape_string(shape), t.byte_size()));
    }
    if (!raw.empty()) std::memcpy(t.raw(), raw.data(), raw.size());
    return t;
  }
  switch (dtype) {
    case DType::kFloat32:
      check_count(p.float_data(), n, "float_data", where, shape);
      copy_field<float>(t, p.float_data());
      break;
    case DType::kFloat64:
      check_count(p.double_data(), n, "double_data", where, shape);
      copy_field<double>(t, p.double_data());
      break;
    case DType::kInt64:
      check_count(p.int64_data(), n, "int64_data", where, shape);
      copy_field<int64_t>(t, p.int64_data());
      break;
    case DType::kInt32:
      check_count(p.int32_data(), n, "int32_data", where, shape);
      copy_field<int32_t>(t, p.int32_data());
      break;
    case DType::kInt16:
      check_count(p.int32_data(), n, "int32_data", where, shape);
      copy_narrow_field<int16_t>(t, p.int32_data(), where);
      break;
    case DType::kInt8:
      check_count(p.int32_data(), n, "int32_data", where, shape);
      copy_narrow_field<int8_t>(t, p.int32_data(), where);
      break;
    case DType::kUInt8:
      check_count(p.int32_data(), n, "int32_data", where, shape);
      copy_narrow_field<uint8_t>(t, p.int32_data(), where);
      break;
    case DType::kBool: {
      check_count(p.int32_data(), n, "int32_data", where, shape);
      uint8_t* dst = t.raw();
      for (int i = 0; i < p.int32_data_size(); ++i) dst[i] = p.int32_data(i) != 0 ? 1 : 0;
      break;
    }
  }
  return t;
}

}  // namespace tauvta::graph
