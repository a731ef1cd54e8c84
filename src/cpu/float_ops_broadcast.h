// NumPy broadcasting as runs: the output index space is walked with the innermost (collapsed)
// dimension handed to the callback as one run, so elementwise kernels keep a tight inner loop
// whatever the broadcast pattern (same shape, scalar, per-channel, outer product).
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/float_ops_dispatch.h"
#include "graph/tensor.h"

namespace tauvta::cpu {

struct BroadcastPlan {
  std::vector<int64_t> dims;                // collapsed output dimensions (at least one)
  std::vector<int64_t> a_strides, b_strides;  // element strides, 0 along broadcast dimensions
};

// Element strides of a tensor of shape `s` read as a rank-`rank` broadcast operand: right-aligned,
// 0 along its size-1 (and missing leading) dimensions.
std::vector<int64_t> broadcast_strides(const graph::Shape& s, size_t rank);

// `src` repeated along its size-1 and missing leading dimensions into shape `out` (which must be
// a broadcast of src's shape), row by row: the innermost dimension is a memcpy or a fill.
graph::Tensor broadcast_to(const graph::Tensor& src, const graph::Shape& out);

// `out` must be the broadcast of `a` and `b` (ranks may differ; shapes are right-aligned).
BroadcastPlan plan_broadcast(const graph::Shape& out, const graph::Shape& a, const graph::Shape& b);

// f(out_offset, a_offset, b_offset, n, a_step, b_step) for each innermost run of n elements.
template <class F>
void for_each_broadcast_run(const BroadcastPlan& p, F&& f) {
  const size_t r = p.dims.size();
  const int64_t n = p.dims[r - 1];
  for (int64_t d : p.dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> idx(r, 0);
  int64_t out_off = 0, a_off = 0, b_off = 0;
  const int64_t as = p.a_strides[r - 1], bs = p.b_strides[r - 1];
  while (true) {
    f(out_off, a_off, b_off, n, as, bs);
    out_off += n;
    // Advance the odometer over the outer dimensions.
    size_t k = r - 1;
    while (true) {
      if (k == 0) return;
      --k;
      ++idx[k];
      a_off += p.a_strides[k];
      b_off += p.b_strides[k];
      if (idx[k] < p.dims[k]) break;
      a_off -= p.a_strides[k] * p.dims[k];
      b_off -= p.b_strides[k] * p.dims[k];
      idx[k] = 0;
    }
  }
}

// out[i] = op(x[i], y[i]) under NumPy broadcasting, with tight loops for the same-shape and
// scalar-operand runs. TA, TB: the operands' element types; TO: the output's (bool for
// comparisons). `out` must already have the broadcast shape.
template <class TA, class TB, class TO, class Op>
void broadcast_binary(const graph::Tensor& x, const graph::Tensor& y, graph::Tensor& out, Op op) {
  const TA* a = x.data<TA>();
  const TB* b = y.data<TB>();
  TO* o = out.data<TO>();
  for_each_broadcast_run(plan_broadcast(out.shape(), x.shape(), y.shape()),
                         [&](int64_t oo, int64_t ao, int64_t bo, int64_t n, int64_t as, int64_t bs) {
                           const TA* pa = a + ao;
                           const TB* pb = b + bo;
                           TO* po = o + oo;
                           if (as == 1 && bs == 1) {
                             for (int64_t i = 0; i < n; ++i) po[i] = op(pa[i], pb[i]);
                           } else if (as == 0 && bs == 1) {
                             const TA va = *pa;
                             for (int64_t i = 0; i < n; ++i) po[i] = op(va, pb[i]);
                           } else if (as == 1 && bs == 0) {
                             const TB vb = *pb;
                             for (int64_t i = 0; i < n; ++i) po[i] = op(pa[i], vb);
                           } else {
                             for (int64_t i = 0; i < n; ++i) po[i] = op(pa[i * as], pb[i * bs]);
                           }
                         });
}

// A variadic operator's operands (one or more, one dtype) folded left to right under broadcasting:
// acc = op(acc, in(i)). `make_op(tag)` returns the (T, T) -> T combination for the element type of
// `tag` (Max and Min, Sum and Mean).
template <class MakeOp>
graph::Tensor fold_operands(const OpArgs& a, MakeOp make_op) {
  if (a.num_inputs() == 0) a.fail("needs at least one input");
  graph::Tensor acc = a.in(0);
  for (size_t i = 1; i < a.num_inputs(); ++i) {
    const graph::Tensor& y = a.in(i);
    expect_same_dtype(a, acc, y);
    graph::Tensor out(acc.dtype(), broadcast_shapes(a, acc.shape(), y.shape()));
    dispatch_numeric(a, acc.dtype(), [&](auto tag) {
      using T = decltype(tag);
      broadcast_binary<T, T, T>(acc, y, out, make_op(tag));
    });
    acc = std::move(out);
  }
  return acc;
}

}  // namespace tauvta::cpu
