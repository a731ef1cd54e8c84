// Conv and ConvTranspose (groups including depthwise, dilations, strides, explicit and automatic
// padding, output_padding/output_shape) as im2col / col2im around the blocked float GEMM.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "common/target_clones.h"
#include "cpu/float_gemm.h"
#include "cpu/float_ops_window.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

namespace {


// Floats of im2col matrix per band (4 MiB).
constexpr int64_t kColBudget = int64_t(1) << 20;

void check_float_operands(const OpArgs& a) {
  for (size_t i = 0; i < a.num_inputs() && i < 3; ++i) {
    if (a.opt(i)) a.expect_dtype(i, {DType::kFloat32});
  }
}

// Fills each output channel plane of one image with its bias (or zeros).
void fill_bias(float* y, int64_t channels, int64_t plane, const float* bias) {
  for (int64_t c = 0; c < channels; ++c) std::fill(y + c * plane, y + (c + 1) * plane, bias ? bias[c] : 0.0f);
}

// Depthwise (one input channel per group): a direct loop nest per output row. im2col + GEMM would
// run a one-row GEMM per channel, which packs more than it multiplies.
TAUVTA_TARGET_CLONES("avx512f", "avx2", "default") void depthwise_plane(const float* x, const float* w, float bias, const WindowGeometry& g, float* y) {
  const int64_t OD = g.iter[0], OH = g.iter[1], OW = g.iter[2];
  const int64_t ID = g.target[0], IH = g.target[1], IW = g.target[2];
  const int64_t sw = g.stride[2];
  std::fill(y, y + OD * OH * OW, bias);
  for (int64_t od = 0; od < OD; ++od) {
    for (int64_t oh = 0; oh < OH; ++oh) {
      float* yr = y + (od * OH + oh) * OW;
      for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
        const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
        if (id < 0 || id >= ID) continue;
        for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
          const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
          if (ih < 0 || ih >= IH) continue;
          const float* xr = x + (id * IH + ih) * IW;
          const float* wr = w + (kd * g.kernel[1] + kh) * g.kernel[2];
          for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
            const int64_t base = kw * g.dilation[2] - g.pad_begin[2];
            int64_t lo, hi;
            window_valid_range(base, sw, IW, OW, lo, hi);
            const float wv = wr[kw];
            if (sw == 1) {
              for (int64_t ow = lo; ow < hi; ++ow) yr[ow] += wv * xr[ow + base];
            } else {
              for (int64_t ow = lo; ow < hi; ++ow) yr[ow] += wv * xr[ow * sw + base];
            }
          }
        }
      }
    }
  }
}

}  // namespace

std::vector<Tensor> op_Conv(const OpArgs& a) {
  check_float_operands(a);
  const Tensor& x = a.in(0);
  const Tensor& w = a.in(1);
  const Tensor* b = a.opt(2);
  const int64_t group = a.node.attr_int_or("group", 1);
  if (x.rank() < 3 || w.rank() != x.rank()) {
    a.fail(fmt::format("input {} and weights {} must have the same rank >= 3", graph::shape_string(x.shape()),
                       graph::shape_string(w.shape())));
  }
  const int64_t N = x.shape()[0], C = x.shape()[1], M = w.shape()[0];
  if (group < 1 || C % group != 0 || M % group != 0 || w.shape()[1] * group != C) {
    a.fail(fmt::format("group {} does not fit input channels {} and weights {}", group, C,
                       graph::shape_string(w.shape())));
  }
  if (b && (b->rank() != 1 || b->shape()[0] != M)) {
    a.fail(fmt::format("bias shape {} must be [{}]", graph::shape_string(b->shape()), M));
  }
  const WindowGeometry g = conv_window(a, x.shape(), w.shape());
  Shape y_shape{N, M};
  for (int64_t d : g.unlift(g.iter)) y_shape.push_back(d);
  Tensor y(DType::kFloat32, y_shape);
  const int64_t Cg = C / group, Mg = M / group;
  const int64_t P = g.iter_size(), T = g.target_size(), K = Cg * g.kernel_size();
  bool pointwise = true;
  for (size_t i = 0; i < kMaxSpatial; ++i) {
    pointwise = pointwise && g.kernel[i] == 1 && g.stride[i] == 1 && g.pad_begin[i] == 0 && g.pad_end[i] == 0;
  }
  if (Cg == 1 && group > 1 && P > 0) {
    const float* xd = x.data<float>();
    const float* wd = w.data<float>();
    float* yd = y.data<float>();
    const int64_t KK = g.kernel_size();
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t m = 0; m < M; ++m) {
        depthwise_plane(xd + (n * C + m / Mg) * T, wd + m * KK, b ? b->data<float>()[m] : 0.0f, g,
                        yd + (n * M + m) * P);
      }
    }
    return outputs(std::move(y));
  }
  const float* xd = x.data<float>();
  const float* wd = w.data<float>();
  const float* bd = b ? b->data<float>() : nullptr;
  float* yd = y.data<float>();
  if (P == 0) return outputs(std::move(y));
  // im2col a band of output rows at a time, so the column matrix stays cache-sized whatever the
  // image size (a 3x3 conv over 224x224x64 would otherwise need a 115 MB matrix).
  const int64_t rows = g.iter[0] * g.iter[1], OW = g.iter[2];
  const int64_t band = pointwise ? rows : std::clamp<int64_t>(kColBudget / std::max<int64_t>(1, K * OW), 1, rows);
  std::vector<float> col(pointwise ? 0 : size_t(K * band * OW));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t gi = 0; gi < group; ++gi) {
      const float* src = xd + (n * C + gi * Cg) * T;
      float* dst = yd + (n * M + gi * Mg) * P;
      fill_bias(dst, Mg, P, bd ? bd + gi * Mg : nullptr);
      if (pointwise) {
        sgemm(Mg, P, K, 1.0f, wd + gi * Mg * K, K, false, src, P, false, dst, P, true);
        continue;
      }
      for (int64_t r0 = 0; r0 < rows; r0 += band) {
        const int64_t r1 = std::min(rows, r0 + band), cols = (r1 - r0) * OW;
        im2col(src, Cg, g, r0, r1, col.data());
        sgemm(Mg, cols, K, 1.0f, wd + gi * Mg * K, K, false, col.data(), cols, false, dst + r0 * OW, P, true);
      }
    }
  }
  return outputs(std::move(y));
}

std::vector<Tensor> op_ConvTranspose(const OpArgs& a) {
  check_float_operands(a);
  const Tensor& x = a.in(0);
  const Tensor& w = a.in(1);
  const Tensor* b = a.opt(2);
  const int64_t group = a.node.attr_int_or("group", 1);
  if (x.rank() < 3 || w.rank() != x.rank()) {
    a.fail(fmt::format("input {} and weights {} must have the same rank >= 3", graph::shape_string(x.shape()),
                       graph::shape_string(w.shape())));
  }
  const int64_t N = x.shape()[0], C = x.shape()[1];
  if (group < 1 || C % group != 0 || w.shape()[0] != C) {
    a.fail(fmt::format("group {} does not fit input channels {} and weights {}", group, C,
                       graph::shape_string(w.shape())));
  }
  const int64_t Cg = C / group, Mg = w.shape()[1], M = Mg * group;
  if (b && (b->rank() != 1 || b->shape()[0] != M)) {
    a.fail(fmt::format("bias shape {} must be [{}]", graph::shape_string(b->shape()), M));
  }
  const WindowGeometry g = conv_transpose_window(a, x.shape(), w.shape());
  Shape y_shape{N, M};
  for (int64_t d : g.unlift(g.target)) y_shape.push_back(d);
  Tensor y(DType::kFloat32, y_shape);
  const int64_t P = g.iter_size(), T = g.target_size(), K = Mg * g.kernel_size();
  std::vector<float> col(size_t(K * P));
  const float* xd = x.data<float>();
  const float* wd = w.data<float>();
  const float* bd = b ? b->data<float>() : nullptr;
  float* yd = y.data<float>();
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t gi = 0; gi < group; ++gi) {
      float* dst = yd + (n * M + gi * Mg) * T;
      fill_bias(dst, Mg, T, bd ? bd + gi * Mg : nullptr);
      if (P == 0 || T == 0) continue;
      // col[K, P] = W_g^T [K, Cg] * X_g [Cg, P], then scattered into the output.
      sgemm(K, P, Cg, 1.0f, wd + gi * Cg * K, K, true, xd + (n * C + gi * Cg) * P, P, false, col.data(), P,
            false);
      col2im(col.data(), Mg, g, dst);
    }
  }
  return outputs(std::move(y));
}

}  // namespace tauvta::cpu
