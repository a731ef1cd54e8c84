// Gemm (alpha, beta, transA, transB, unidirectionally broadcast C) and MatMul (NumPy semantics:
// 1-D promotion, broadcast batch dimensions) on the blocked float GEMM.
#include <algorithm>

#include <fmt/format.h>

#include "cpu/float_gemm.h"
#include "cpu/float_ops_broadcast.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

std::vector<Tensor> op_Gemm(const OpArgs& a) {
  a.expect_dtype(0, {DType::kFloat32});
  a.expect_dtype(1, {DType::kFloat32});
  const Tensor& A = a.in(0);
  const Tensor& B = a.in(1);
  const Tensor* C = a.opt(2);
  if (C) a.expect_dtype(2, {DType::kFloat32});
  const float alpha = a.node.attr_float_or("alpha", 1.0f);
  const float beta = a.node.attr_float_or("beta", 1.0f);
  const bool ta = a.node.attr_int_or("transA", 0) != 0;
  const bool tb = a.node.attr_int_or("transB", 0) != 0;
  if (A.rank() != 2 || B.rank() != 2) {
    a.fail(fmt::format("A {} and B {} must be matrices", graph::shape_string(A.shape()), graph::shape_string(B.shape())));
  }
  const int64_t M = ta ? A.shape()[1] : A.shape()[0], K = ta ? A.shape()[0] : A.shape()[1];
  const int64_t KB = tb ? B.shape()[1] : B.shape()[0], N = tb ? B.shape()[0] : B.shape()[1];
  if (K != KB) {
    a.fail(fmt::format("inner dimensions differ: A {} (transA={}) and B {} (transB={})", graph::shape_string(A.shape()),
                       int(ta), graph::shape_string(B.shape()), int(tb)));
  }
  Tensor Y(DType::kFloat32, {M, N});
  float* y = Y.data<float>();
  bool accumulate = false;
  if (C && beta != 0.0f) {
    const Shape bs = broadcast_shapes(a, {M, N}, C->shape());
    if (bs != Shape{M, N}) {
      a.fail(fmt::format("C {} does not broadcast to [{},{}]", graph::shape_string(C->shape()), M, N));
    }
    const float* c = C->data<float>();
    for_each_broadcast_run(plan_broadcast(Y.shape(), Y.shape(), C->shape()),
                           [&](int64_t oo, int64_t, int64_t co, int64_t n, int64_t, int64_t cs) {
                             for (int64_t i = 0; i < n; ++i) y[oo + i] = beta * c[co + i * cs];
                           });
    accumulate = true;
  }
  sgemm(M, N, K, alpha, A.data<float>(), A.shape()[1], ta, B.data<float>(), B.shape()[1], tb, y, N, accumulate);
  return outputs(std::move(Y));
}

std::vector<Tensor> op_MatMul(const OpArgs& a) {
  a.expect_dtype(0, {DType::kFloat32});
  a.expect_dtype(1, {DType::kFloat32});
  const Tensor& A = a.in(0);
  const Tensor& B = a.in(1);
  if (A.rank() == 0 || B.rank() == 0) a.fail("operands must have rank >= 1");
  Shape as = A.shape(), bs = B.shape();
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K) {
    a.fail(fmt::format("inner dimensions differ: {} x {}", graph::shape_string(A.shape()), graph::shape_string(B.shape())));
  }
  const Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  const Shape batch = broadcast_shapes(a, a_batch, b_batch);
  Shape out_shape = batch;
  if (!a_vec) out_shape.push_back(M);
  if (!b_vec) out_shape.push_back(N);
  Tensor Y(DType::kFloat32, out_shape);
  const float* pa = A.data<float>();
  const float* pb = B.data<float>();
  float* py = Y.data<float>();
  if (Y.size() == 0) return outputs(std::move(Y));
  if (b_batch.empty() || graph::num_elements(b_batch) == 1) {
    // B is one matrix: a single GEMM with A's batch folded into its rows (the output batch has
    // exactly A's elements).
    sgemm(graph::num_elements(a_batch) * M, N, K, 1.0f, pa, K, false, pb, N, false, py, N, false);
    return outputs(std::move(Y));
  }
  // Per batch element: offsets from the broadcast of the batch shapes.
  const BroadcastPlan plan = plan_broadcast(batch, a_batch, b_batch);
  for_each_broadcast_run(plan, [&](int64_t oo, int64_t ao, int64_t bo, int64_t n, int64_t as_, int64_t bs_) {
    for (int64_t i = 0; i < n; ++i) {
      sgemm(M, N, K, 1.0f, pa + (ao + i * as_) * M * K, K, false, pb + (bo + i * bs_) * K * N, N, false,
            py + (oo + i) * M * N, N, false);
    }
  });
  return outputs(std::move(Y));
}

}  // namespace tauvta::cpu
