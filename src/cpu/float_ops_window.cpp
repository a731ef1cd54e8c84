#include "cpu/float_ops_window.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace tauvta::cpu {

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }


struct Common {
  size_t spatial;
  std::vector<int64_t> kernel, strides, dilations, pads;
  std::string auto_pad;
};

Common read_common(const OpArgs& a, const Shape& x_shape, std::vector<int64_t> kernel) {
  if (x_shape.size() < 3) {
    a.fail(fmt::format("input shape {} needs a batch, a channel and at least one spatial dimension",
                       graph::shape_string(x_shape)));
  }
  Common c;
  c.spatial = x_shape.size() - 2;
  if (c.spatial > kMaxSpatial) {
    a.fail(fmt::format("{} spatial dimensions; at most {} are supported", c.spatial, kMaxSpatial));
  }
  const std::vector<int64_t> ks = a.node.attr_ints_or("kernel_shape", {});
  if (!ks.empty() && !kernel.empty() && ks != kernel) {
    a.fail(fmt::format("kernel_shape {} disagrees with the weights' spatial shape {}", dims_string(ks),
                       dims_string(kernel)));
  }
  c.kernel = kernel.empty() ? ks : kernel;
  if (c.kernel.size() != c.spatial) {
    a.fail(fmt::format("kernel_shape {} does not have one entry per spatial dimension of {}",
                       dims_string(c.kernel), graph::shape_string(x_shape)));
  }
  c.strides = a.node.attr_ints_or("strides", std::vector<int64_t>(c.spatial, 1));
  c.dilations = a.node.attr_ints_or("dilations", std::vector<int64_t>(c.spatial, 1));
  c.pads = a.node.attr_ints_or("pads", std::vector<int64_t>(2 * c.spatial, 0));
  c.auto_pad = a.node.attr_string_or("auto_pad", "NOTSET");
  if (c.strides.size() != c.spatial || c.dilations.size() != c.spatial || c.pads.size() != 2 * c.spatial) {
    a.fail(fmt::format("strides {}, dilations {} or pads {} do not match {} spatial dimensions",
                       dims_string(c.strides), dims_string(c.dilations), dims_string(c.pads), c.spatial));
  }
  for (size_t i = 0; i < c.spatial; ++i) {
    if (c.kernel[i] < 1 || c.strides[i] < 1 || c.dilations[i] < 1 || c.pads[i] < 0 || c.pads[i + c.spatial] < 0) {
      a.fail(fmt::format("kernel {}, strides {}, dilations {} must be positive and pads {} non-negative",
                         dims_string(c.kernel), dims_string(c.strides), dims_string(c.dilations),
                         dims_string(c.pads)));
    }
  }
  if (c.auto_pad != "NOTSET" && c.auto_pad != "SAME_UPPER" && c.auto_pad != "SAME_LOWER" &&
      c.auto_pad != "VALID") {
    a.fail(fmt::format("auto_pad '{}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", c.auto_pad));
  }
  return c;
}

}  // namespace

void window_valid_range(int64_t base, int64_t s, int64_t n, int64_t iter_n, int64_t& lo, int64_t& hi) {
  lo = std::clamp(ceil_div(-base, s), int64_t(0), iter_n);
  hi = std::clamp(floor_div(n - 1 - base, s) + 1, lo, iter_n);
}

WindowGeometry conv_geometry(const OpArgs& a, const Shape& x_shape, std::vector<int64_t> kernel, bool ceil_mode) {
  const Common c = read_common(a, x_shape, std::move(kernel));
  WindowGeometry g;
  g.spatial = c.spatial;
  const size_t off = kMaxSpatial - c.spatial;
  for (size_t i = 0; i < c.spatial; ++i) {
    const int64_t in = x_shape[2 + i], k = c.kernel[i], s = c.strides[i], d = c.dilations[i];
    const int64_t span = (k - 1) * d + 1;
    int64_t pb = c.pads[i], pe = c.pads[i + c.spatial], out = 0;
    if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out = ceil_div(in, s);
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + span - in);
      pb = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else {
      if (c.auto_pad == "VALID") pb = pe = 0;
      const int64_t room = in + pb + pe - span;
      if (room < 0) {
        a.fail(fmt::format("window of {} (kernel {}, dilation {}) is larger than the padded input {} "
                           "along spatial axis {}",
                           span, k, d, in + pb + pe, i));
      }
      out = (ceil_mode ? ceil_div(room, s) : room / s) + 1;
      // A ceil-mode window that would start inside the end padding is dropped (PyTorch's rule,
      // ONNX's reference since 1.15; the frontend's shape inference agrees).
      if (ceil_mode && (out - 1) * s >= in + pb) --out;
    }
    g.iter[off + i] = out;
    g.target[off + i] = in;
    g.kernel[off + i] = k;
    g.stride[off + i] = s;
    g.dilation[off + i] = d;
    g.pad_begin[off + i] = pb;
    g.pad_end[off + i] = pe;
  }
  return g;
}

WindowGeometry conv_transpose_geometry(const OpArgs& a, const Shape& x_shape, std::vector<int64_t> kernel) {
  const Common c = read_common(a, x_shape, std::move(kernel));
  const std::vector<int64_t> out_pad = a.node.attr_ints_or("output_padding", std::vector<int64_t>(c.spatial, 0));
  std::vector<int64_t> out_shape = a.node.attr_ints_or("output_shape", {});
  if (out_shape.size() == c.spatial + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (out_pad.size() != c.spatial || (!out_shape.empty() && out_shape.size() != c.spatial)) {
    a.fail(fmt::format("output_padding {} or output_shape {} do not match {} spatial dimensions",
                       dims_string(out_pad), dims_string(out_shape), c.spatial));
  }
  WindowGeometry g;
  g.spatial = c.spatial;
  const size_t off = kMaxSpatial - c.spatial;
  for (size_t i = 0; i < c.spatial; ++i) {
    const int64_t in = x_shape[2 + i], k = c.kernel[i], s = c.strides[i], d = c.dilations[i];
    const int64_t full = s * (in - 1) + out_pad[i] + (k - 1) * d + 1;
    int64_t pb = c.pads[i], pe = c.pads[i + c.spatial], out = 0;
    if (!out_shape.empty() || c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out = !out_shape.empty() ? out_shape[i] : in * s;
      // Padding removes the surplus of the full output; a requested size beyond the full output
      // is reached at the end (onnxruntime's rule), SAME_UPPER keeps the larger half at the end.
      const int64_t total = std::max<int64_t>(0, full - out);
      pb = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else {
      if (c.auto_pad == "VALID") pb = pe = 0;
      out = full - pb - pe;
    }
    if (out < 0) a.fail(fmt::format("output size {} along spatial axis {} is negative", out, i));
    g.iter[off + i] = in;
    g.target[off + i] = out;
    g.kernel[off + i] = k;
    g.stride[off + i] = s;
    g.dilation[off + i] = d;
    g.pad_begin[off + i] = pb;
    g.pad_end[off + i] = pe;
  }
  return g;
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
