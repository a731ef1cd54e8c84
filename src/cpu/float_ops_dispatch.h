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

// out[i] = f(x[i]) over input 0, same dtype and shape: for float32/float64 (map_floating) or every
// numeric dtype (map_numeric). f receives a T and its result is converted to T.
template <class Dispatch, class F>
std::vector<Tensor> map_elements(const OpArgs& a, Dispatch dispatch, F f) {
  const Tensor& x = a.in(0);
  Tensor out(x.dtype(), x.shape());
  dispatch(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.data<T>();
    const int64_t n = x.size();
    for (int64_t i = 0; i < n; ++i) po[i] = T(f(px[i]));
  });
  return outputs(std::move(out));
}

template <class F>
std::vector<Tensor> map_floating(const OpArgs& a, F f) {
  return map_elements(a, [](const OpArgs& o, DType t, auto&& g) { dispatch_floating(o, t, g); }, f);
}

template <class F>
std::vector<Tensor> map_numeric(const OpArgs& a, F f) {
  return map_elements(a, [](const OpArgs& o, DType t, auto&& g) { dispatch_numeric(o, t, g); }, f);
}

}  // namespace tauvta::cpu
