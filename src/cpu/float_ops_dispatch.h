// Dtype dispatch for kernels written once as templates: calls f(T{}) with the C++ type of a
// runtime DType, or fails naming the node when the kernel does not take that dtype.
#pragma once

#include "cpu/float_ops_common.h"

namespace tauvta::cpu {

template <class F>
decltype(auto) dispatch_numeric(const OpArgs& a, DType t, F&& f) {
  switch (t) {
    case DType::kFloat32: return f(float{});
    case DType::kFloat64: return f(double{});
    case DType::kInt8: return f(int8_t{});
    case DType::kUInt8: return f(uint8_t{});
    case DType::kInt16: return f(int16_t{});
    case DType::kInt32: return f(int32_t{});
    case DType::kInt64: return f(int64_t{});
    case DType::kBool: break;
  }
  a.fail(std::string("does not take dtype ") + graph::dtype_name(t));
}

template <class F>
decltype(auto) dispatch_floating(const OpArgs& a, DType t, F&& f) {
  switch (t) {
    case DType::kFloat32: return f(float{});
    case DType::kFloat64: return f(double{});
    default: break;
  }
  a.fail(std::string("does not take dtype ") + graph::dtype_name(t) + " (float32 or float64 only)");
}

// Every dtype, bool included (comparisons for equality, Where, data movement).
template <class F>
decltype(auto) dispatch_any(const OpArgs& a, DType t, F&& f) {
  if (t == DType::kBool) return f(bool{});
  return dispatch_numeric(a, t, std::forward<F>(f));
}

}  // namespace tauvta::cpu
