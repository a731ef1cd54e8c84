// The AVX-512 VNNI GEMM kernels' vectors (vnni_gemm.cpp, wide_gemm.cpp): one interface over a zmm
// of 16 int32 output channels and a ymm of 8, so a kernel is written once for BLOCK_OUT a
// multiple of 16 and a multiple of 8. Only a CPU with cpu_has_vnni() may call them.
#pragma once

// GCC 12's AVX-512 intrinsic headers trip -Wmaybe-uninitialized and -Wuninitialized on their own
// _mm512_undefined placeholders (a known false positive) wherever the intrinsics are inlined, so
// the including file keeps them off; nothing in the kernels reads uninitialized data.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

#define TAUVTA_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

namespace tauvta::sim {

struct Zmm {  // 16 output channels per vector
  using V = __m512i;
  static constexpr int kLanes = 16;
  TAUVTA_AVX512_VNNI static V load(const void* p) { return _mm512_loadu_si512(p); }
  TAUVTA_AVX512_VNNI static V zero() { return _mm512_setzero_si512(); }
  TAUVTA_AVX512_VNNI static V set1(int32_t x) { return _mm512_set1_epi32(x); }
  // u8 x s8 in groups of 4 bytes, and s16 x s16 in pairs, summed into each int32 lane (wrapping).
  TAUVTA_AVX512_VNNI static V dpbusd(V acc, V a, V b) { return _mm512_dpbusd_epi32(acc, a, b); }
  TAUVTA_AVX512_VNNI static V dpwssd(V acc, V a, V b) { return _mm512_dpwssd_epi32(acc, a, b); }
  TAUVTA_AVX512_VNNI static V add(V a, V b) { return _mm512_add_epi32(a, b); }
  TAUVTA_AVX512_VNNI static V sub(V a, V b) { return _mm512_sub_epi32(a, b); }
  // Sign-extends the low 32 - shift bits of every lane.
  TAUVTA_AVX512_VNNI static V wrap(V v, int shift) {
    return _mm512_srai_epi32(_mm512_slli_epi32(v, unsigned(shift)), unsigned(shift));
  }
  TAUVTA_AVX512_VNNI static void store(void* p, V v) { _mm512_storeu_si512(p, v); }
  TAUVTA_AVX512_VNNI static void store_low_bytes(int8_t* p, V v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(v));
  }
};

struct Ymm {  // 8 output channels per vector (BLOCK_OUT = 8, 24, ...)
  using V = __m256i;
  static constexpr int kLanes = 8;
  TAUVTA_AVX512_VNNI static V load(const void* p) { return _mm256_loadu_si256(static_cast<const V*>(p)); }
  TAUVTA_AVX512_VNNI static V zero() { return _mm256_setzero_si256(); }
  TAUVTA_AVX512_VNNI static V set1(int32_t x) { return _mm256_set1_epi32(x); }
  TAUVTA_AVX512_VNNI static V dpbusd(V acc, V a, V b) { return _mm256_dpbusd_epi32(acc, a, b); }
  TAUVTA_AVX512_VNNI static V dpwssd(V acc, V a, V b) { return _mm256_dpwssd_epi32(acc, a, b); }
  TAUVTA_AVX512_VNNI static V add(V a, V b) { return _mm256_add_epi32(a, b); }
  TAUVTA_AVX512_VNNI static V sub(V a, V b) { return _mm256_sub_epi32(a, b); }
  TAUVTA_AVX512_VNNI static V wrap(V v, int shift) {
    return _mm256_srai_epi32(_mm256_slli_epi32(v, shift), shift);
  }
  TAUVTA_AVX512_VNNI static void store(void* p, V v) { _mm256_storeu_si256(static_cast<V*>(p), v); }
  TAUVTA_AVX512_VNNI static void store_low_bytes(int8_t* p, V v) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm256_cvtepi32_epi8(v));
  }
};

}  // namespace tauvta::sim
