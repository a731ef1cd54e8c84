// Tensor: a dense, row-major block of values with a dtype and a shape — the unit of data every
// layer above the hardware model exchanges (initializers, executor inputs and outputs, .npy and
// .pb files). QuantParams describe the power-of-two fixed-point format of a quantized tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tauvta::graph {

enum class DType : uint8_t { kFloat32, kFloat64, kInt8, kUInt8, kInt16, kInt32, kInt64, kBool };
inline constexpr int kNumDTypes = 8;

const char* dtype_name(DType t);  // "float32", "int8", ...
size_t dtype_size(DType t);       // bytes per element
bool dtype_is_integer(DType t);   // int8..int64, uint8, bool

using Shape = std::vector<int64_t>;  // -1 marks an unknown dimension (shape inference only)
int64_t num_elements(const Shape& s);  // product; throws tauvta::Error on unknown dimensions
std::string shape_string(const Shape& s);  // "[1,3,224,224]"

// Bytes a tensor of this dtype and (fully known) shape takes, saturating at INT64_MAX instead of
// overflowing, so hostile shapes compare as huge rather than wrap.
int64_t tensor_bytes(DType t, const Shape& s);

// The largest tensor this process allocates or lets shape inference produce (bytes): a model whose
// shapes ask for more is refused with an error naming the node, never allocated. Process-wide (a
// resource guard, like a ulimit); the CLI's --max-tensor-mib sets it. Default 4 GiB.
inline constexpr int64_t kDefaultTensorByteLimit = int64_t(4) << 30;
int64_t tensor_byte_limit();
void set_tensor_byte_limit(int64_t bytes);
// Throws tauvta::Error when tensor_bytes(t, s) exceeds the limit; `what` starts the message.
void check_tensor_size(DType t, const Shape& s, const std::string& what);

// Power-of-two fixed point: real = q * 2^-frac_bits, q a `bits`-wide two's-complement integer.
// Per-channel weights carry one frac_bits per slice along axis 0 (channel_frac_bits).
struct QuantParams {
  int bits = 0;  // 0: not quantized
  int frac_bits = 0;
  std::vector<int> channel_frac_bits;
  bool quantized() const { return bits > 0; }
  bool per_channel() const { return !channel_frac_bits.empty(); }
  int64_t qmin() const { return -(int64_t(1) << (bits - 1)); }
  int64_t qmax() const { return (int64_t(1) << (bits - 1)) - 1; }
  friend bool operator==(const QuantParams&, const QuantParams&) = default;
};

class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, Shape shape);  // zero-filled; throws on negative dimensions
  static Tensor from_floats(Shape shape, std::vector<float> values);
  static Tensor from_int64(DType dtype, Shape shape, const std::vector<int64_t>& values);
  static Tensor scalar_float(float v) { return from_floats({}, {v}); }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return int64_t(shape_.size()); }
  int64_t size() const { return int64_t(bytes_.size() / dtype_size(dtype_)); }  // elements
  bool empty() const { return bytes_.empty(); }

  // Typed access; throws tauvta::InternalError when T does not match the dtype.
  template <class T> T* data();
  template <class T> const T* data() const;
  std::span<float> floats() { return {data<float>(), size_t(size())}; }
  std::span<const float> floats() const { return {data<float>(), size_t(size())}; }

  uint8_t* raw() { return bytes_.data(); }
  const uint8_t* raw() const { return bytes_.data(); }
  size_t byte_size() const { return bytes_.size(); }

  // Conversions of any dtype (integers exactly, floats rounded toward zero for to_int64).
  std::vector<int64_t> to_int64() const;
  std::vector<float> to_float() const;
  Tensor cast(DType to) const;
  Tensor reshaped(Shape shape) const;  // same data; element counts must match

  friend bool operator==(const Tensor& a, const Tensor& b) {
    return a.dtype_ == b.dtype_ && a.shape_ == b.shape_ && a.bytes_ == b.bytes_;
  }

 private:
  void check_type(DType expected) const;
  DType dtype_ = DType::kFloat32;
  Shape shape_;
  std::vector<uint8_t> bytes_;
};

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::kFloat32; }
template <> constexpr DType dtype_of<double>() { return DType::kFloat64; }
template <> constexpr DType dtype_of<int8_t>() { return DType::kInt8; }
template <> constexpr DType dtype_of<uint8_t>() { return DType::kUInt8; }
template <> constexpr DType dtype_of<int16_t>() { return DType::kInt16; }
template <> constexpr DType dtype_of<int32_t>() { return DType::kInt32; }
template <> constexpr DType dtype_of<int64_t>() { return DType::kInt64; }
template <> constexpr DType dtype_of<bool>() { return DType::kBool; }

template <class T> T* Tensor::data() {
  check_type(dtype_of<T>());
  return reinterpret_cast<T*>(bytes_.data());
}
template <class T> const T* Tensor::data() const {
  check_type(dtype_of<T>());
  return reinterpret_cast<const T*>(bytes_.data());
}

}  // namespace tauvta::graph
