// Element-wise math: the unary functions (Abs, Ceil, Erf, Exp, Floor, Gelu, HardSigmoid, HardSwish,
// Log, Neg, Reciprocal, Sqrt) and the broadcasting arithmetic beyond Add/Sub/Mul (Div, Pow,
// Mod, Max, Min). Integer Div truncates toward zero and Mod follows the divisor's sign (fmod=0)
// as ONNX's reference (NumPy) does; an integer division by zero is an error, not UB.
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

// Integer x / y and x mod y with the checks the hardware-free reference needs.
template <class T>
T int_div(const OpArgs& a, T x, T y) {
  if (y == 0) a.fail("integer division by zero");
  if constexpr (std::is_signed_v<T>) {
    if (x == std::numeric_limits<T>::min() && y == T(-1)) return x;  // wraps, as NumPy
  }
  return T(x / y);
}

template <class T>
T int_mod(const OpArgs& a, T x, T y, bool c_style) {
  if (y == 0) a.fail("integer modulo by zero");
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return T(0);
    T r = T(x % y);
    if (!c_style && r != 0 && ((r < 0) != (y < 0))) r = T(r + y);
    return r;
  } else {
    return T(x % y);
  }
}

template <class T>
T pow_value(T base, double e) {
  if constexpr (std::is_integral_v<T>) {
    // Integer bases: exact repeated squaring for non-negative integral exponents (wrapping like
    // NumPy), the rounded-toward-zero real power otherwise.
    if (e >= 0 && e == std::floor(e) && e < 64) {
      using U = std::make_unsigned_t<T>;
      U result = 1, b = U(base);
      for (auto k = uint64_t(e); k; k >>= 1) {
        if (k & 1) result = U(result * b);
        b = U(b * b);
      }
      return T(result);
    }
    return T(std::pow(double(base), e));
  } else {
    return T(std::pow(base, T(e)));
  }
}

}  // namespace

std::vector<Tensor> op_Abs(const OpArgs& a) {
  return map_numeric(a, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_unsigned_v<T>) {
      return v;
    } else if constexpr (std::is_integral_v<T>) {
      return v < 0 ? T(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(v)) : v;  // wraps at min
    } else {
      return std::fabs(v);
    }
  });
}

std::vector<Tensor> op_Neg(const OpArgs& a) {
  return map_numeric(a, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_integral_v<T>) {
      return T(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(v));
    } else {
      return T(-v);
    }
  });
}

std::vector<Tensor> op_Ceil(const OpArgs& a) { return map_floating(a, [](auto v) { return std::ceil(v); }); }
std::vector<Tensor> op_Floor(const OpArgs& a) { return map_floating(a, [](auto v) { return std::floor(v); }); }
std::vector<Tensor> op_Erf(const OpArgs& a) { return map_floating(a, [](auto v) { return std::erf(v); }); }
std::vector<Tensor> op_Exp(const OpArgs& a) { return map_floating(a, [](auto v) { return std::exp(v); }); }
std::vector<Tensor> op_Log(const OpArgs& a) { return map_floating(a, [](auto v) { return std::log(v); }); }
std::vector<Tensor> op_Sqrt(const OpArgs& a) { return map_floating(a, [](auto v) { return std::sqrt(v); }); }
std::vector<Tensor> op_Reciprocal(const OpArgs& a) {
  return map_floating(a, [](auto v) { return decltype(v)(1) / v; });
}

// max(0, min(1, alpha * x + beta)), defaults alpha 0.2, beta 0.5.
std::vector<Tensor> op_HardSigmoid(const OpArgs& a) {
  const float alpha = a.node.attr_float_or("alpha", 0.2f), beta = a.node.attr_float_or("beta", 0.5f);
  return map_floating(a, [alpha, beta](auto v) {
    using T = decltype(v);
    return std::max(T(0), std::min(T(1), T(alpha) * v + T(beta)));
  });
}

// x * max(0, min(1, x / 6 + 1 / 2)) (ONNX: alpha = 1/6, beta = 0.5).
std::vector<Tensor> op_HardSwish(const OpArgs& a) {
  return map_floating(a, [](auto v) {
    using T = decltype(v);
    return v * std::max(T(0), std::min(T(1), v * T(1.0 / 6.0) + T(0.5)));
  });
}

// Gelu (ONNX 20's semantics; tauvta's fuse_patterns makes it from the Erf chain exporters write):
// 0.5 x (1 + erf(x / sqrt 2)), or with approximate = "tanh" 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
std::vector<Tensor> op_Gelu(const OpArgs& a) {
  const std::string approx = a.node.attr_string_or("approximate", "none");
  if (approx != "none" && approx != "tanh") a.fail(fmt::format("approximate '{}' is not none or tanh", approx));
  if (approx == "tanh") {
    return map_floating(a, [](auto v) {
      const double x = double(v);
      return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    });
  }
  return map_floating(a, [](auto v) { return 0.5 * double(v) * (1.0 + std::erf(double(v) * 0.7071067811865476)); });
}

std::vector<Tensor> op_Div(const OpArgs& a) {
  const Tensor &x = a.in(0), &y = a.in(1);
  expect_same_dtype(a, x, y);
  Tensor out(x.dtype(), broadcast_shapes(a, x.shape(), y.shape()));
  dispatch_numeric(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      broadcast_binary<T, T, T>(x, y, out, [&](T p, T q) { return int_div(a, p, q); });
    } else {
      broadcast_binary<T, T, T>(x, y, out, [](T p, T q) { return p / q; });
    }
  });
  return outputs(std::move(out));
}

std::vector<Tensor> op_Mod(const OpArgs& a) {
  const Tensor &x = a.in(0), &y = a.in(1);
  expect_same_dtype(a, x, y);
  const bool c_style = a.node.attr_int_or("fmod", 0) != 0;
  if (!c_style && !graph::dtype_is_integer(x.dtype())) a.fail("a floating-point Mod needs fmod=1");
  Tensor out(x.dtype(), broadcast_shapes(a, x.shape(), y.shape()));
  dispatch_numeric(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      broadcast_binary<T, T, T>(x, y, out, [&](T p, T q) { return int_mod(a, p, q, c_style); });
    } else {
      broadcast_binary<T, T, T>(x, y, out, [](T p, T q) { return std::fmod(p, q); });
    }
  });
  return outputs(std::move(out));
}

// Pow: the exponent may have another numeric dtype than the base; the output has the base's.
std::vector<Tensor> op_Pow(const OpArgs& a) {
  const Tensor &x = a.in(0), &y = a.in(1);
  Tensor out(x.dtype(), broadcast_shapes(a, x.shape(), y.shape()));
  dispatch_numeric(a, x.dtype(), [&](auto base_tag) {
    using T = decltype(base_tag);
    dispatch_numeric(a, y.dtype(), [&](auto exp_tag) {
      using E = decltype(exp_tag);
      broadcast_binary<T, E, T>(x, y, out, [](T b, E e) { return pow_value<T>(b, double(e)); });
    });
  });
  return outputs(std::move(out));
}

namespace {

// Max and Min: one or more operands, broadcast together; NaN propagates for floats.
std::vector<Tensor> variadic_extreme(const OpArgs& a, bool is_max) {
  return outputs(fold_operands(a, [is_max](auto tag) {
    using T = decltype(tag);
    return [is_max](T p, T q) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(p) || std::isnan(q)) return std::isnan(p) ? p : q;
      }
      return is_max ? std::max(p, q) : std::min(p, q);
    };
  }));
}

}  // namespace

std::vector<Tensor> op_Max(const OpArgs& a) { return variadic_extreme(a, true); }
std::vector<Tensor> op_Min(const OpArgs& a) { return variadic_extreme(a, false); }

}  // namespace tauvta::cpu
