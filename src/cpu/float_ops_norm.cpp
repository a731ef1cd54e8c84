// Normalizations: BatchNormalization (inference form, and training_mode's batch statistics with
// running-mean/variance outputs) and Softmax (opset < 13: coerced to 2-D at `axis`; opset >= 13:
// along `axis` only).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "cpu/float_ops_dispatch.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

std::vector<Tensor> op_BatchNormalization(const OpArgs& a) {
  const Tensor& x = a.in(0);
  if (x.rank() < 2) a.fail(fmt::format("input {} needs a channel dimension", graph::shape_string(x.shape())));
  if (a.node.attr_int_or("spatial", 1) == 0) a.fail("attribute 'spatial' = 0 (per-activation statistics) is not supported");
  const int64_t N = x.shape()[0], C = x.shape()[1];
  const int64_t inner = product(x.shape(), 2, x.shape().size());
  for (size_t i = 1; i <= 4; ++i) {
    const Tensor& p = a.in(i);
    if (p.dtype() != x.dtype() || p.size() != C) {
      a.fail(fmt::format("input {} must hold {} {} values (one per channel), got {}{}", i, C,
                         graph::dtype_name(x.dtype()), graph::dtype_name(p.dtype()), graph::shape_string(p.shape())));
    }
  }
  const double eps = a.node.attr_float_or("epsilon", 1e-5f);
  const double momentum = a.node.attr_float_or("momentum", 0.9f);
  const bool training = a.node.attr_int_or("training_mode", 0) != 0;
  Tensor y(x.dtype(), x.shape());
  std::vector<Tensor> outs;
  dispatch_floating(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* scale = a.in(1).data<T>();
    const T* bias = a.in(2).data<T>();
    const T* in_mean = a.in(3).data<T>();
    const T* in_var = a.in(4).data<T>();
    std::vector<double> mean(static_cast<size_t>(C)), var(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) {
      mean[size_t(c)] = double(in_mean[c]);
      var[size_t(c)] = double(in_var[c]);
    }
    if (training) {  // batch statistics (population variance), as ONNX's reference
      for (int64_t c = 0; c < C; ++c) {
        double s = 0.0, s2 = 0.0;
        for (int64_t n = 0; n < N; ++n) {
          const T* p = px + (n * C + c) * inner;
          for (int64_t i = 0; i < inner; ++i) s += double(p[i]);
        }
        const double cnt = double(N * inner), m = cnt > 0 ? s / cnt : 0.0;
        for (int64_t n = 0; n < N; ++n) {
          const T* p = px + (n * C + c) * inner;
          for (int64_t i = 0; i < inner; ++i) s2 += (double(p[i]) - m) * (double(p[i]) - m);
        }
        mean[size_t(c)] = m;
        var[size_t(c)] = cnt > 0 ? s2 / cnt : 0.0;
      }
    }
    T* py = y.data<T>();
    for (int64_t c = 0; c < C; ++c) {
      const double k = double(scale[c]) / std::sqrt(var[size_t(c)] + eps);
      const T mul = T(k), add = T(double(bias[c]) - mean[size_t(c)] * k);
      for (int64_t n = 0; n < N; ++n) {
        const T* p = px + (n * C + c) * inner;
        T* q = py + (n * C + c) * inner;
        for (int64_t i = 0; i < inner; ++i) q[i] = p[i] * mul + add;
      }
    }
    outs.push_back(std::move(y));
    if (training) {
      Tensor rm(x.dtype(), {C}), rv(x.dtype(), {C});
      for (int64_t c = 0; c < C; ++c) {
        rm.data<T>()[c] = T(double(in_mean[c]) * momentum + mean[size_t(c)] * (1.0 - momentum));
        rv.data<T>()[c] = T(double(in_var[c]) * momentum + var[size_t(c)] * (1.0 - momentum));
      }
      outs.push_back(std::move(rm));
      outs.push_back(std::move(rv));
    }
  });
  return outs;
}

std::vector<Tensor> op_Softmax(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const bool coerce_2d = a.opset < 13;
  const int64_t axis = normalize_axis(a, a.node.attr_int_or("axis", coerce_2d ? 1 : -1), x.rank());
  const int64_t outer = product(x.shape(), 0, size_t(axis));
  const int64_t len = coerce_2d ? product(x.shape(), size_t(axis), x.shape().size()) : x.shape()[size_t(axis)];
  const int64_t inner = coerce_2d ? 1 : product(x.shape(), size_t(axis + 1), x.shape().size());
  Tensor y(x.dtype(), x.shape());
  dispatch_floating(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T* p = px + o * len * inner + i;
        T* q = py + o * len * inner + i;
        T m = -std::numeric_limits<T>::infinity();
        for (int64_t k = 0; k < len; ++k) m = std::max(m, p[k * inner]);
        double sum = 0.0;
        for (int64_t k = 0; k < len; ++k) {
          const T e = std::exp(p[k * inner] - m);
          q[k * inner] = e;
          sum += double(e);
        }
        const T inv = T(1.0 / sum);
        for (int64_t k = 0; k < len; ++k) q[k * inner] *= inv;
      }
    }
  });
  return outputs(std::move(y));
}

}  // namespace tauvta::cpu
