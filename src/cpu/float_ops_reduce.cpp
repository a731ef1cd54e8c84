// The Reduce family: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceSumSquare,
// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp. `axes` is an attribute before opset 13
// (ReduceSum: before 13; an input from 13) and absent means every axis; `keepdims` (default 1);
// ReduceSum-13's `noop_with_empty_axes` passes the input through when no axes are given.
// Floats accumulate in double and integers in int64 (wrapping), then round once to the dtype.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "cpu/float_ops_dispatch.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

namespace {

enum class Reduce { kSum, kMean, kMax, kMin, kProd, kSumSquare, kL1, kL2, kLogSum, kLogSumExp };

struct Reduction {
  Shape out_shape;                    // with keepdims applied
  std::vector<bool> reduced;          // per input axis
  std::vector<int64_t> out_strides;   // per input axis: stride in the output, 0 when reduced
  int64_t count = 1;                  // elements per output
};

Reduction plan(const OpArgs& a, const Shape& in, const std::optional<std::vector<int64_t>>& axes) {
  const int64_t r = int64_t(in.size());
  Reduction p;
  p.reduced.assign(size_t(r), false);
  if (!axes || axes->empty()) {
    std::fill(p.reduced.begin(), p.reduced.end(), true);
  } else {
    for (int64_t ax : *axes) {
      const int64_t k = normalize_axis(a, ax, r, "axes");
      if (p.reduced[size_t(k)]) a.fail(fmt::format("axis {} is reduced twice", ax));
      p.reduced[size_t(k)] = true;
    }
  }
  const bool keep = a.node.attr_int_or("keepdims", 1) != 0;
  for (int64_t k = 0; k < r; ++k) {
    if (p.reduced[size_t(k)]) {
      p.count *= in[size_t(k)];
      if (keep) p.out_shape.push_back(1);
    } else {
      p.out_shape.push_back(in[size_t(k)]);
    }
  }
  p.out_strides.assign(size_t(r), 0);
  int64_t acc = 1;
  for (int64_t k = r; k-- > 0;) {
    if (p.reduced[size_t(k)]) continue;
    p.out_strides[size_t(k)] = acc;
    acc *= in[size_t(k)];
  }
  return p;
}

// Calls f(input_offset, output_offset) for every input element, in input order. The trailing
// axes that are all reduced (or all kept) form one run walked in a tight loop; an odometer steps
// over the axes before it.
template <class F>
void walk(const Shape& in, const std::vector<int64_t>& out_strides, F&& f) {
  size_t k = in.size();
  int64_t run = 1;
  const bool reduced_run = k > 0 && out_strides[k - 1] == 0;
  while (k > 0 && (out_strides[k - 1] == 0) == reduced_run) run *= in[--k];
  const int64_t run_step = reduced_run ? 0 : 1;  // output elements per input element in the run
  int64_t outer = 1;
  for (size_t d = 0; d < k; ++d) outer *= in[d];
  std::vector<int64_t> idx(k, 0);
  int64_t i = 0, o = 0;
  for (int64_t n = 0; n < outer; ++n) {
    for (int64_t j = 0; j < run; ++j) f(i + j, o + j * run_step);
    i += run;
    for (size_t d = k; d-- > 0;) {
      ++idx[d];
      o += out_strides[d];
      if (idx[d] < in[d]) break;
      o -= out_strides[d] * in[d];
      idx[d] = 0;
    }
  }
}

template <class T>
void reduce_typed(const OpArgs& a, Reduce kind, const Tensor& x, const Reduction& p, Tensor& y) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  if constexpr (std::is_integral_v<T>) {
    if (kind == Reduce::kL2 || kind == Reduce::kLogSum || kind == Reduce::kLogSumExp) {
      a.fail("does not take integer inputs");
    }
  }
  const int64_t n_out = y.size();
  std::vector<Acc> acc(static_cast<size_t>(n_out));
  Acc init = 0;
  if (kind == Reduce::kProd) init = 1;
  if (kind == Reduce::kMax) init = std::numeric_limits<Acc>::lowest();
  if (kind == Reduce::kMin) init = std::numeric_limits<Acc>::max();
  if constexpr (std::is_floating_point_v<T>) {
    if (kind == Reduce::kMax) init = -std::numeric_limits<double>::infinity();
    if (kind == Reduce::kMin) init = std::numeric_limits<double>::infinity();
  }
  std::fill(acc.begin(), acc.end(), init);
  const T* px = x.data<T>();
  // Wrapping integer arithmetic: through uint64.
  auto add = [](Acc s, Acc v) {
    if constexpr (std::is_integral_v<Acc>) return Acc(uint64_t(s) + uint64_t(v));
    else return s + v;
  };
  auto mul = [](Acc s, Acc v) {
    if constexpr (std::is_integral_v<Acc>) return Acc(uint64_t(s) * uint64_t(v));
    else return s * v;
  };
  std::vector<double> shift;  // LogSumExp: the per-output maximum, subtracted before exp
  if (kind == Reduce::kLogSumExp) {
    shift.assign(size_t(n_out), -std::numeric_limits<double>::infinity());
    walk(x.shape(), p.out_strides, [&](int64_t i, int64_t o) { shift[size_t(o)] = std::max(shift[size_t(o)], double(px[i])); });
    for (double& s : shift) {
      if (!std::isfinite(s)) s = 0;
    }
  }
  walk(x.shape(), p.out_strides, [&](int64_t i, int64_t o) {
    Acc& s = acc[size_t(o)];
    const Acc v = Acc(px[i]);
    switch (kind) {
      case Reduce::kSum:
      case Reduce::kMean:
      case Reduce::kLogSum: s = add(s, v); break;
      case Reduce::kMax: s = (s < v) ? v : s; break;  // a NaN input is kept below
      case Reduce::kMin: s = (v < s) ? v : s; break;
      case Reduce::kProd: s = mul(s, v); break;
      case Reduce::kSumSquare:
      case Reduce::kL2: s = add(s, mul(v, v)); break;
      case Reduce::kL1: s = add(s, v < 0 ? Acc(0) - v : v); break;
      case Reduce::kLogSumExp: s = Acc(double(s) + std::exp(double(px[i]) - shift[size_t(o)])); break;
    }
    if constexpr (std::is_floating_point_v<T>) {
      if ((kind == Reduce::kMax || kind == Reduce::kMin) && std::isnan(double(px[i]))) s = v;
    }
  });
  T* py = y.data<T>();
  for (int64_t o = 0; o < n_out; ++o) {
    const Acc s = acc[size_t(o)];
    switch (kind) {
      case Reduce::kMean:
        if constexpr (std::is_integral_v<Acc>) {
          py[o] = p.count ? T(s / p.count) : T(0);
        } else {
          py[o] = T(s / double(p.count));
        }
        break;
      case Reduce::kL2: py[o] = T(std::sqrt(double(s))); break;
      case Reduce::kLogSum: py[o] = T(std::log(double(s))); break;
      case Reduce::kLogSumExp: py[o] = T(std::log(double(s)) + shift[size_t(o)]); break;
      default: py[o] = T(s); break;
    }
  }
}

std::vector<Tensor> reduce(const OpArgs& a, Reduce kind) {
  const Tensor& x = a.in(0);
  const std::optional<std::vector<int64_t>> axes = a.ints_attr_or_input("axes", 1);
  if ((!axes || axes->empty()) && a.node.attr_int_or("noop_with_empty_axes", 0) != 0) return outputs(Tensor(x));
  const Reduction p = plan(a, x.shape(), axes);
  Tensor y(x.dtype(), p.out_shape);
  dispatch_numeric(a, x.dtype(), [&](auto tag) { reduce_typed<decltype(tag)>(a, kind, x, p, y); });
  return outputs(std::move(y));
}

}  // namespace

std::vector<Tensor> op_ReduceL1(const OpArgs& a) { return reduce(a, Reduce::kL1); }
std::vector<Tensor> op_ReduceL2(const OpArgs& a) { return reduce(a, Reduce::kL2); }
std::vector<Tensor> op_ReduceLogSum(const OpArgs& a) { return reduce(a, Reduce::kLogSum); }
std::vector<Tensor> op_ReduceLogSumExp(const OpArgs& a) { return reduce(a, Reduce::kLogSumExp); }
std::vector<Tensor> op_ReduceMax(const OpArgs& a) { return reduce(a, Reduce::kMax); }
std::vector<Tensor> op_ReduceMean(const OpArgs& a) { return reduce(a, Reduce::kMean); }
std::vector<Tensor> op_ReduceMin(const OpArgs& a) { return reduce(a, Reduce::kMin); }
std::vector<Tensor> op_ReduceProd(const OpArgs& a) { return reduce(a, Reduce::kProd); }
std::vector<Tensor> op_ReduceSum(const OpArgs& a) { return reduce(a, Reduce::kSum); }
std::vector<Tensor> op_ReduceSumSquare(const OpArgs& a) { return reduce(a, Reduce::kSumSquare); }

}  // namespace tauvta::cpu
