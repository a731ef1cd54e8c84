// The float GEMM every heavy float kernel (Conv, ConvTranspose, Gemm, MatMul) runs on: packed
// panels, cache blocking and a register-tiled micro-kernel chosen at run time for the CPU
// (AVX-512, AVX2+FMA, or portable C++). Single-threaded and deterministic for a given ISA.
#pragma once

#include <cstdint>
#include <vector>

namespace tauvta::cpu {

enum class GemmIsa { kPortable, kAvx2, kAvx512 };
const char* gemm_isa_name(GemmIsa isa);
std::vector<GemmIsa> available_gemm_isas();  // portable first, best last
GemmIsa best_gemm_isa();

// C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + (accumulate ? C : 0), all row-major with leading
// dimensions lda/ldb/ldc; op(A)[i][k] = transA ? A[k*lda+i] : A[i*lda+k] (likewise B).
void sgemm(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, bool transA,
           const float* B, int64_t ldb, bool transB, float* C, int64_t ldc, bool accumulate);
// The same on a chosen micro-kernel (tests run every available one against a simple loop).
void sgemm_isa(GemmIsa isa, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
               bool transA, const float* B, int64_t ldb, bool transB, float* C, int64_t ldc,
               bool accumulate);

}  // namespace tauvta::cpu
