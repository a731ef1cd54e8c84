// Pooling: MaxPool (pads, strides, dilations, ceil_mode, auto_pad, the optional Indices output),
// AveragePool (count_include_pad), GlobalAveragePool, GlobalMaxPool; 1 to 3 spatial dimensions.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "cpu/float_ops_dispatch.h"
#include "cpu/float_ops_window.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

namespace {

// For one lifted axis: per output position the first input position and the kernel taps
// [klo, khi) that land inside the input, plus how many taps land inside the padded input.
struct AxisWindows {
  std::vector<int64_t> start, klo, khi, padded;
};

AxisWindows axis_windows(const WindowGeometry& g, size_t i) {
  AxisWindows w;
  const int64_t in = g.target[i];
  for (int64_t o = 0; o < g.iter[i]; ++o) {
    const int64_t s = o * g.stride[i] - g.pad_begin[i];
    int64_t lo = g.kernel[i], hi = 0, padded = 0;
    for (int64_t k = 0; k < g.kernel[i]; ++k) {
      const int64_t p = s + k * g.dilation[i];
      if (p >= 0 && p < in) {
        lo = std::min(lo, k);
        hi = std::max(hi, k + 1);
      }
      if (p >= -g.pad_begin[i] && p < in + g.pad_end[i]) ++padded;
    }
    if (hi <= lo) lo = hi = 0;
    w.start.push_back(s);
    w.klo.push_back(lo);
    w.khi.push_back(hi);
    w.padded.push_back(padded);
  }
  return w;
}

Shape pooled_shape(const Tensor& x, const WindowGeometry& g) {
  Shape s{x.shape()[0], x.shape()[1]};
  for (int64_t d : g.unlift(g.iter)) s.push_back(d);
  return s;
}

// Calls f(plane, out_index, taps) where taps(visit) calls visit(input_offset_in_plane, id, ih, iw)
// for every in-bounds kernel tap of that output position, in row-major kernel order (MaxPool's
// Indices need the window visited element by element).
template <class F>
void for_each_window(const WindowGeometry& g, int64_t planes, F&& f) {
  const AxisWindows wd = axis_windows(g, 0), wh = axis_windows(g, 1), ww = axis_windows(g, 2);
  const int64_t IH = g.target[1], IW = g.target[2];
  int64_t out = 0;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t od = 0; od < g.iter[0]; ++od) {
      for (int64_t oh = 0; oh < g.iter[1]; ++oh) {
        for (int64_t ow = 0; ow < g.iter[2]; ++ow, ++out) {
          auto taps = [&](auto&& visit) {
            for (int64_t kd = wd.klo[size_t(od)]; kd < wd.khi[size_t(od)]; ++kd) {
              const int64_t id = wd.start[size_t(od)] + kd * g.dilation[0];
              for (int64_t kh = wh.klo[size_t(oh)]; kh < wh.khi[size_t(oh)]; ++kh) {
                const int64_t ih = wh.start[size_t(oh)] + kh * g.dilation[1];
                for (int64_t kw = ww.klo[size_t(ow)]; kw < ww.khi[size_t(ow)]; ++kw) {
                  const int64_t iw = ww.start[size_t(ow)] + kw * g.dilation[2];
                  visit((id * IH + ih) * IW + iw, id, ih, iw);
                }
              }
            }
          };
          f(p, out, taps);
        }
      }
    }
  }
}

// One plane by row passes: every output row accumulates (max or sum) one input row per kernel tap
// that lands inside the input; taps in the padding contribute nothing.
template <class T, class Acc, bool kMax>
void pool_plane_rows(const T* x, const WindowGeometry& g, Acc* acc) {
  const int64_t OD = g.iter[0], OH = g.iter[1], OW = g.iter[2];
  const int64_t ID = g.target[0], IH = g.target[1], IW = g.target[2];
  const int64_t sw = g.stride[2];
  std::fill(acc, acc + OD * OH * OW, kMax ? Acc(std::numeric_limits<T>::lowest()) : Acc(0));
  for (int64_t od = 0; od < OD; ++od) {
    for (int64_t oh = 0; oh < OH; ++oh) {
      Acc* yr = acc + (od * OH + oh) * OW;
      for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
        const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
        if (id < 0 || id >= ID) continue;
        for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
          const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
          if (ih < 0 || ih >= IH) continue;
          const T* xr = x + (id * IH + ih) * IW;
          for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
            const int64_t base = kw * g.dilation[2] - g.pad_begin[2];
            int64_t lo, hi;
            window_valid_range(base, sw, IW, OW, lo, hi);
            for (int64_t ow = lo; ow < hi; ++ow) {
              const Acc v = Acc(xr[ow * sw + base]);
              if constexpr (kMax) {
                yr[ow] = v > yr[ow] ? v : yr[ow];
              } else {
                yr[ow] += v;
              }
            }
          }
        }
      }
    }
  }
}


}  // namespace

std::vector<Tensor> op_MaxPool(const OpArgs& a) {
  const Tensor& x = a.in(0);
  if (a.node.has_attr("kernel_shape") == false) a.fail("missing attribute 'kernel_shape'");
  const WindowGeometry g = pool_window(a, x.shape());
  const int64_t storage_order = a.node.attr_int_or("storage_order", 0);
  const bool want_indices = a.node.outputs.size() > 1 && !a.node.outputs[1].empty();
  Tensor y(x.dtype(), pooled_shape(x, g));
  Tensor indices(DType::kInt64, want_indices ? y.shape() : Shape{0});
  const int64_t T = g.target_size();
  const int64_t ID = g.target[0], IH = g.target[1];
  const int64_t planes = x.shape()[0] * x.shape()[1], P = g.iter_size();
  dispatch_numeric(a, x.dtype(), [&](auto tag) {
    using T_ = decltype(tag);
    const T_* px = x.data<T_>();
    T_* py = y.data<T_>();
    if (!want_indices) {
      for (int64_t p = 0; p < planes; ++p) pool_plane_rows<T_, T_, true>(px + p * T, g, py + p * P);
      return;
    }
    int64_t* pi = indices.data<int64_t>();
    for_each_window(g, planes, [&](int64_t p, int64_t o, auto&& taps) {
      const T_* plane = px + p * T;
      T_ best = std::numeric_limits<T_>::lowest();
      int64_t arg = -1;
      taps([&](int64_t off, int64_t id, int64_t ih, int64_t iw) {
        if (plane[off] > best || arg < 0) {
          best = plane[off];
          arg = storage_order == 0 ? off : (iw * IH + ih) * ID + id;
        }
      });
      py[o] = best;
      pi[o] = arg < 0 ? -1 : p * T + arg;
    });
  });
  if (!want_indices) return outputs(std::move(y));
  return outputs(std::move(y), std::move(indices));
}

std::vector<Tensor> op_AveragePool(const OpArgs& a) {
  const Tensor& x = a.in(0);
  if (a.node.has_attr("kernel_shape") == false) a.fail("missing attribute 'kernel_shape'");
  const WindowGeometry g = pool_window(a, x.shape());
  const bool include_pad = a.node.attr_int_or("count_include_pad", 0) != 0;
  Tensor y(x.dtype(), pooled_shape(x, g));
  const int64_t T = g.target_size();
  const int64_t planes = x.shape()[0] * x.shape()[1], P = g.iter_size();
  // The taps inside the input (or the padded input) form a box, so the divisor is a product of
  // per-axis counts.
  const AxisWindows wd = axis_windows(g, 0), wh = axis_windows(g, 1), ww = axis_windows(g, 2);
  std::vector<double> inv(static_cast<size_t>(P));
  for (int64_t od = 0, o = 0; od < g.iter[0]; ++od) {
    for (int64_t oh = 0; oh < g.iter[1]; ++oh) {
      for (int64_t ow = 0; ow < g.iter[2]; ++ow, ++o) {
        const auto count = [&](const AxisWindows& w, int64_t i) {
          return include_pad ? w.padded[size_t(i)] : w.khi[size_t(i)] - w.klo[size_t(i)];
        };
        const int64_t div = count(wd, od) * count(wh, oh) * count(ww, ow);
        inv[size_t(o)] = div > 0 ? 1.0 / double(div) : 0.0;
      }
    }
  }
  std::vector<double> sums(static_cast<size_t>(P));
  dispatch_floating(a, x.dtype(), [&](auto tag) {
    using T_ = decltype(tag);
    const T_* px = x.data<T_>();
    T_* py = y.data<T_>();
    for (int64_t p = 0; p < planes; ++p) {
      pool_plane_rows<T_, double, false>(px + p * T, g, sums.data());
      for (int64_t o = 0; o < P; ++o) py[p * P + o] = T_(sums[size_t(o)] * inv[size_t(o)]);
    }
  });
  return outputs(std::move(y));
}

namespace {

template <bool kMax>
std::vector<Tensor> global_pool(const OpArgs& a) {
  const Tensor& x = a.in(0);
  if (x.rank() < 3) a.fail(fmt::format("input {} needs at least one spatial dimension", graph::shape_string(x.shape())));
  Shape ys{x.shape()[0], x.shape()[1]};
  ys.resize(x.shape().size(), 1);
  Tensor y(x.dtype(), ys);
  const int64_t planes = x.shape()[0] * x.shape()[1];
  const int64_t plane = planes == 0 ? 0 : x.size() / planes;
  dispatch_floating(a, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    for (int64_t p = 0; p < planes; ++p) {
      const T* s = px + p * plane;
      if constexpr (kMax) {
        T m = std::numeric_limits<T>::lowest();
        for (int64_t i = 0; i < plane; ++i) m = std::max(m, s[i]);
        py[p] = m;
      } else {
        double sum = 0.0;
        for (int64_t i = 0; i < plane; ++i) sum += double(s[i]);
        py[p] = plane > 0 ? T(sum / double(plane)) : T(0);
      }
    }
  });
  return outputs(std::move(y));
}

}  // namespace

std::vector<Tensor> op_GlobalAveragePool(const OpArgs& a) { return global_pool<false>(a); }
std::vector<Tensor> op_GlobalMaxPool(const OpArgs& a) { return global_pool<true>(a); }

}  // namespace tauvta::cpu
