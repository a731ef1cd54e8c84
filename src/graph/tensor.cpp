#include "graph/tensor.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::graph {

const char* dtype_name(DType t) {
  static const char* names[] = {"float32", "float64", "int8", "uint8",
                                "int16",   "int32",   "int64", "bool"};
  return names[size_t(t)];
}

size_t dtype_size(DType t) {
  static const size_t sizes[] = {4, 8, 1, 1, 2, 4, 8, 1};
  return sizes[size_t(t)];
}

bool dtype_is_integer(DType t) { return t != DType::kFloat32 && t != DType::kFloat64; }

int64_t num_elements(const Shape& s) {
  for (int64_t d : s) {
    if (d < 0) throw Error(fmt::format("shape {} has an unknown dimension", shape_string(s)));
    if (d == 0) return 0;  // empty, however large the other dimensions (their product may overflow)
  }
  int64_t n = 1;
  for (int64_t d : s) {
    if (n > std::numeric_limits<int64_t>::max() / d) {
      throw Error(fmt::format("shape {} has more than 2^63 elements", shape_string(s)));
    }
    n *= d;
  }
  return n;
}

std::string shape_string(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ",";
    out += s[i] < 0 ? std::string("?") : std::to_string(s[i]);
  }
  return out + "]";
}

namespace {
std::atomic<int64_t> g_tensor_byte_limit{kDefaultTensorByteLimit};
}  // namespace

int64_t tensor_bytes(DType t, const Shape& s) {
  int64_t bytes = int64_t(dtype_size(t));
  for (int64_t d : s) {
    if (d < 0) throw Error(fmt::format("shape {} has an unknown dimension", shape_string(s)));
    if (d == 0) return 0;
    if (bytes > std::numeric_limits<int64_t>::max() / d) bytes = std::numeric_limits<int64_t>::max();
    else bytes *= d;
  }
  return bytes;
}

int64_t tensor_byte_limit() { return g_tensor_byte_limit.load(std::memory_order_relaxed); }

void set_tensor_byte_limit(int64_t bytes) {
  if (bytes < 1) throw Error(fmt::format("tensor size limit {} bytes: must be positive", bytes));
  g_tensor_byte_limit.store(bytes, std::memory_order_relaxed);
}

void check_tensor_size(DType t, const Shape& s, const std::string& what) {
  const int64_t bytes = tensor_bytes(t, s);
  if (bytes <= tensor_byte_limit()) return;
  const std::string size = bytes == std::numeric_limits<int64_t>::max()
                               ? std::string("more than 2^63 bytes")
                               : fmt::format("{:.4g} GiB", double(bytes) / double(int64_t(1) << 30));
  throw Error(fmt::format("{} {} {} would take {}, over the {:.4g} GiB tensor limit (--max-tensor-mib raises it)",
                          what, dtype_name(t), shape_string(s), size,
                          double(tensor_byte_limit()) / double(int64_t(1) << 30)));
}

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  for (int64_t d : shape_) {
    if (d < 0) throw Error(fmt::format("tensor shape {} has a negative dimension", shape_string(shape_)));
  }
  check_tensor_size(dtype_, shape_, "a tensor of");
  bytes_.assign(size_t(num_elements(shape_)) * dtype_size(dtype_), 0);
}

Tensor Tensor::from_floats(Shape shape, std::vector<float> values) {
  Tensor t(DType::kFloat32, std::move(shape));
  if (values.size() != size_t(t.size())) {
    throw Error(fmt::format("{} values for a tensor of shape {}", values.size(),
                            shape_string(t.shape())));
  }
  if (!values.empty()) std::memcpy(t.raw(), values.data(), values.size() * sizeof(float));
  return t;
}

namespace {

template <class F>
void visit_elements(DType t, const uint8_t* p, int64_t n, F&& f) {
  switch (t) {
    case DType::kFloat32: for (int64_t i = 0; i < n; ++i) f(i, double(reinterpret_cast<const float*>(p)[i]), 0, true); return;
    case DType::kFloat64: for (int64_t i = 0; i < n; ++i) f(i, reinterpret_cast<const double*>(p)[i], 0, true); return;
    case DType::kInt8: for (int64_t i = 0; i < n; ++i) f(i, 0.0, int64_t(reinterpret_cast<const int8_t*>(p)[i]), false); return;
    case DType::kUInt8: for (int64_t i = 0; i < n; ++i) f(i, 0.0, int64_t(p[i]), false); return;
    case DType::kInt16: for (int64_t i = 0; i < n; ++i) f(i, 0.0, int64_t(reinterpret_cast<const int16_t*>(p)[i]), false); return;
    case DType::kInt32: for (int64_t i = 0; i < n; ++i) f(i, 0.0, int64_t(reinterpret_cast<const int32_t*>(p)[i]), false); return;
    case DType::kInt64: for (int64_t i = 0; i < n; ++i) f(i, 0.0, reinterpret_cast<const int64_t*>(p)[i], false); return;
    case DType::kBool: for (int64_t i = 0; i < n; ++i) f(i, 0.0, int64_t(p[i] != 0), false); return;
  }
}

template <class T>
void store(uint8_t* p, int64_t i, T v) {
  std::memcpy(p + size_t(i) * sizeof(T), &v, sizeof(T));
}

void store_any(DType t, uint8_t* p, int64_t i, double fv, int64_t iv, bool is_float) {
  switch (t) {
    case DType::kFloat32: store(p, i, is_float ? float(fv) : float(iv)); return;
    case DType::kFloat64: store(p, i, is_float ? fv : double(iv)); return;
    case DType::kInt8: store(p, i, int8_t(is_float ? int64_t(fv) : iv)); return;
    case DType::kUInt8: store(p, i, uint8_t(is_float ? int64_t(fv) : iv)); return;
    case DType::kInt16: store(p, i, int16_t(is_float ? int64_t(fv) : iv)); return;
    case DType::kInt32: store(p, i, int32_t(is_float ? int64_t(fv) : iv)); return;
    case DType::kInt64: store(p, i, is_float ? int64_t(fv) : iv); return;
    case DType::kBool: store(p, i, uint8_t(is_float ? fv != 0.0 : iv != 0)); return;
  }
}

}  // namespace

Tensor Tensor::from_int64(DType dtype, Shape shape, const std::vector<int64_t>& values) {
  Tensor t(dtype, std::move(shape));
  if (values.size() != size_t(t.size())) {
    throw Error(fmt::format("{} values for a tensor of shape {}", values.size(),
                            shape_string(t.shape())));
  }
  for (size_t i = 0; i < values.size(); ++i) store_any(dtype, t.raw(), int64_t(i), 0.0, values[i], false);
  return t;
}

void Tensor::check_type(DType expected) const {
  if (expected != dtype_) {
    throw InternalError(fmt::format("tensor of dtype {} accessed as {}", dtype_name(dtype_),
                                    dtype_name(expected)));
  }
}

std::vector<int64_t> Tensor::to_int64() const {
  std::vector<int64_t> out(static_cast<size_t>(size()));
  visit_elements(dtype_, raw(), size(), [&](int64_t i, double fv, int64_t iv, bool is_float) {
    out[size_t(i)] = is_float ? int64_t(fv) : iv;
  });
  return out;
}

std::vector<float> Tensor::to_float() const {
  std::vector<float> out(static_cast<size_t>(size()));
  visit_elements(dtype_, raw(), size(), [&](int64_t i, double fv, int64_t iv, bool is_float) {
    out[size_t(i)] = is_float ? float(fv) : float(iv);
  });
  return out;
}

Tensor Tensor::cast(DType to) const {
  Tensor t(to, shape_);
  uint8_t* dst = t.raw();
  visit_elements(dtype_, raw(), size(), [&](int64_t i, double fv, int64_t iv, bool is_float) {
    store_any(to, dst, i, fv, iv, is_float);
  });
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (num_elements(shape) != size()) {
    throw Error(fmt::format("cannot reshape a tensor of shape {} ({} elements) to {}",
                            shape_string(shape_), size(), shape_string(shape)));
  }
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

}  // namespace tauvta::graph
