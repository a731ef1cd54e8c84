#include "cpu/float_ops_window.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "graph/conv_geometry.h"

namespace tauvta::cpu {

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }


// Conv and pools: iter = output positions, target = input positions; ConvTranspose the reverse.
WindowGeometry lift(const OpArgs& a, const graph::WindowGeometry& w, const Shape& x_shape, bool transpose) {
  WindowGeometry g;
  g.spatial = w.spatial_rank();
  if (g.spatial > kMaxSpatial) {
    a.fail(fmt::format("{} spatial dimensions; at most {} are supported", g.spatial, kMaxSpatial));
  }
  const size_t off = kMaxSpatial - g.spatial;
  for (size_t i = 0; i < g.spatial; ++i) {
    const int64_t in = x_shape[2 + i], out = w.output[i];
    if (out < 0) a.fail(fmt::format("output size {} along spatial axis {} is negative", out, i));
    g.iter[off + i] = transpose ? in : out;
    g.target[off + i] = transpose ? out : in;
    g.kernel[off + i] = w.kernel[i];
    g.stride[off + i] = w.strides[i];
    g.dilation[off + i] = w.dilations[i];
    g.pad_begin[off + i] = w.pads_begin[i];
    g.pad_end[off + i] = w.pads_end[i];
  }
  return g;
}

}  // namespace

void window_valid_range(int64_t base, int64_t s, int64_t n, int64_t iter_n, int64_t& lo, int64_t& hi) {
  lo = std::clamp(ceil_div(-base, s), int64_t(0), iter_n);
  hi = std::clamp(floor_div(n - 1 - base, s) + 1, lo, iter_n);
}

WindowGeometry conv_window(const OpArgs& a, const Shape& x_shape, const Shape& w_shape) {
  return lift(a, graph::conv_geometry(a.node, x_shape, w_shape), x_shape, false);
}

WindowGeometry pool_window(const OpArgs& a, const Shape& x_shape) {
  return lift(a, graph::pool_geometry(a.node, x_shape), x_shape, false);
}

WindowGeometry conv_transpose_window(const OpArgs& a, const Shape& x_shape, const Shape& w_shape) {
  return lift(a, graph::conv_transpose_geometry(a.node, x_shape, w_shape), x_shape, true);
}

void im2col(const float* src, int64_t channels, const WindowGeometry& g, int64_t row_begin, int64_t row_end,
            float* col) {
  const int64_t OH = g.iter[1], OW = g.iter[2];
  const int64_t ID = g.target[0], IH = g.target[1], IW = g.target[2];
  const int64_t P = (row_end - row_begin) * OW;
  for (int64_t c = 0; c < channels; ++c) {
    const float* sc = src + c * g.target_size();
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          float* row = col + (((c * g.kernel[0] + kd) * g.kernel[1] + kh) * g.kernel[2] + kw) * P;
          const int64_t bw = kw * g.dilation[2] - g.pad_begin[2];
          int64_t lo, hi;
          window_valid_range(bw, g.stride[2], IW, OW, lo, hi);
          for (int64_t r = row_begin; r < row_end; ++r) {
            const int64_t od = r / OH, oh = r % OH;
            const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
            const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
            float* dst = row + (r - row_begin) * OW;
            if (id < 0 || id >= ID || ih < 0 || ih >= IH) {
              std::fill(dst, dst + OW, 0.0f);
              continue;
            }
            const float* s = sc + (id * IH + ih) * IW;
            std::fill(dst, dst + lo, 0.0f);
            if (g.stride[2] == 1) {
              if (hi > lo) std::memcpy(dst + lo, s + lo + bw, size_t(hi - lo) * sizeof(float));
            } else {
              const int64_t st = g.stride[2];
              for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = s[ow * st + bw];
            }
            std::fill(dst + hi, dst + OW, 0.0f);
          }
        }
      }
    }
  }
}

void col2im(const float* col, int64_t channels, const WindowGeometry& g, float* dst) {
  const int64_t ID = g.iter[0], IH = g.iter[1], IW = g.iter[2];  // iterated (small) side
  const int64_t OD = g.target[0], OH = g.target[1], OW = g.target[2];
  const int64_t P = g.iter_size();
  for (int64_t c = 0; c < channels; ++c) {
    float* dc = dst + c * g.target_size();
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          const float* row = col + (((c * g.kernel[0] + kd) * g.kernel[1] + kh) * g.kernel[2] + kw) * P;
          const int64_t bw = kw * g.dilation[2] - g.pad_begin[2];
          int64_t lo, hi;
          window_valid_range(bw, g.stride[2], OW, IW, lo, hi);
          for (int64_t id = 0; id < ID; ++id) {
            const int64_t od = id * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
            if (od < 0 || od >= OD) continue;
            for (int64_t ih = 0; ih < IH; ++ih) {
              const int64_t oh = ih * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
              if (oh < 0 || oh >= OH) continue;
              const float* s = row + (id * IH + ih) * IW;
              float* d = dc + (od * OH + oh) * OW;
              const int64_t st = g.stride[2];
              for (int64_t iw = lo; iw < hi; ++iw) d[iw * st + bw] += s[iw];
            }
          }
        }
      }
    }
  }
}

}  // namespace tauvta::cpu
