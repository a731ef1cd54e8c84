// Resize (opset 10 to 17) and Upsample: nearest (all nearest_modes), linear and cubic
// interpolation with every coordinate_transformation_mode, exclude_outside and the
// tf_crop_and_resize region of interest with extrapolation, as ONNX's reference defines them:
// one 1-D interpolation per axis, applied from the last axis to the first.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "cpu/float_ops_dispatch.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

namespace {

struct ResizeSpec {
  std::string mode;          // nearest, linear, cubic
  std::string coord;         // coordinate_transformation_mode
  std::string nearest_mode;  // round_prefer_floor, round_prefer_ceil, floor, ceil
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
  std::vector<double> scales;
  std::vector<double> roi;  // 2*rank: starts then ends (tf_crop_and_resize)
  Shape out;
};

// One axis: per output position, `n` taps (input index, weight) or "extrapolate".
struct AxisTaps {
  int64_t n = 0;
  std::vector<int64_t> index;   // out * n, clamped to the input
  std::vector<double> weight;   // out * n
  std::vector<uint8_t> extrapolate;
  bool identity = false;        // every output o takes input o with weight 1
};

std::vector<double> float_values(const Tensor& t) {
  if (t.dtype() == DType::kFloat64) return std::vector<double>(t.data<double>(), t.data<double>() + t.size());
  const std::vector<float> f = t.to_float();
  return std::vector<double>(f.begin(), f.end());
}

ResizeSpec read_spec(const OpArgs& a, const Tensor& x) {
  ResizeSpec s;
  const int64_t r = x.rank();
  // Upsample and Resize-10 take (X, scales); Resize-11+ takes (X, roi, scales[, sizes]). The
  // frontend rewrites the old forms into the new one, so the input count decides, not the opset.
  const bool legacy = a.node.op_type == "Upsample" || a.num_inputs() == 2;  // asymmetric, floor
  s.mode = a.node.attr_string_or("mode", "nearest");
  if (s.mode == "bilinear" || s.mode == "trilinear") s.mode = "linear";  // Upsample-1 names
  if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic") {
    a.fail(fmt::format("mode '{}' is not supported (nearest, linear, cubic)", s.mode));
  }
  s.coord = a.node.attr_string_or("coordinate_transformation_mode", legacy ? "asymmetric" : "half_pixel");
  s.nearest_mode = a.node.attr_string_or("nearest_mode", legacy ? "floor" : "round_prefer_floor");
  s.cubic_a = a.node.attr_float_or("cubic_coeff_a", -0.75f);
  s.exclude_outside = a.node.attr_int_or("exclude_outside", 0) != 0;
  s.extrapolation = a.node.attr_float_or("extrapolation_value", 0.0f);
  static const char* coords[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                 "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (std::find(std::begin(coords), std::end(coords), s.coord) == std::end(coords)) {
    a.fail(fmt::format("coordinate_transformation_mode '{}' is not supported", s.coord));
  }
  static const char* nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (std::find(std::begin(nearest), std::end(nearest), s.nearest_mode) == std::end(nearest)) {
    a.fail(fmt::format("nearest_mode '{}' is not supported", s.nearest_mode));
  }
  if (s.mode == "cubic" && s.coord == "tf_half_pixel_for_nn") {
    a.fail("coordinate_transformation_mode 'tf_half_pixel_for_nn' applies to mode 'nearest' only");
  }

  // Operands: Upsample-7 'scales' attribute; Upsample-9 and Resize-10 (X, scales);
  // Resize-11+ (X, roi, scales, sizes) with empty tensors standing for omitted ones.
  const Tensor* roi = nullptr;
  const Tensor* scales = nullptr;
  const Tensor* sizes = nullptr;
  if (legacy) {
    scales = a.opt(1);
  } else {
    roi = a.opt(1);
    scales = a.opt(2);
    sizes = a.opt(3);
  }
  if (scales && scales->size() == 0) scales = nullptr;
  if (sizes && sizes->size() == 0) sizes = nullptr;
  if (roi && roi->size() == 0) roi = nullptr;
  if (scales) {
    s.scales = float_values(*scales);
  } else if (a.node.has_attr("scales")) {
    for (float f : a.node.attr_floats_or("scales", {})) s.scales.push_back(f);
  }
  if (sizes) {
    if (!s.scales.empty()) a.fail("takes 'scales' or 'sizes', not both");
    const std::vector<int64_t> v = sizes->to_int64();
    if (int64_t(v.size()) != r) a.fail(fmt::format("sizes {} must have {} entries", dims_string(v), r));
    s.out = v;
    for (int64_t i = 0; i < r; ++i) {
      if (v[size_t(i)] < 0) a.fail(fmt::format("sizes {} has a negative entry", dims_string(v)));
      s.scales.push_back(x.shape()[size_t(i)] == 0 ? 1.0 : double(v[size_t(i)]) / double(x.shape()[size_t(i)]));
    }
  } else {
    if (int64_t(s.scales.size()) != r) {
      a.fail(fmt::format("needs {} scales (or sizes) for an input of rank {}, got {}", r, r, s.scales.size()));
    }
    for (int64_t i = 0; i < r; ++i) {
      if (!(s.scales[size_t(i)] > 0)) a.fail(fmt::format("scale {} for axis {} must be positive", s.scales[size_t(i)], i));
      s.out.push_back(int64_t(std::floor(s.scales[size_t(i)] * double(x.shape()[size_t(i)]))));
    }
  }
  if (s.coord == "tf_crop_and_resize") {
    if (!roi) a.fail("coordinate_transformation_mode 'tf_crop_and_resize' needs 'roi' (input 1)");
    s.roi = float_values(*roi);
    if (int64_t(s.roi.size()) != 2 * r) a.fail(fmt::format("roi must have {} entries, got {}", 2 * r, s.roi.size()));
  }
  return s;
}

std::vector<double> coeffs(const ResizeSpec& s, double ratio) {
  if (s.mode == "linear") return {1.0 - ratio, ratio};
  const double A = s.cubic_a;
  const double t0 = ratio + 1, t1 = ratio, t2 = 1 - ratio, t3 = 2 - ratio;
  return {((A * t0 - 5 * A) * t0 + 8 * A) * t0 - 4 * A, ((A + 2) * t1 - (A + 3)) * t1 * t1 + 1,
          ((A + 2) * t2 - (A + 3)) * t2 * t2 + 1, ((A * t3 - 5 * A) * t3 + 8 * A) * t3 - 4 * A};
}

AxisTaps axis_taps(const ResizeSpec& s, size_t axis, int64_t in, int64_t out) {
  AxisTaps t;
  t.n = s.mode == "nearest" ? 1 : s.mode == "linear" ? 2 : 4;
  const double scale = s.scales[axis];
  const double out_w = scale * double(in);  // ONNX's reference uses scale * input size here
  t.identity = in == out;
  for (int64_t o = 0; o < out; ++o) {
    const double x = double(o);
    double xo = 0;
    bool extrapolate = false;
    if (s.coord == "align_corners") {
      xo = out_w == 1 ? 0.0 : x * double(in - 1) / (out_w - 1);
    } else if (s.coord == "asymmetric") {
      xo = x / scale;
    } else if (s.coord == "tf_crop_and_resize") {
      const double r0 = s.roi[axis], r1 = s.roi[axis + s.roi.size() / 2];
      xo = out_w == 1 ? (r1 - r0) * double(in - 1) / 2 : x * (r1 - r0) * double(in - 1) / (out_w - 1);
      xo += r0 * double(in - 1);
      extrapolate = xo < 0 || xo > double(in - 1);
    } else if (s.coord == "pytorch_half_pixel") {
      xo = out_w == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    } else if (s.coord == "half_pixel") {
      xo = (x + 0.5) / scale - 0.5;
    } else {  // tf_half_pixel_for_nn
      xo = (x + 0.5) / scale;
    }
    t.extrapolate.push_back(extrapolate);
    const bool integral = xo == std::floor(xo);
    auto clamp = [in](int64_t i) { return std::clamp(i, int64_t(0), in - 1); };
    if (s.mode == "nearest") {
      int64_t i = int64_t(std::floor(xo));
      if (!integral) {
        const double r = xo - std::floor(xo);
        if (s.nearest_mode == "round_prefer_floor") i += r > 0.5;
        else if (s.nearest_mode == "round_prefer_ceil") i += r >= 0.5;
        else if (s.nearest_mode == "ceil") i += 1;
      }
      t.index.push_back(clamp(i));
      t.weight.push_back(1.0);
      t.identity = t.identity && !extrapolate && clamp(i) == o;
      continue;
    }
    // The taps left of x_ori are preferred: base = ceil(x_ori) - 1, ratio in (0, 1].
    const int64_t base = integral ? int64_t(xo) - 1 : int64_t(std::floor(xo));
    const double ratio = xo - double(base);
    std::vector<double> w = coeffs(s, ratio);
    const int64_t first = t.n == 2 ? base : base - 1;
    if (s.exclude_outside) {
      double sum = 0;
      for (int64_t k = 0; k < t.n; ++k) {
        if (first + k < 0 || first + k >= in) w[size_t(k)] = 0;
        sum += w[size_t(k)];
      }
      for (double& v : w) v = sum != 0 ? v / sum : 0;
    }
    for (int64_t k = 0; k < t.n; ++k) {
      t.index.push_back(clamp(first + k));
      t.weight.push_back(w[size_t(k)]);
      const bool unit = (first + k == o) ? w[size_t(k)] == 1.0 : w[size_t(k)] == 0.0;
      t.identity = t.identity && !extrapolate && unit;
    }
  }
  return t;
}

// Nearest: a gather through per-axis index maps (any dtype); extrapolated positions take the
// extrapolation value.
Tensor resize_nearest(const Tensor& x, const ResizeSpec& s, const std::vector<AxisTaps>& taps) {
  const size_t r = size_t(x.rank());
  Tensor y(x.dtype(), s.out);
  if (y.size() == 0) return y;
  const size_t elem = graph::dtype_size(x.dtype());
  Tensor fill = Tensor::from_floats({}, {float(s.extrapolation)}).cast(x.dtype());
  if (x.dtype() == DType::kFloat64) *fill.data<double>() = s.extrapolation;
  const std::vector<int64_t> in_strides = strides_of(x.shape());
  std::vector<int64_t> idx(r, 0);
  const int64_t total = y.size();
  for (int64_t o = 0; o < total; ++o) {
    int64_t off = 0;
    bool extrapolate = false;
    for (size_t i = 0; i < r; ++i) {
      off += taps[i].index[size_t(idx[i])] * in_strides[i];
      extrapolate = extrapolate || taps[i].extrapolate[size_t(idx[i])];
    }
    std::memcpy(y.raw() + size_t(o) * elem, extrapolate ? fill.raw() : x.raw() + size_t(off) * elem, elem);
    for (size_t i = r; i-- > 0;) {
      if (++idx[i] < s.out[i]) break;
      idx[i] = 0;
    }
  }
  return y;
}

// Linear and cubic: one weighted 1-D pass per axis that changes, last axis first.
template <class T>
Tensor resize_separable(const Tensor& x, const ResizeSpec& s, const std::vector<AxisTaps>& taps) {
  Tensor cur = x;
  for (size_t i = taps.size(); i-- > 0;) {
    const AxisTaps& t = taps[i];
    if (t.identity) continue;
    Shape ns = cur.shape();
    ns[i] = s.out[i];
    Tensor next(x.dtype(), ns);
    const int64_t outer = product(cur.shape(), 0, i), in_len = cur.shape()[i], out_len = ns[i];
    const int64_t inner = product(cur.shape(), i + 1, cur.shape().size());
    const T* src = cur.data<T>();
    T* dst = next.data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < out_len; ++j) {
        T* d = dst + (o * out_len + j) * inner;
        if (t.extrapolate[size_t(j)]) {
          std::fill(d, d + inner, T(s.extrapolation));
          continue;
        }
        std::fill(d, d + inner, T(0));
        for (int64_t k = 0; k < t.n; ++k) {
          const T w = T(t.weight[size_t(j * t.n + k)]);
          if (w == T(0)) continue;
          const T* p = src + (o * in_len + t.index[size_t(j * t.n + k)]) * inner;
          for (int64_t q = 0; q < inner; ++q) d[q] += w * p[q];
        }
      }
    }
    cur = std::move(next);
  }
  return cur;
}

std::vector<Tensor> resize(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const ResizeSpec s = read_spec(a, x);
  std::vector<AxisTaps> taps;
  for (size_t i = 0; i < size_t(x.rank()); ++i) {
    if (x.shape()[i] == 0 && s.out[i] > 0) a.fail(fmt::format("cannot resize the empty axis {}", i));
    taps.push_back(axis_taps(s, i, x.shape()[i], s.out[i]));
  }
  if (s.mode == "nearest") return outputs(resize_nearest(x, s, taps));
  return outputs(dispatch_floating(a, x.dtype(), [&](auto tag) { return resize_separable<decltype(tag)>(x, s, taps); }));
}

}  // namespace

std::vector<Tensor> op_Resize(const OpArgs& a) { return resize(a); }
std::vector<Tensor> op_Upsample(const OpArgs& a) { return resize(a); }

}  // namespace tauvta::cpu
