// The blocked float GEMM against a plain triple loop, for every micro-kernel this CPU can run,
// over sizes around the register tile and cache block edges, both transposes, alpha and
// accumulation; then the Gemm and MatMul operators on top of it.
#include <random>

#include "common/error.h"
#include "cpu/float_gemm.h"
#include "float_test_util.h"

namespace tauvta::cpu {
namespace {

using namespace testing_util;

TEST(FloatGemm, EveryMicroKernelMatchesTheTripleLoop) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-1, 1);
  const std::vector<std::array<int64_t, 3>> sizes = {{1, 1, 1},   {7, 33, 5},   {8, 32, 256}, {9, 31, 257},
                                                     {145, 17, 3}, {6, 3073, 2}, {13, 1, 300}, {1, 50, 513}};
  for (GemmIsa isa : available_gemm_isas()) {
    for (const auto& [M, N, K] : sizes) {
      for (int variant = 0; variant < 8; ++variant) {
        const bool ta = variant & 1, tb = variant & 2, acc = variant & 4;
        const float alpha = variant == 5 ? -0.5f : 1.0f;
        std::vector<float> A(size_t(M * K)), B(size_t(K * N)), C(size_t(M * N));
        for (float& v : A) v = d(rng);
        for (float& v : B) v = d(rng);
        for (float& v : C) v = d(rng);
        std::vector<float> ref = C;
        for (int64_t i = 0; i < M; ++i) {
          for (int64_t j = 0; j < N; ++j) {
            double s = 0;
            for (int64_t k = 0; k < K; ++k) {
              s += double(ta ? A[size_t(k * M + i)] : A[size_t(i * K + k)]) * (tb ? B[size_t(j * K + k)] : B[size_t(k * N + j)]);
            }
            ref[size_t(i * N + j)] = float(alpha * s + (acc ? C[size_t(i * N + j)] : 0.0));
          }
        }
        sgemm_isa(isa, M, N, K, alpha, A.data(), ta ? M : K, ta, B.data(), tb ? K : N, tb, C.data(), N, acc);
        for (size_t i = 0; i < C.size(); ++i) {
          ASSERT_NEAR(C[i], ref[i], 1e-4 * (1 + std::fabs(ref[i])))
              << gemm_isa_name(isa) << " M=" << M << " N=" << N << " K=" << K << " variant " << variant << " at " << i;
        }
      }
    }
  }
}

TEST(FloatGemm, GemmOperatorAttributesAndBias) {
  Tensor a = Tensor::from_floats({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = Tensor::from_floats({3, 2}, {1, 0, 0, 1, 1, 1});
  Tensor c = Tensor::from_floats({2}, {10, 20});
  // A*B = [[4,5],[10,11]]; alpha 2, beta 0.5, C broadcast along rows.
  EXPECT_TRUE(near(eval1("Gemm", {&a, &b, &c}, {{"alpha", 2.0f}, {"beta", 0.5f}}), {2, 2}, {13, 20, 25, 32}));
  Tensor at = eval1("Transpose", {&a});
  Tensor bt = eval1("Transpose", {&b});
  EXPECT_TRUE(near(eval1("Gemm", {&at, &bt}, {{"transA", int64_t(1)}, {"transB", int64_t(1)}}), {2, 2}, {4, 5, 10, 11}));
  Tensor col = Tensor::from_floats({2, 1}, {1, -1});
  EXPECT_TRUE(near(eval1("Gemm", {&a, &b, &col}), {2, 2}, {5, 6, 9, 10}));
  Tensor bad = Tensor::from_floats({3}, {1, 2, 3});
  EXPECT_THROW(eval1("Gemm", {&a, &b, &bad}), Error);
}

TEST(FloatGemm, MatMulBatchesAndBroadcasts) {
  Tensor a = iota({2, 1, 2, 3});  // two batches
  Tensor b = Tensor::from_floats({3, 1}, {1, 1, 1});
  EXPECT_TRUE(near(eval1("MatMul", {&a, &b}), {2, 1, 2, 1}, {6, 15, 24, 33}));
  Tensor b3 = Tensor::from_floats({3, 3, 1}, {1, 0, 0, 0, 1, 0, 0, 0, 1});  // picks column 0, 1, 2
  Tensor y = eval1("MatMul", {&a, &b3});
  EXPECT_TRUE(near(y, {2, 3, 2, 1}, {1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12}));
  Tensor v = Tensor::from_floats({3}, {1, 2, 3});
  EXPECT_TRUE(near(eval1("MatMul", {&v, &v}), {}, {14}));
  Tensor m = iota({3, 2});
  EXPECT_TRUE(near(eval1("MatMul", {&v, &m}), {2}, {22, 28}));
  EXPECT_THROW(eval1("MatMul", {&m, &m}), Error);
}

}  // namespace
}  // namespace tauvta::cpu
