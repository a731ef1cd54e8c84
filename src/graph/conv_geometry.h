// The sliding-window geometry of Conv, ConvTranspose, MaxPool and AveragePool, resolved once from
// a node's attributes and its input (and weight) shapes: kernel, strides, dilations, explicit
// begin/end pads (auto_pad, ceil_mode and ConvTranspose's output_shape already applied) and the
// output's spatial size. Shape inference, the executors and the MAC counter all use it, so they
// agree on every padding rule.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "graph/tensor.h"

namespace tauvta::graph {

struct WindowGeometry {
  int64_t group = 1;
  std::vector<int64_t> kernel, strides, dilations;
  std::vector<int64_t> pads_begin, pads_end;
  // Spatial output size; -1 where an input dimension is unknown.
  std::vector<int64_t> output;
  // ConvTranspose only: output_padding (extra rows at the end, already counted in `output`).
  std::vector<int64_t> output_padding;
  bool ceil_mode = false;          // pools
  bool count_include_pad = false;  // AveragePool

  size_t spatial_rank() const { return kernel.size(); }
};

// x: [N, C, D1..Dk]; w: [M, C/group, K1..Kk]. Conv output: [N, M, output...].
// Pads follow ONNX: SAME_UPPER puts the odd pad at the end, SAME_LOWER at the beginning.
WindowGeometry conv_geometry(const Node& n, const Shape& x, const Shape& w);

// x: [N, C, D1..Dk]; w: [C, M/group, K1..Kk]. Output: [N, M, output...]. Output position
// o = i * stride + k * dilation - pads_begin; pads_end may be negative when output_shape asks for
// more rows than the full result has (they stay zero, plus bias).
WindowGeometry conv_transpose_geometry(const Node& n, const Shape& x, const Shape& w);

// MaxPool / AveragePool: x: [N, C, D1..Dk]; kernel_shape required. With ceil_mode the last window
// must start inside the input or its begin padding.
WindowGeometry pool_geometry(const Node& n, const Shape& x);

}  // namespace tauvta::graph
