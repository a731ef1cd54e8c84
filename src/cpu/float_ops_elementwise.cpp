// Elementwise operators: Add, Sub, Mul (NumPy broadcasting, float and integer dtypes with
// two's-complement wrapping like NumPy), Sum and Mean (any number of operands), Relu, LeakyRelu,
// PRelu, Clip, Sigmoid, Tanh.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "cpu/float_ops_broadcast.h"
#include "cpu/float_ops_dispatch.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

namespace {

// Integer arithmetic wraps (NumPy semantics, no signed-overflow UB): compute in the unsigned type.
template <class T, bool = std::is_integral_v<T>>
struct Arithmetic {
  using type = T;
};
template <class T>
struct Arithmetic<T, true> {
  using type = std::make_unsigned_t<T>;
};

template <class T>
struct Wrap {
  using U = typename Arithmetic<T>::type;
  static T add(T x, T y) { return T(U(x) + U(y)); }
  static T sub(T x, T y) { return T(U(x) - U(y)); }
  static T mul(T x, T y) {
    if constexpr (std::is_integral_v<T> && sizeof(T) < sizeof(unsigned)) {
      return T(unsigned(U(x)) * unsigned(U(y)));
    } else {
      return T(U(x) * U(y));
    }
  }
};

enum class Arith { kAdd, kSub, kMul };

std::vector<Tensor> arith(const OpArgs& a, Arith kind) {
  const Tensor& x = a.in(0);
  const Tensor& y = a.in(1);
  expect_same_dtype(a, x, y);
  Tensor out(x.dtype(), broadcast_shapes(a, x.shape(), y.shape()));
  dispatch_numeric(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    switch (kind) {
      case Arith::kAdd: broadcast_binary<T, T, T>(x, y, out, Wrap<T>::add); break;
      case Arith::kSub: broadcast_binary<T, T, T>(x, y, out, Wrap<T>::sub); break;
      case Arith::kMul: broadcast_binary<T, T, T>(x, y, out, Wrap<T>::mul); break;
    }
  });
  return outputs(std::move(out));
}

// Sum and Mean: the operands added left to right in their dtype (integers wrap), as ONNX's
// reference adds them.
Tensor variadic_sum(const OpArgs& a) {
  return fold_operands(a, [](auto tag) { return Wrap<decltype(tag)>::add; });
}

}  // namespace

std::vector<Tensor> op_Add(const OpArgs& a) { return arith(a, Arith::kAdd); }
std::vector<Tensor> op_Sum(const OpArgs& a) { return outputs(variadic_sum(a)); }

// The sum divided by the number of inputs, in the inputs' floating type.
std::vector<Tensor> op_Mean(const OpArgs& a) {
  Tensor sum = variadic_sum(a);
  const double count = double(a.num_inputs());
  dispatch_floating(a, sum.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = sum.data<T>();
    for (int64_t i = 0; i < sum.size(); ++i) p[i] = T(p[i] / T(count));
  });
  return outputs(std::move(sum));
}
std::vector<Tensor> op_Sub(const OpArgs& a) { return arith(a, Arith::kSub); }
std::vector<Tensor> op_Mul(const OpArgs& a) { return arith(a, Arith::kMul); }

std::vector<Tensor> op_Relu(const OpArgs& a) {
  return map_numeric(a, [](auto v) { return v > decltype(v)(0) ? v : decltype(v)(0); });
}

std::vector<Tensor> op_LeakyRelu(const OpArgs& a) {
  const double alpha = a.node.attr_float_or("alpha", 0.01f);
  return map_floating(a, [alpha](auto v) { return v < 0 ? decltype(v)(v * alpha) : v; });
}

std::vector<Tensor> op_Sigmoid(const OpArgs& a) {
  return map_floating(a, [](auto v) {
    using T = decltype(v);
    // Split by sign so exp never overflows.
    if (v >= 0) return T(1) / (T(1) + std::exp(-v));
    const T e = std::exp(v);
    return e / (T(1) + e);
  });
}

std::vector<Tensor> op_Tanh(const OpArgs& a) {
  return map_floating(a, [](auto v) { return std::tanh(v); });
}

std::vector<Tensor> op_PRelu(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const Tensor& slope = a.in(1);
  if (x.dtype() != slope.dtype()) {
    a.fail(fmt::format("slope dtype {} differs from input dtype {}", graph::dtype_name(slope.dtype()),
                       graph::dtype_name(x.dtype())));
  }
  const Shape out_shape = broadcast_shapes(a, x.shape(), slope.shape());
  if (out_shape != x.shape()) {
    a.fail(fmt::format("slope shape {} does not broadcast to the input shape {}",
                       graph::shape_string(slope.shape()), graph::shape_string(x.shape())));
  }
  Tensor out(x.dtype(), x.shape());
  dispatch_numeric(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    broadcast_binary<T, T, T>(x, slope, out, [](T v, T s) { return v < T(0) ? T(v * s) : v; });
  });
  return outputs(std::move(out));
}

std::vector<Tensor> op_Clip(const OpArgs& a) {
  const Tensor& x = a.in(0);
  Tensor out(x.dtype(), x.shape());
  // Opset < 11: min/max attributes; opset >= 11: optional inputs 1 and 2 (same dtype as x).
  const std::optional<double> lo = a.scalar_attr_or_input("min", 1);
  const std::optional<double> hi = a.scalar_attr_or_input("max", 2);
  dispatch_numeric(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T tlo = lo ? T(*lo) : std::numeric_limits<T>::lowest();
    const T thi = hi ? T(*hi) : std::numeric_limits<T>::max();
    const T* px = x.data<T>();
    T* po = out.data<T>();
    // min(max(x, lo), hi): when lo > hi every element becomes hi, as in ONNX's reference.
    const int64_t n = x.size();
    for (int64_t i = 0; i < n; ++i) po[i] = std::min(std::max(px[i], tlo), thi);
  });
  return outputs(std::move(out));
}

}  // namespace tauvta::cpu
