#include "cpu/int_ops_gemm.h"

#include <cstring>

#include <immintrin.h>

#include "common/cpu_features.h"
#include "common/error.h"

namespace tauvta::cpu {

void RowPanel::resize(int64_t rows_, int64_t k_) {
  rows = rows_;
  k = k_;
  rows_padded = (rows + kRowBlock - 1) / kRowBlock * kRowBlock;
  kp = (k + 1) / 2 * 2;
  data.assign(size_t(rows_padded * kp), 0);
}

void PairPanel::resize(int64_t k_, int64_t cols_) {
  k = k_;
  cols = cols_;
  kp = (k + 1) / 2 * 2;
  cols_padded = (cols + kColBlock - 1) / kColBlock * kColBlock;
  data.assign(size_t(kp * cols_padded), 0);
}

namespace {

void gemm_portable(const RowPanel& a, const PairPanel& b, uint32_t* out, int64_t ld) {
  const int64_t pairs = a.kp / 2, cols = b.cols, stride = b.cols_padded * 2;
  std::vector<uint32_t> acc(size_t(b.cols_padded));
  for (int64_t r = 0; r < a.rows; ++r) {
    std::fill(acc.begin(), acc.end(), 0u);
    const int16_t* ar = a.row(r);
    for (int64_t p = 0; p < pairs; ++p) {
      const int32_t w0 = ar[2 * p], w1 = ar[2 * p + 1];
      if (w0 == 0 && w1 == 0) continue;
      const int16_t* bp = b.data.data() + p * stride;
      for (int64_t c = 0; c < cols; ++c) {
        // Each product fits int32; their sum may not, so it is taken modulo 2^32.
        acc[size_t(c)] += uint32_t(w0 * int32_t(bp[2 * c])) + uint32_t(w1 * int32_t(bp[2 * c + 1]));
      }
    }
    std::memcpy(out + r * ld, acc.data(), size_t(cols) * sizeof(uint32_t));
  }
}

#define TAUVTA_AVX512 __attribute__((target("avx512f,avx512bw")))

// A 4-row x (16 * NV)-column tile over the whole K.
template <int NV>
TAUVTA_AVX512 void tile_avx512(const RowPanel& a, const PairPanel& b, int64_t r0, int64_t c0, uint32_t* out,
                               int64_t ld) {
  __m512i acc[4][NV];
  for (int i = 0; i < 4; ++i) {
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_si512();
  }
  const int64_t pairs = a.kp / 2, stride = b.cols_padded * 2;
  const int16_t* a0 = a.row(r0);
  const int16_t* bp = b.data.data() + c0 * 2;
  for (int64_t p = 0; p < pairs; ++p, bp += stride) {
    __m512i bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = _mm512_loadu_si512(bp + 32 * v);
    for (int i = 0; i < 4; ++i) {
      int32_t pair;
      std::memcpy(&pair, a0 + i * a.kp + 2 * p, sizeof pair);
      const __m512i av = _mm512_set1_epi32(pair);
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_add_epi32(acc[i][v], _mm512_madd_epi16(av, bv[v]));
    }
  }
  for (int i = 0; i < 4; ++i) {
    if (r0 + i >= a.rows) break;
    for (int v = 0; v < NV; ++v) {
      const int64_t c = c0 + 16 * v;
      if (c >= b.cols) break;
      const int64_t n = std::min<int64_t>(16, b.cols - c);
      const __mmask16 m = n == 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1);
      _mm512_mask_storeu_epi32(out + (r0 + i) * ld + c, m, acc[i][v]);
    }
  }
}

TAUVTA_AVX512 void gemm_avx512(const RowPanel& a, const PairPanel& b, uint32_t* out, int64_t ld) {
  constexpr int64_t kCols = 64;
  for (int64_t c0 = 0; c0 < b.cols_padded; c0 += kCols) {
    const int64_t nv = std::min<int64_t>(4, (b.cols_padded - c0) / 16);
    for (int64_t r0 = 0; r0 < a.rows; r0 += 4) {
      switch (nv) {
        case 4: tile_avx512<4>(a, b, r0, c0, out, ld); break;
        case 3: tile_avx512<3>(a, b, r0, c0, out, ld); break;
        case 2: tile_avx512<2>(a, b, r0, c0, out, ld); break;
        default: tile_avx512<1>(a, b, r0, c0, out, ld); break;
      }
    }
  }
}

}  // namespace

bool fast_int_gemm_available() { return cpu_has_avx512bw(); }

void gemm_wrap32(const RowPanel& a, const PairPanel& b, uint32_t* out, int64_t ld, bool portable) {
  if (a.kp != b.kp) throw InternalError("gemm_wrap32: operand depths differ");
  if (a.rows == 0 || b.cols == 0) return;
  if (!portable && cpu_has_avx512bw()) {
    gemm_avx512(a, b, out, ld);
  } else {
    gemm_portable(a, b, out, ld);
  }
}

}  // namespace tauvta::cpu
