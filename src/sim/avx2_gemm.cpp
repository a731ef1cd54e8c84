#include "sim/avx2_gemm.h"

#include <immintrin.h>

#include <cstring>

namespace tauvta::sim {
namespace {

// Every function touching a ymm carries the target attribute, so only these run AVX2 code and the
// rest of the binary stays portable (run_gemm calls in only when the CPU has AVX2).
#define TAUVTA_AVX2 __attribute__((target("avx2")))

using V = __m256i;

// Pair sums accumulated in int32 halves before they are widened (see dot_split): at most 2^15
// pairs keep both halves in range.
constexpr int kFlushPairs = 1 << 15;

TAUVTA_AVX2 inline V load(const void* p) { return _mm256_loadu_si256(static_cast<const V*>(p)); }
TAUVTA_AVX2 inline void store(void* p, V v) { _mm256_storeu_si256(static_cast<V*>(p), v); }

// One input pair (two int16 lanes) in every 32-bit lane.
TAUVTA_AVX2 inline V broadcast_pair(const int16_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

// Sign-extends the low 32 - shift bits of every lane (shift 0: unchanged).
TAUVTA_AVX2 inline V wrap(V v, int shift) {
  return shift == 0 ? v : _mm256_srai_epi32(_mm256_slli_epi32(v, shift), shift);
}

// The low OUT bits of 8 int32 lanes, sign-extended, as int8 or int16 lanes (out_shift wraps to
// an output narrower than its lane type; the byte shuffle truncates).
TAUVTA_AVX2 inline void store_out(int8_t* p, V v, int out_shift) {
  const V pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                  0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const V b = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(wrap(v, out_shift), pick),
                                          _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(b));
}
TAUVTA_AVX2 inline void store_out(int16_t* p, V v, int out_shift) {
  const V pick = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,
                                  0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
  const V b = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(wrap(v, out_shift), pick),
                                          _mm256_setr_epi32(0, 1, 4, 5, 0, 0, 0, 0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(b));
}

// s[k] += the dot products of one input row with 8 output channels each (vector k of a chunk),
// mod 2^32. That is exact for accumulators of 32 bits or fewer, which wrap anyway: vpmaddwd's one
// overflow, 2 * (-32768)^2 = 2^31 returned as INT32_MIN, is right mod 2^32.
template <int kVecs, int kPairs>
TAUVTA_AVX2 inline void dot_mod32(const int16_t* xp, const int16_t* wp, int pairs,
                                  size_t pair_stride, V* s) {
  const int n = kPairs > 0 ? kPairs : pairs;
  for (int p = 0; p < n; ++p) {
    const V x = broadcast_pair(xp + 2 * p);
    const int16_t* w = wp + size_t(p) * pair_stride;
    for (int k = 0; k < kVecs; ++k) {
      s[k] = _mm256_add_epi32(s[k], _mm256_madd_epi16(x, load(w + 16 * k)));
      // Keeps the sum a chain: GCC otherwise reassociates the unrolled adds into a tree whose
      // partial sums spill (16 ymm registers), and the spills cost more than the adds' latency.
      __asm__("" : "+x"(s[k]));
    }
  }
}

// The exact dot products for 64-bit accumulators, kept in int32 lanes. A true pair sum t lies in
// [2 * -32768 * 32767, 2^31], so t - 1 fits int32 (for t = 2^31 vpmaddwd returns INT32_MIN, and
// INT32_MIN - 1 wraps to exactly 2^31 - 1). Write t - 1 = 65536 * hi + lo with hi = (t - 1) >> 16
// and lo in [0, 65535]: over at most kFlushPairs pairs, the hi sum cannot overflow and the lo
// sum stays below 2^32, so it is recovered exactly as (sum of (t - 1)) - 65536 * (sum of hi)
// mod 2^32. `hi` sums the hi parts, `all` the t - 1 (mod 2^32); widen_add rebuilds the total and
// adds back the 1 per pair.
template <int kVecs, int kPairs>
TAUVTA_AVX2 inline void dot_split(const int16_t* xp, const int16_t* wp, int pairs,
                                  size_t pair_stride, V* hi, V* all) {
  const int n = kPairs > 0 ? kPairs : pairs;
  const V one = _mm256_set1_epi32(1);
  for (int p = 0; p < n; ++p) {
    const V x = broadcast_pair(xp + 2 * p);
    const int16_t* w = wp + size_t(p) * pair_stride;
    for (int k = 0; k < kVecs; ++k) {
      const V t1 = _mm256_sub_epi32(_mm256_madd_epi16(x, load(w + 16 * k)), one);
      hi[k] = _mm256_add_epi32(hi[k], _mm256_srai_epi32(t1, 16));
      all[k] = _mm256_add_epi32(all[k], t1);
      __asm__("" : "+x"(hi[k]), "+x"(all[k]));  // chains, as in dot_mod32
    }
  }
}

// Adds the n_pairs pair sums dot_split left in (hi, all) to the int64 sums of lanes 0-3 (d[0])
// and 4-7 (d[1]): 65536 * hi + lo + n_pairs, lo = all - 65536 * hi as an unsigned 32-bit value.
TAUVTA_AVX2 inline void widen_add(V hi, V all, int n_pairs, V* d) {
  const V n = _mm256_set1_epi64x(n_pairs);
  const V lo = _mm256_sub_epi32(all, _mm256_slli_epi32(hi, 16));
  const __m128i h[2] = {_mm256_castsi256_si128(hi), _mm256_extracti128_si256(hi, 1)};
  const __m128i l[2] = {_mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1)};
  for (int j = 0; j < 2; ++j) {
    const V wide = _mm256_add_epi64(_mm256_slli_epi64(_mm256_cvtepi32_epi64(h[j]), 16),
                                    _mm256_cvtepu32_epi64(l[j]));
    d[j] = _mm256_add_epi64(d[j], _mm256_add_epi64(wide, n));
  }
}

// Widens kVecs (hi, all) sums of `pending` pair sums into the int64 sums n and clears them.
template <int kVecs>
TAUVTA_AVX2 inline void flush_split(V* hi, V* all, int pending, V (*n)[2]) {
  for (int k = 0; k < kVecs; ++k) {
    widen_add(hi[k], all[k], pending, n[k]);
    hi[k] = all[k] = _mm256_setzero_si256();
  }
}

// Writes a finished 32-bit accumulator vector: wrap to the accumulator width, store (or zero on
// reset), and store the low OUT bits of the pre-reset value.
template <class OutT>
TAUVTA_AVX2 inline void finish32(V nv, int32_t* ap, OutT* op, bool reset, int acc_shift,
                                 int out_shift) {
  nv = wrap(nv, acc_shift);
  store(ap, reset ? _mm256_setzero_si256() : nv);
  store_out(op, nv, out_shift);
}

// The same for 8 int64 accumulators (n[0]: lanes 0-3, n[1]: 4-7). acc64 only holds 64-bit
// accumulators, so the int64 sums already wrap at the right width.
template <class OutT>
TAUVTA_AVX2 inline void finish64(const V* n, int64_t* ap, OutT* op, bool reset, int out_shift) {
  store(ap, reset ? _mm256_setzero_si256() : n[0]);
  store(ap + 4, reset ? _mm256_setzero_si256() : n[1]);
  const V low_dwords = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const V low = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(n[0], low_dwords),
                                   _mm256_permutevar8x32_epi32(n[1], low_dwords), 0xF0);
  store_out(op, low, out_shift);
}

// Geometry of one config. Output channels go in chunks of kVecs vectors of 8 (one broadcast of
// an input pair feeds the whole chunk); kPairs > 0 and kBO > 0 fix BLOCK_IN / 2 and BLOCK_OUT at
// compile time (constant strides free the registers the inner loops need).
template <class OutT, int kVecs, int kPairs, int kBO>
struct Avx2Shape {
  explicit Avx2Shape(const OnChipMemory& m)
      : B(m.config().batch()), BI(kPairs > 0 ? 2 * kPairs : m.config().block_in()),
        BO(kBO > 0 ? kBO : m.config().block_out()),
        pairs(kPairs > 0 ? kPairs : BI / 2), chunks(BO / (8 * kVecs)),
        acc_shift(m.config().acc_width() < 32 ? 32 - m.config().acc_width() : 0),
        out_shift(m.config().out_width() < int(8 * sizeof(OutT)) ? 32 - m.config().out_width() : 0),
        wgt_elem(size_t(BO) * BI), pair_stride(size_t(BO) * 2),
        inp(m.inp_is_int8() ? m.inp_wide.data() : m.inp16.data()), wgt(m.wgt_pairs.data()) {}
  int B, BI, BO, pairs, chunks, acc_shift, out_shift;
  size_t wgt_elem, pair_stride;
  const int16_t* inp;
  const int16_t* wgt;

  const int16_t* inp_row(size_t x, int b) const { return inp + (x * B + b) * BI; }
  const int16_t* wgt_chunk(size_t w, size_t oc0) const { return wgt + w * wgt_elem + oc0 * 2; }
  size_t acc_row(size_t a, int b) const { return (a * B + b) * BO; }
};

// Two nested loops over (o, i) or a part of them, with the index factors that apply.
struct Loop2 {
  uint32_t n_out = 1, n_in = 1;
  uint32_t dst_out = 0, dst_in = 0, src_out = 0, src_in = 0, wgt_out = 0, wgt_in = 0;
  uint32_t dst(uint32_t o, uint32_t i) const { return o * dst_out + i * dst_in; }
  uint32_t src(uint32_t o, uint32_t i) const { return o * src_out + i * src_in; }
  uint32_t wgt(uint32_t o, uint32_t i) const { return o * wgt_out + i * wgt_in; }
};

// The order the kernels visit the (o, i, micro-op) updates in. Without reset the final state
// does not depend on it: acc += dot is a wrapping sum and out is the truncation of the final sum.
// So the loops whose dst factor is 0 (`row`: the accumulator row stays) run innermost, and so do
// consecutive micro-ops with the same dst (a convolution's kernel taps), all summing into one
// row held in registers: one accumulator load and store per row instead of per update. With
// reset each update must see the previous one's zero, so the order stays the hardware's.
struct Order {
  Loop2 moving, row;  // every (o, i) is one step of `moving` plus one of `row`
  bool merge_uops = false;

  Order(const LoopNest& l, bool reset) : merge_uops(!reset) {
    const bool keep_out = !reset && l.dst_out == 0, keep_in = !reset && l.dst_in == 0;
    Loop2& out = keep_out ? row : moving;
    Loop2& in = keep_in ? row : moving;
    out.n_out = l.iter_out;
    out.dst_out = l.dst_out, out.src_out = l.src_out, out.wgt_out = l.wgt_out;
    in.n_in = l.iter_in;
    in.dst_in = l.dst_in, in.src_in = l.src_in, in.wgt_in = l.wgt_in;
  }
  // One past the last micro-op from u that sums into u's row.
  uint32_t run_end(const LoopNest& l, uint32_t u) const {
    uint32_t e = u + 1;
    while (merge_uops && e < l.n_uops && l.uops[e].dst == l.uops[u].dst) ++e;
    return e;
  }
};

// Accumulators of at most 32 bits.
template <class OutT, int kVecs, int kPairs, int kBO>
TAUVTA_AVX2 void gemm_mod32(OnChipMemory& m, const LoopNest& l, bool reset, OutT* out) {
  const Avx2Shape<OutT, kVecs, kPairs, kBO> s(m);
  const Order ord(l, reset);
  int32_t* acc = m.acc32.data();
  for (uint32_t po = 0; po < ord.moving.n_out; ++po) {
    for (uint32_t pi = 0; pi < ord.moving.n_in; ++pi) {
      const uint32_t da = ord.moving.dst(po, pi), dx = ord.moving.src(po, pi),
                     dw = ord.moving.wgt(po, pi);
      for (uint32_t u = 0, e = 0; u < l.n_uops; u = e) {
        e = ord.run_end(l, u);
        const size_t a = l.uops[u].dst + da;
        for (int b = 0; b < s.B; ++b) {
          for (int c = 0; c < s.chunks; ++c) {
            const size_t oc0 = size_t(c) * kVecs * 8, r = s.acc_row(a, b) + oc0;
            V sum[kVecs];
            for (int k = 0; k < kVecs; ++k) sum[k] = load(acc + r + 8 * k);
            for (uint32_t ro = 0; ro < ord.row.n_out; ++ro) {
              for (uint32_t ri = 0; ri < ord.row.n_in; ++ri) {
                const uint32_t x0 = dx + ord.row.src(ro, ri), w0 = dw + ord.row.wgt(ro, ri);
                for (uint32_t v = u; v < e; ++v) {
                  dot_mod32<kVecs, kPairs>(s.inp_row(l.uops[v].src + x0, b),
                                           s.wgt_chunk(l.uops[v].wgt + w0, oc0), s.pairs,
                                           s.pair_stride, sum);
                }
              }
            }
            for (int k = 0; k < kVecs; ++k) {
              finish32(sum[k], acc + r + 8 * k, out + r + 8 * k, reset, s.acc_shift, s.out_shift);
            }
          }
        }
      }
    }
  }
}

// 64-bit accumulators: exact dot products (dot_split) whose int32 halves are widened into int64
// sums in registers at least every kFlushPairs pairs.
template <class OutT, int kVecs, int kPairs, int kBO>
TAUVTA_AVX2 void gemm_exact64(OnChipMemory& m, const LoopNest& l, bool reset, OutT* out) {
  const Avx2Shape<OutT, kVecs, kPairs, kBO> s(m);
  const Order ord(l, reset);
  int64_t* acc = m.acc64.data();
  for (uint32_t po = 0; po < ord.moving.n_out; ++po) {
    for (uint32_t pi = 0; pi < ord.moving.n_in; ++pi) {
      const uint32_t da = ord.moving.dst(po, pi), dx = ord.moving.src(po, pi),
                     dw = ord.moving.wgt(po, pi);
      for (uint32_t u = 0, e = 0; u < l.n_uops; u = e) {
        e = ord.run_end(l, u);
        const size_t a = l.uops[u].dst + da;
        for (int b = 0; b < s.B; ++b) {
          for (int c = 0; c < s.chunks; ++c) {
            const size_t oc0 = size_t(c) * kVecs * 8, r = s.acc_row(a, b) + oc0;
            V n[kVecs][2], hi[kVecs], all[kVecs];
            for (int k = 0; k < kVecs; ++k) {
              n[k][0] = load(acc + r + 8 * k);
              n[k][1] = load(acc + r + 8 * k + 4);
              hi[k] = all[k] = _mm256_setzero_si256();
            }
            int pending = 0;
            for (uint32_t ro = 0; ro < ord.row.n_out; ++ro) {
              for (uint32_t ri = 0; ri < ord.row.n_in; ++ri) {
                const uint32_t x0 = dx + ord.row.src(ro, ri), w0 = dw + ord.row.wgt(ro, ri);
                for (uint32_t v = u; v < e; ++v) {
                  if (pending + s.pairs > kFlushPairs) {
                    flush_split<kVecs>(hi, all, pending, n);
                    pending = 0;
                  }
                  dot_split<kVecs, kPairs>(s.inp_row(l.uops[v].src + x0, b),
                                           s.wgt_chunk(l.uops[v].wgt + w0, oc0), s.pairs,
                                           s.pair_stride, hi, all);
                  pending += s.pairs;
                }
              }
            }
            flush_split<kVecs>(hi, all, pending, n);
            for (int k = 0; k < kVecs; ++k) {
              finish64(n[k], acc + r + 8 * k, out + r + 8 * k, reset, s.out_shift);
            }
          }
        }
      }
    }
  }
}

template <class OutT, int kVecs, int kPairs, int kBO>
void run_shape(OnChipMemory& m, const LoopNest& l, bool reset, OutT* out) {
  if (m.acc_is_int32()) {
    gemm_mod32<OutT, kVecs, kPairs, kBO>(m, l, reset, out);
  } else {
    gemm_exact64<OutT, kVecs, kPairs, kBO>(m, l, reset, out);
  }
}

// BLOCK_OUT 8 takes one vector per chunk, wider blocks two. The presets' 16x16 and 8x8 blocks
// get fixed strides.
template <class OutT>
void run_out(OnChipMemory& m, const LoopNest& l, bool reset, OutT* out) {
  const int bi = m.config().block_in(), bo = m.config().block_out();
  if (bi == 16 && bo == 16) {
    run_shape<OutT, 2, 8, 16>(m, l, reset, out);
  } else if (bi == 8 && bo == 8) {
    run_shape<OutT, 1, 4, 8>(m, l, reset, out);
  } else if (bo == 8) {
    run_shape<OutT, 1, 0, 0>(m, l, reset, out);
  } else {
    run_shape<OutT, 2, 0, 0>(m, l, reset, out);
  }
}

}  // namespace

void run_gemm_avx2(OnChipMemory& m, const LoopNest& l, bool reset) {
  if (m.out_is_int8()) {
    run_out(m, l, reset, m.out8.data());
  } else {
    run_out(m, l, reset, m.out16.data());
  }
}

}  // namespace tauvta::sim
