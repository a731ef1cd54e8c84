// The integer executor's operator kernels. Each takes the node, its input tensors (nullptr for an
// omitted optional input) and the node's plan (constants packed once per graph), and returns
// int32 output tensors. Arithmetic goes through cpu/int_ops_arith.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cpu/int_executor.h"
#include "cpu/int_ops_arith.h"
#include "cpu/int_ops_gemm.h"
#include "graph/conv_geometry.h"
#include "graph/graph.h"
#include "graph/tensor.h"

namespace tauvta::cpu {

using IntInputs = std::vector<const graph::Tensor*>;

// Input i of an integer node; throws naming the node when it is missing.
const graph::Tensor& need_input(const graph::Node& n, const IntInputs& in, size_t i);

// What a requantizing node needs at run time, prepared once.
struct IntNodePlan {
  Requant rq;
  std::vector<int64_t> shifts;  // per output channel (QConv, QConvTranspose, QGemm), else one
  std::vector<int64_t> bias;    // per output channel, zeros when absent
  // The GEMM path (int16 operands, accumulator <= 32 bits): QConv/QConvTranspose weights as one
  // row panel per group, QGemm weights as a pair panel.
  bool gemm = false;
  std::vector<RowPanel> rows;
  PairPanel pairs;
  std::vector<int64_t> weights;  // all weights as int64 (the reference loops)
  // Bounds of |sum| per unit of |input|: the largest row sum of |weights| over an output channel
  // (a transposed convolution's output sums at most that), and the largest |bias|.
  int64_t max_abs_row = 0, max_abs_bias = 0;
};

// A 1-D or 2-D window (Conv, ConvTranspose, pools) as 2-D: a 1-D one has height 1.
struct Window2D {
  int64_t group = 1, kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t ph = 0, pw = 0, phe = 0, pwe = 0;  // begin and end pads
  int64_t oh = 1, ow = 1;                    // output size
};
// Throws naming the node for 3-D windows.
Window2D window_2d(const graph::Node& n, const graph::WindowGeometry& g);

// Reads the requantization attributes (acc_bits, out_bits, clip_min, clip_max) of `n`.
Requant requant_of(const graph::Node& n);

// Builds the plan of a node with constant operands; nullptr for operators without one.
std::unique_ptr<IntNodePlan> plan_int_node(const graph::Node& n, const graph::Graph& g, const IntRunOptions& o);

// Integer tensors are int32; operands given as other integer dtypes are read exactly.
graph::Tensor int_tensor(const graph::Shape& shape, const std::vector<int64_t>& values);
std::vector<int64_t> int_values(const graph::Tensor& t);

// Linear layers (int_ops_linear.cpp).
graph::Tensor run_qconv(const graph::Node& n, const IntInputs& in, const IntNodePlan& p, const IntRunOptions& o);
graph::Tensor run_qconv_transpose(const graph::Node& n, const IntInputs& in, const IntNodePlan& p,
                                  const IntRunOptions& o);
graph::Tensor run_qgemm(const graph::Node& n, const IntInputs& in, const IntNodePlan& p, const IntRunOptions& o);
graph::Tensor run_qmatmul(const graph::Node& n, const IntInputs& in);

// Elementwise, pooling, concatenation, format conversion (int_ops_elementwise.cpp).
graph::Tensor run_qbinary(const graph::Node& n, const IntInputs& in);  // QAdd, QSub, QMul
graph::Tensor run_qclip(const graph::Node& n, const IntInputs& in);
graph::Tensor run_qaverage_pool(const graph::Node& n, const IntInputs& in);  // and QGlobalAveragePool
graph::Tensor run_qconcat(const graph::Node& n, const IntInputs& in);
graph::Tensor run_quantize(const graph::Node& n, const IntInputs& in);
graph::Tensor run_dequantize(const graph::Node& n, const IntInputs& in);

// Splits [0, count) over up to `threads` workers (0: hardware threads); fn(begin, end).
void parallel_for(int64_t count, int threads, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace tauvta::cpu
