// Sliding-window geometry shared by Conv, ConvTranspose and the pooling operators: kernel,
// strides, dilations, pads (explicit or auto_pad) and output sizes, lifted to three spatial
// dimensions (1-D and 2-D windows get leading unit dimensions) so one loop nest serves all.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cpu/float_ops_common.h"

namespace tauvta::cpu {

constexpr size_t kMaxSpatial = 3;
using Dims3 = std::array<int64_t, kMaxSpatial>;

// `iter` positions map onto `target` positions: target = iter*stride - pad_begin + k*dilation.
// Conv/pooling: iter = output, target = input. ConvTranspose: iter = input, target = output.
struct WindowGeometry {
  size_t spatial = 0;  // the operator's own number of spatial dimensions (1..3)
  Dims3 iter{1, 1, 1}, target{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1},
      pad_begin{0, 0, 0}, pad_end{0, 0, 0};
  int64_t iter_size() const { return iter[0] * iter[1] * iter[2]; }
  int64_t target_size() const { return target[0] * target[1] * target[2]; }
  int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  // The operator's spatial output dimensions (unlifted).
  std::vector<int64_t> unlift(const Dims3& d) const {
    return std::vector<int64_t>(d.begin() + int64_t(kMaxSpatial - spatial), d.end());
  }
};

// The node's window (graph/conv_geometry.h: the one definition of every padding rule, shared
// with shape inference and the integer executor) lifted to three spatial dimensions.
// Conv: x [N, C, ...], w [M, C/group, ...]; pools: x only; ConvTranspose: x and w [C, M/group, ...].
WindowGeometry conv_window(const OpArgs& a, const Shape& x_shape, const Shape& w_shape);
WindowGeometry pool_window(const OpArgs& a, const Shape& x_shape);
WindowGeometry conv_transpose_window(const OpArgs& a, const Shape& x_shape, const Shape& w_shape);

// The iter positions o in [lo, hi) (within [0, iter_n)) whose target o*stride + base lies in
// [0, target_n).
void window_valid_range(int64_t base, int64_t stride, int64_t target_n, int64_t iter_n, int64_t& lo, int64_t& hi);

// col[(c, kd, kh, kw)][iter position] = src[c][target position], 0 outside the target, for the
// iter rows (flattened (d, h) positions, each of iter[2] columns) in [row_begin, row_end).
void im2col(const float* src, int64_t channels, const WindowGeometry& g, int64_t row_begin, int64_t row_end,
            float* col);
// dst[c][target position] += col[(c, kd, kh, kw)][iter position] where inside the target.
void col2im(const float* col, int64_t channels, const WindowGeometry& g, float* dst);

}  // namespace tauvta::cpu
