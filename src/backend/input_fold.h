// A host-made input for a first layer with few channels: the kernel's columns, and when that
// needs fewer GEMM blocks still its rows too, folded into the channels. Columns only:
// x'[n][kx*C + c][h][ow] = x[n][c][h][ow*stride_w - pad_left + kx*dilation_w]; rows and columns:
// x'[n][(ky*KW + kx)*C + c][oh][ow] = x[n][c][oh*stride_h - pad_top + ky*dilation_h][...], zero
// outside (a host im2col). ResNet-18's 3-channel 7x7 conv1 then fills 147 of 160 GEMM lanes in
// 10 micro-ops per output vector instead of 3 of 16 in 49. The value it stands for is produced
// on the host anyway (by the input's Quantize).
//
// A rows-and-columns fold reads a 1x1 kernel with no padding, so spare lanes of its last block can
// hold constants at every position: with weights on them the GEMM adds the layer's bias and
// rounding constant (lower/bias_lanes.h) and the requantization needs no ALU ADD.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/tensor.h"
#include "hw/hw_config.h"
#include "lower/conv_lowering.h"

namespace tauvta::backend {

struct InputFold {
  std::string source;
  int64_t kernel_w = 1, stride_w = 1, pad_left = 0, dilation_w = 1, out_w = 1;
  // Rows: folded when out_h >= 0 (then the layer reads out_h rows of a 1x1 kernel).
  int64_t kernel_h = 1, stride_h = 1, pad_top = 0, dilation_h = 1, out_h = -1;
  // Channels after the folded ones holding one value everywhere (the bias lanes).
  std::vector<int64_t> constants;
  bool rows() const { return out_h >= 0; }
  int64_t folded_channels(int64_t source_channels) const {
    return source_channels * kernel_w * (rows() ? kernel_h : 1) + int64_t(constants.size());
  }
  bool operator==(const InputFold&) const = default;
};

graph::Tensor fold_input(const graph::Tensor& x, const InputFold& f);

// The fold that needs the fewest GEMM micro-ops per output vector for a convolution of `w`
// (blocks x remaining taps; the smaller copy on a tie): nullopt when folding gains nothing.
// `source` names the value folded; no constants yet.
std::optional<InputFold> choose_input_fold(const hw::HwConfig& c, const lower::ConvWorkload& w, const std::string& source);

// The value name of a fold (a fold of one source with the same geometry is shared).
std::string fold_value_name(const InputFold& f);

// Rewrites `spec` (workload and weights, [CO][C][KH][KW]) to read `f` instead of its source; with
// constants, also moves the bias and rounding constant into the weights of those lanes. Returns
// why that cannot be done (the bias does not fit the lanes), or "".
std::string apply_input_fold(const hw::HwConfig& c, lower::ConvLayerSpec& spec, const InputFold& f);

// The bias lanes a rows-and-columns fold of `spec` (not yet applied) takes: every spare lane of the
// last input block, when they carry its bias and rounding constant; empty when they do not or
// there is nothing to add.
std::vector<int64_t> bias_lane_constants(const hw::HwConfig& c, const lower::ConvLayerSpec& spec, const InputFold& f);

}  // namespace tauvta::backend
