#include "cpu/float_gemm.h"

#include <algorithm>
#include <cstring>

#include "common/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TAUVTA_X86 1
#define TAUVTA_AVX512 __attribute__((target("avx512f")))
#define TAUVTA_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace tauvta::cpu {

namespace {

// Blocking: a KC x NR slice of B stays in L1 while MC x KC of A streams from L2.
constexpr int64_t kKC = 256;
constexpr int64_t kMC = 144;  // a multiple of every MR below
constexpr int64_t kNC = 3072;

// The micro-kernel computes the MR x NR tile C = sum_k a[k][0..MR) * b[k][0..NR) (packed panels)
// and stores it to c (ldc) or adds it there.
using MicroKernel = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             bool overwrite);

struct KernelInfo {
  int64_t mr, nr;
  MicroKernel fn;
};

template <int MR, int NR>
void kernel_portable(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool overwrite) {
  float acc[MR][NR] = {};
  for (int64_t k = 0; k < kc; ++k) {
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const float ar = a[r];
#pragma GCC unroll 16
      for (int j = 0; j < NR; ++j) acc[r][j] += ar * b[j];
    }
    a += MR;
    b += NR;
  }
  for (int r = 0; r < MR; ++r) {
    float* cr = c + r * ldc;
    if (overwrite) {
      for (int j = 0; j < NR; ++j) cr[j] = acc[r][j];
    } else {
      for (int j = 0; j < NR; ++j) cr[j] += acc[r][j];
    }
  }
}

#ifdef TAUVTA_X86
TAUVTA_AVX2 void kernel_avx2_6x16(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                                  bool overwrite) {
  __m256 acc[6][2];
#pragma GCC unroll 6
  for (int r = 0; r < 6; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int r = 0; r < 6; ++r) {
      const __m256 ar = _mm256_broadcast_ss(a + r);
      acc[r][0] = _mm256_fmadd_ps(ar, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(ar, b1, acc[r][1]);
    }
    a += 6;
    b += 16;
  }
#pragma GCC unroll 6
  for (int r = 0; r < 6; ++r) {
    float* cr = c + r * ldc;
    if (!overwrite) {
      acc[r][0] = _mm256_add_ps(acc[r][0], _mm256_loadu_ps(cr));
      acc[r][1] = _mm256_add_ps(acc[r][1], _mm256_loadu_ps(cr + 8));
    }
    _mm256_storeu_ps(cr, acc[r][0]);
    _mm256_storeu_ps(cr + 8, acc[r][1]);
  }
}

TAUVTA_AVX512 void kernel_avx512_8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                                      bool overwrite) {
  __m512 acc[8][2];
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) {
      const __m512 ar = _mm512_set1_ps(a[r]);
      acc[r][0] = _mm512_fmadd_ps(ar, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(ar, b1, acc[r][1]);
    }
    a += 8;
    b += 32;
  }
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    float* cr = c + r * ldc;
    if (!overwrite) {
      acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_loadu_ps(cr));
      acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_loadu_ps(cr + 16));
    }
    _mm512_storeu_ps(cr, acc[r][0]);
    _mm512_storeu_ps(cr + 16, acc[r][1]);
  }
}
#endif

KernelInfo kernel_for(GemmIsa isa) {
  switch (isa) {
#ifdef TAUVTA_X86
    case GemmIsa::kAvx512: return {8, 32, kernel_avx512_8x32};
    case GemmIsa::kAvx2: return {6, 16, kernel_avx2_6x16};
#else
    case GemmIsa::kAvx512:
    case GemmIsa::kAvx2:
#endif
    case GemmIsa::kPortable: break;
  }
  return {4, 16, kernel_portable<4, 16>};
}

// Packs op(A)[i0:i0+mc, p0:p0+kc] * alpha into MR-row panels: panel[k][r], rows past M zeroed.
void pack_a(const float* A, int64_t lda, bool trans, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
            int64_t mr, float alpha, float* dst) {
  for (int64_t ip = 0; ip < mc; ip += mr) {
    const int64_t rows = std::min(mr, mc - ip);
    for (int64_t k = 0; k < kc; ++k) {
      float* d = dst + k * mr;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + ip + r, p = p0 + k;
        d[r] = alpha * (trans ? A[p * lda + i] : A[i * lda + p]);
      }
      for (int64_t r = rows; r < mr; ++r) d[r] = 0.0f;
    }
    dst += kc * mr;
  }
}

// Packs op(B)[p0:p0+kc, j0:j0+nc] into NR-column panels: panel[k][j], columns past N zeroed.
void pack_b(const float* B, int64_t ldb, bool trans, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
            int64_t nr, float* dst) {
  for (int64_t jp = 0; jp < nc; jp += nr) {
    const int64_t cols = std::min(nr, nc - jp);
    if (!trans) {
      for (int64_t k = 0; k < kc; ++k) {
        const float* s = B + (p0 + k) * ldb + j0 + jp;
        float* d = dst + k * nr;
        std::memcpy(d, s, size_t(cols) * sizeof(float));
        for (int64_t j = cols; j < nr; ++j) d[j] = 0.0f;
      }
    } else {
      for (int64_t k = 0; k < kc; ++k) {
        float* d = dst + k * nr;
        for (int64_t j = 0; j < cols; ++j) d[j] = B[(j0 + jp + j) * ldb + p0 + k];
        for (int64_t j = cols; j < nr; ++j) d[j] = 0.0f;
      }
    }
    dst += kc * nr;
  }
}

void run_gemm(const KernelInfo& ki, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
              int64_t lda, bool transA, const float* B, int64_t ldb, bool transB, float* C, int64_t ldc,
              bool accumulate) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate) {
      for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0.0f);
    }
    return;
  }
  const int64_t mr = ki.mr, nr = ki.nr;
  const int64_t nc_max = std::min(kNC, (N + nr - 1) / nr * nr);
  const int64_t kc_max = std::min(kKC, K);
  const int64_t mc_max = std::min(kMC, (M + mr - 1) / mr * mr);
  std::vector<float> bpack(size_t(kc_max * nc_max));
  std::vector<float> apack(size_t(kc_max * mc_max));
  std::vector<float> tile(size_t(mr * nr));

  for (int64_t j0 = 0; j0 < N; j0 += kNC) {
    const int64_t nc = std::min(kNC, N - j0);
    for (int64_t p0 = 0; p0 < K; p0 += kKC) {
      const int64_t kc = std::min(kKC, K - p0);
      const bool overwrite = p0 == 0 && !accumulate;
      pack_b(B, ldb, transB, p0, kc, j0, nc, nr, bpack.data());
      for (int64_t i0 = 0; i0 < M; i0 += kMC) {
        const int64_t mc = std::min(kMC, M - i0);
        pack_a(A, lda, transA, i0, mc, p0, kc, mr, alpha, apack.data());
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int64_t cols = std::min(nr, nc - jr);
          const float* bp = bpack.data() + (jr / nr) * kc * nr;
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const int64_t rows = std::min(mr, mc - ir);
            const float* ap = apack.data() + (ir / mr) * kc * mr;
            float* c = C + (i0 + ir) * ldc + j0 + jr;
            if (rows == mr && cols == nr) {
              ki.fn(kc, ap, bp, c, ldc, overwrite);
            } else {
              ki.fn(kc, ap, bp, tile.data(), nr, true);
              for (int64_t r = 0; r < rows; ++r) {
                for (int64_t j = 0; j < cols; ++j) {
                  c[r * ldc + j] = overwrite ? tile[size_t(r * nr + j)] : c[r * ldc + j] + tile[size_t(r * nr + j)];
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

const char* gemm_isa_name(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::kPortable: return "portable";
    case GemmIsa::kAvx2: return "avx2";
    case GemmIsa::kAvx512: return "avx512";
  }
  return "?";
}

std::vector<GemmIsa> available_gemm_isas() {
  std::vector<GemmIsa> out{GemmIsa::kPortable};
#ifdef TAUVTA_X86
  if (cpu_has_avx2_fma()) out.push_back(GemmIsa::kAvx2);
  if (cpu_has_avx512f()) out.push_back(GemmIsa::kAvx512);
#endif
  return out;
}

GemmIsa best_gemm_isa() {
  static const GemmIsa best = available_gemm_isas().back();
  return best;
}

void sgemm_isa(GemmIsa isa, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
               bool transA, const float* B, int64_t ldb, bool transB, float* C, int64_t ldc,
               bool accumulate) {
  run_gemm(kernel_for(isa), M, N, K, alpha, A, lda, transA, B, ldb, transB, C, ldc, accumulate);
}

void sgemm(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, bool transA,
           const float* B, int64_t ldb, bool transB, float* C, int64_t ldc, bool accumulate) {
  sgemm_isa(best_gemm_isa(), M, N, K, alpha, A, lda, transA, B, ldb, transB, C, ldc, accumulate);
}

}  // namespace tauvta::cpu
