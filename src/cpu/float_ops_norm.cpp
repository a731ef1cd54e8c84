// Normalizations: BatchNormalization (inference form, and training_mode's batch statistics with
// running-mean/variance outputs), Softmax and LogSoftmax (one kernel; opset < 13: coerced to 2-D
// at `axis`; opset >= 13: along `axis` only) and LayerNormalization.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "cpu/float_ops_broadcast.h"
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

namespace {

// Softmax (or, with `log`, its logarithm x - max - log(sum e^(x - max))) along `axis`: before
// opset 13 the input is coerced to 2-D at `axis` (default 1), from 13 one axis (default -1).
std::vector<Tensor> softmax_along_axis(const OpArgs& a, bool log) {
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
          if (!log) q[k * inner] = e;
          sum += double(e);
        }
        if (log) {
          const T log_sum = T(std::log(sum));
          for (int64_t k = 0; k < len; ++k) q[k * inner] = p[k * inner] - m - log_sum;
        } else {
          const T inv = T(1.0 / sum);
          for (int64_t k = 0; k < len; ++k) q[k * inner] *= inv;
        }
      }
    }
  });
  return outputs(std::move(y));
}

}  // namespace

std::vector<Tensor> op_Softmax(const OpArgs& a) { return softmax_along_axis(a, /*log=*/false); }

std::vector<Tensor> op_LogSoftmax(const OpArgs& a) { return softmax_along_axis(a, /*log=*/true); }

}  // namespace tauvta::cpu

namespace tauvta::cpu {

// LayerNormalization-17: X normalized over the axes from `axis` (default -1) to the last with
// its mean and population variance (computed in double), then `* Scale + B` (both broadcast to
// the normalized shape). Optional outputs Mean and InvStdDev have X's shape with the normalized
// axes set to 1 (float32 for stash_type 1).
std::vector<Tensor> op_LayerNormalization(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const Tensor& scale = a.in(1);
  const Tensor* bias = a.opt(2);
  const int64_t r = x.rank();
  if (r == 0) a.fail("input must have rank >= 1");
  const int64_t axis = normalize_axis(a, a.node.attr_int_or("axis", -1), r);
  const double eps = a.node.attr_float_or("epsilon", 1e-5f);
  const int64_t stash = a.node.attr_int_or("stash_type", 1);
  if (stash != 1) a.fail(fmt::format("stash_type {} is not supported (1: float32)", stash));
  const int64_t outer = product(x.shape(), 0, size_t(axis));
  const int64_t len = product(x.shape(), size_t(axis), x.shape().size());
  const Shape norm_shape(x.shape().begin() + axis, x.shape().end());
  auto check_param = [&](const Tensor& p, const char* what) {
    if (p.dtype() != x.dtype()) a.fail(fmt::format("{} is {}, X is {}", what, graph::dtype_name(p.dtype()), graph::dtype_name(x.dtype())));
    if (broadcast_shapes(a, p.shape(), norm_shape) != norm_shape) {
      a.fail(fmt::format("{} {} does not broadcast to the normalized shape {}", what,
                         graph::shape_string(p.shape()), graph::shape_string(norm_shape)));
    }
  };
  check_param(scale, "Scale");
  if (bias) check_param(*bias, "B");
  // Scale and B expanded to one value per normalized element (right-aligned broadcast).
  auto expand = [&](const Tensor& p) {
    const std::vector<float> f = broadcast_to(p.cast(DType::kFloat32), norm_shape).to_float();
    return std::vector<double>(f.begin(), f.end());
  };
  const std::vector<double> g = expand(scale);
  const std::vector<double> b = bias ? expand(*bias) : std::vector<double>(size_t(len), 0.0);
  Shape stat_shape = x.shape();
  for (int64_t k = axis; k < r; ++k) stat_shape[size_t(k)] = 1;
  Tensor y(x.dtype(), x.shape()), mean_t(DType::kFloat32, stat_shape), inv_t(DType::kFloat32, stat_shape);
  dispatch_floating(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      const T* row = px + o * len;
      double m = 0;
      for (int64_t i = 0; i < len; ++i) m += double(row[i]);
      m /= double(len);
      double v = 0;
      for (int64_t i = 0; i < len; ++i) v += (double(row[i]) - m) * (double(row[i]) - m);
      v /= double(len);
      const double inv = 1.0 / std::sqrt(v + eps);
      for (int64_t i = 0; i < len; ++i) {
        py[o * len + i] = T((double(row[i]) - m) * inv * g[size_t(i)] + b[size_t(i)]);
      }
      mean_t.data<float>()[o] = float(m);
      inv_t.data<float>()[o] = float(inv);
    }
  });
  return outputs(std::move(y), std::move(mean_t), std::move(inv_t));
}

}  // namespace tauvta::cpu
