#include "sim/vnni_layout.h"

// See compute_kernels.cpp: GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on themselves.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstring>

#include "sim/compute_kernels.h"

namespace tauvta::sim {
namespace {

void arrange_scalar(const int8_t* w, int bo, int bi, int8_t* v, int32_t* corr) {
  const int groups = bi / 4;
  for (int oc = 0; oc < bo; ++oc) {
    const int8_t* row = w + size_t(oc) * bi;
    for (int g = 0; g < groups; ++g) std::memcpy(v + (size_t(g) * bo + oc) * 4, row + 4 * g, 4);
    int32_t sum = 0;
    for (int ic = 0; ic < bi; ++ic) sum += row[ic];
    corr[oc] = 128 * sum;
  }
}

// 16x16: the tile is 16 rows of 4 dwords; output vector g holds dword g of every row. Two-source
// permutes gather rows 0-7 and 8-15, a masked move joins them; dpbusd by 0x80 bytes gives
// 128 * row sums directly.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) void arrange_16x16(
    const int8_t* w, int8_t* v, int32_t* corr) {
  const __m512i z0 = _mm512_loadu_si512(w), z1 = _mm512_loadu_si512(w + 64),
                z2 = _mm512_loadu_si512(w + 128), z3 = _mm512_loadu_si512(w + 192);
  const __m512i base = _mm512_set_epi32(28, 24, 20, 16, 12, 8, 4, 0, 28, 24, 20, 16, 12, 8, 4, 0);
  const __m512i bias = _mm512_set1_epi32(int32_t(0x80808080u));
  __m512i sum = _mm512_setzero_si512();
  for (int g = 0; g < 4; ++g) {
    const __m512i idx = _mm512_add_epi32(base, _mm512_set1_epi32(g));
    const __m512i lo = _mm512_permutex2var_epi32(z0, idx, z1);
    const __m512i hi = _mm512_permutex2var_epi32(z2, idx, z3);
    const __m512i out = _mm512_mask_mov_epi32(lo, 0xFF00, hi);
    _mm512_storeu_si512(v + 64 * g, out);
    sum = _mm512_dpbusd_epi32(sum, bias, out);
  }
  _mm512_storeu_si512(corr, sum);
}

}  // namespace

void arrange_vnni_tile(const int8_t* w, int block_out, int block_in, int8_t* vnni, int32_t* corr) {
  if (block_out == 16 && block_in == 16 && cpu_has_vnni()) {
    arrange_16x16(w, vnni, corr);
  } else {
    arrange_scalar(w, block_out, block_in, vnni, corr);
  }
}

}  // namespace tauvta::sim
