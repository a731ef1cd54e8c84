#include "hw/lanes.h"

#include <immintrin.h>

#include "common/cpu_features.h"

namespace tauvta::hw {
namespace {

// Lanes of one byte, sign-extended, for every byte value: unpacking is one table copy per byte.
// (The shift-and-extend loop costs a few operations per lane; weight tiles are unpacked on every
// load, and sub-byte configs load millions of lanes per GEMM.)
template <int kBits>
struct UnpackByteTable {
  static constexpr int kPerByte = 8 / kBits;
  int8_t lanes[256][kPerByte];
  constexpr UnpackByteTable() : lanes{} {
    for (int b = 0; b < 256; ++b) {
      for (int k = 0; k < kPerByte; ++k) {
        lanes[b][k] = int8_t(int8_t(uint8_t(b << (8 - kBits * (k + 1)))) >> (8 - kBits));
      }
    }
  }
};

template <int kBits>
void unpack_by_table(const uint8_t* src, int whole, int8_t* dst) {
  static constexpr UnpackByteTable<kBits> kTable;
  constexpr int n = UnpackByteTable<kBits>::kPerByte;
  for (int byte = 0; byte < whole; ++byte) std::memcpy(dst + byte * n, kTable.lanes[src[byte]], n);
}

// AVX2: 32 source bytes at a time. Each lane position k of the bytes is isolated with a shift and
// a mask, sign-extended by a 16-entry table lookup (pshufb), and the positions are interleaved
// back into byte order with unpack instructions (within 128-bit halves, joined at the end).
#define TAUVTA_AVX2 __attribute__((target("avx2")))

TAUVTA_AVX2 inline __m256i unpack_field(__m256i v, int shift, int bits) {
  const __m256i mask = _mm256_set1_epi8(int8_t((1 << bits) - 1));
  return _mm256_and_si256(_mm256_srli_epi16(v, shift), mask);
}

// Sign extension of a `kBits`-bit field held in a byte's low bits: a 16-entry table (pshufb).
template <int kBits>
struct UnpackExtendTable {
  alignas(32) int8_t t[32];
  constexpr UnpackExtendTable() : t{} {
    for (int i = 0; i < 16; ++i) t[i] = t[i + 16] = int8_t(i >= (1 << (kBits - 1)) && i < (1 << kBits) ? i - (1 << kBits) : i);
  }
};

template <int kBits>
TAUVTA_AVX2 inline __m256i unpack_extend(__m256i f) {
  static constexpr UnpackExtendTable<kBits> kTable;
  return _mm256_shuffle_epi8(_mm256_load_si256(reinterpret_cast<const __m256i*>(kTable.t)), f);
}

// Stores the interleaving of two byte vectors (a[i], b[i] pairs) as 64 bytes in order.
TAUVTA_AVX2 inline void unpack_store_pairs(int8_t* dst, __m256i a, __m256i b) {
  const __m256i lo = _mm256_unpacklo_epi8(a, b), hi = _mm256_unpackhi_epi8(a, b);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_permute2x128_si256(lo, hi, 0x20));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 32), _mm256_permute2x128_si256(lo, hi, 0x31));
}

// Interleaves (a, b, c, d) byte-wise into 128 bytes in order: 4 lanes per source byte.
TAUVTA_AVX2 inline void unpack_store_quads(int8_t* dst, __m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i ab_lo = _mm256_unpacklo_epi8(a, b), ab_hi = _mm256_unpackhi_epi8(a, b);
  const __m256i cd_lo = _mm256_unpacklo_epi8(c, d), cd_hi = _mm256_unpackhi_epi8(c, d);
  const __m256i q0 = _mm256_unpacklo_epi16(ab_lo, cd_lo), q1 = _mm256_unpackhi_epi16(ab_lo, cd_lo);
  const __m256i q2 = _mm256_unpacklo_epi16(ab_hi, cd_hi), q3 = _mm256_unpackhi_epi16(ab_hi, cd_hi);
  // Each q holds source bytes 4m..4m+3 of its 128-bit half; the low halves come first.
  auto* out = reinterpret_cast<__m256i*>(dst);
  _mm256_storeu_si256(out + 0, _mm256_permute2x128_si256(q0, q1, 0x20));
  _mm256_storeu_si256(out + 1, _mm256_permute2x128_si256(q2, q3, 0x20));
  _mm256_storeu_si256(out + 2, _mm256_permute2x128_si256(q0, q1, 0x31));
  _mm256_storeu_si256(out + 3, _mm256_permute2x128_si256(q2, q3, 0x31));
}

// Returns the bytes consumed (a multiple of 32); the caller finishes the rest.
TAUVTA_AVX2 int unpack_avx2(const uint8_t* src, int bits, int whole, int8_t* dst) {
  int byte = 0;
  for (; byte + 32 <= whole; byte += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + byte));
    int8_t* out = dst + size_t(byte) * (8 / bits);
    if (bits == 4) {
      unpack_store_pairs(out, unpack_extend<4>(unpack_field(v, 0, 4)), unpack_extend<4>(unpack_field(v, 4, 4)));
    } else if (bits == 2) {
      unpack_store_quads(out, unpack_extend<2>(unpack_field(v, 0, 2)), unpack_extend<2>(unpack_field(v, 2, 2)), unpack_extend<2>(unpack_field(v, 4, 2)),
                  unpack_extend<2>(unpack_field(v, 6, 2)));
    } else {  // 1 bit: lanes 0-3 of every byte, then lanes 4-7, interleaved again by 4-byte groups
      alignas(32) int8_t low[128], high[128];
      unpack_store_quads(low, unpack_extend<1>(unpack_field(v, 0, 1)), unpack_extend<1>(unpack_field(v, 1, 1)), unpack_extend<1>(unpack_field(v, 2, 1)),
                  unpack_extend<1>(unpack_field(v, 3, 1)));
      unpack_store_quads(high, unpack_extend<1>(unpack_field(v, 4, 1)), unpack_extend<1>(unpack_field(v, 5, 1)), unpack_extend<1>(unpack_field(v, 6, 1)),
                  unpack_extend<1>(unpack_field(v, 7, 1)));
      for (int i = 0; i < 32; ++i) {
        std::memcpy(out + 8 * i, low + 4 * i, 4);
        std::memcpy(out + 8 * i + 4, high + 4 * i, 4);
      }
    }
  }
  return byte;
}

}  // namespace

void unpack_sub_byte(const uint8_t* src, int bits, int whole_bytes, int8_t* dst, bool simd) {
  const int done = simd && cpu_has_avx2() ? unpack_avx2(src, bits, whole_bytes, dst) : 0;
  const uint8_t* s = src + done;
  int8_t* d = dst + size_t(done) * (8 / bits);
  switch (bits) {
    case 4: unpack_by_table<4>(s, whole_bytes - done, d); return;
    case 2: unpack_by_table<2>(s, whole_bytes - done, d); return;
    default: unpack_by_table<1>(s, whole_bytes - done, d); return;
  }
}

}  // namespace tauvta::hw
