// The activations and per-element functions exported models commonly carry beyond Relu and its
// kin: Elu, Selu, Softplus, Sign and Shrink (ONNX's definitions, computed in the input's type as
// ONNX's reference does) and InstanceNormalization (population statistics per sample and
// channel, in double).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "cpu/float_ops_common.h"
#include "cpu/float_ops_dispatch.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

// x < 0 ? alpha (e^x - 1) : x, alpha 1 by default.
std::vector<Tensor> op_Elu(const OpArgs& a) {
  const float alpha = a.node.attr_float_or("alpha", 1.0f);
  return map_floating(a, [alpha](auto v) {
    using T = decltype(v);
    return v < T(0) ? T(alpha) * (std::exp(v) - T(1)) : v;
  });
}

// gamma * (x <= 0 ? alpha e^x - alpha : x), ONNX's float32 constants by default.
std::vector<Tensor> op_Selu(const OpArgs& a) {
  const float alpha = a.node.attr_float_or("alpha", 1.67326319217681884765625f);
  const float gamma = a.node.attr_float_or("gamma", 1.05070102214813232421875f);
  return map_floating(a, [alpha, gamma](auto v) {
    using T = decltype(v);
    return v <= T(0) ? T(gamma) * (T(alpha) * std::exp(v) - T(alpha)) : T(gamma) * v;
  });
}

// ln(e^x + 1).
std::vector<Tensor> op_Softplus(const OpArgs& a) {
  return map_floating(a, [](auto v) {
    using T = decltype(v);
    return std::log(std::exp(v) + T(1));
  });
}

// -1, 0 or 1 (NaN stays NaN), any numeric type.
std::vector<Tensor> op_Sign(const OpArgs& a) {
  return map_numeric(a, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) return v;
    }
    if constexpr (std::is_unsigned_v<T>) {
      return T(v > T(0) ? 1 : 0);
    } else {
      return T(v > T(0) ? 1 : v < T(0) ? -1 : 0);
    }
  });
}

// x < -lambd ? x + bias : x > lambd ? x - bias : 0 (lambd 0.5, bias 0), any numeric type.
std::vector<Tensor> op_Shrink(const OpArgs& a) {
  const double lambd = a.node.attr_float_or("lambd", 0.5f), bias = a.node.attr_float_or("bias", 0.0f);
  return map_numeric(a, [lambd, bias](auto v) {
    using T = decltype(v);
    const double x = double(v);
    return x < -lambd ? T(x + bias) : x > lambd ? T(x - bias) : T(0);
  });
}

// (x - mean) / sqrt(var + epsilon) * scale[c] + B[c] with the mean and population variance of
// each sample's channel over its spatial positions; X is [N, C, ...], scale and B are [C].
std::vector<Tensor> op_InstanceNormalization(const OpArgs& a) {
  const Tensor &x = a.in(0), &scale = a.in(1), &bias = a.in(2);
  if (x.rank() < 2) a.fail(fmt::format("X has rank {}, expected [N, C, ...]", x.rank()));
  const int64_t N = x.shape()[0], C = x.shape()[1];
  const int64_t inner = product(x.shape(), 2, x.shape().size());
  if (scale.size() != C || bias.size() != C) {
    a.fail(fmt::format("scale and B have {} and {} elements for {} channels", scale.size(), bias.size(), C));
  }
  const double eps = a.node.attr_float_or("epsilon", 1e-5f);
  Tensor y(x.dtype(), x.shape());
  dispatch_floating(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (scale.dtype() != x.dtype() || bias.dtype() != x.dtype()) a.fail("scale and B must have X's dtype");
    const T *px = x.data<T>(), *ps = scale.data<T>(), *pb = bias.data<T>();
    T* py = y.data<T>();
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t c = 0; c < C; ++c) {
        const T* p = px + (n * C + c) * inner;
        T* q = py + (n * C + c) * inner;
        double mean = 0, var = 0;
        for (int64_t i = 0; i < inner; ++i) mean += double(p[i]);
        mean = inner > 0 ? mean / double(inner) : 0;
        for (int64_t i = 0; i < inner; ++i) var += (double(p[i]) - mean) * (double(p[i]) - mean);
        var = inner > 0 ? var / double(inner) : 0;
        const double k = double(ps[c]) / std::sqrt(var + eps);
        for (int64_t i = 0; i < inner; ++i) q[i] = T((double(p[i]) - mean) * k + double(pb[c]));
      }
    }
  });
  return outputs(std::move(y));
}

}  // namespace tauvta::cpu
