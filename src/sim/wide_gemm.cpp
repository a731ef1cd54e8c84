#include "sim/wide_gemm.h"

// See vnni_gemm.cpp: GCC 12's AVX-512 headers trip its uninitialized-use warnings on themselves.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <array>
#include <cstring>
#include <utility>

#include "hw/lanes.h"
#include "sim/gemm_blocking.h"

namespace tauvta::sim {
namespace {

#define TAUVTA_WIDE __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

// One int16 pair of inputs in every int32 lane; weights are [ic/2][oc][2] int16 (wgt_pairs), so
// one vector is kLanes output channels of one pair of input channels.
struct WideZmm {
  using V = __m512i;
  static constexpr int kLanes = 16;
  TAUVTA_WIDE static V load(const void* p) { return _mm512_loadu_si512(p); }
  TAUVTA_WIDE static V zero() { return _mm512_setzero_si512(); }
  TAUVTA_WIDE static V set1(int32_t x) { return _mm512_set1_epi32(x); }
  TAUVTA_WIDE static V dp(V acc, V a, V b) { return _mm512_dpwssd_epi32(acc, a, b); }
  TAUVTA_WIDE static V high_bytes(V x) { return _mm512_srai_epi16(x, 8); }
  TAUVTA_WIDE static V low_bytes(V x) { return _mm512_and_si512(x, _mm512_set1_epi16(0xFF)); }
  TAUVTA_WIDE static void store(int32_t* p, V v) { _mm512_storeu_si512(p, v); }
};

struct WideYmm {  // BLOCK_OUT a multiple of 8 but not of 16
  using V = __m256i;
  static constexpr int kLanes = 8;
  TAUVTA_WIDE static V load(const void* p) { return _mm256_loadu_si256(static_cast<const V*>(p)); }
  TAUVTA_WIDE static V zero() { return _mm256_setzero_si256(); }
  TAUVTA_WIDE static V set1(int32_t x) { return _mm256_set1_epi32(x); }
  TAUVTA_WIDE static V dp(V acc, V a, V b) { return _mm256_dpwssd_epi32(acc, a, b); }
  TAUVTA_WIDE static V high_bytes(V x) { return _mm256_srai_epi16(x, 8); }
  TAUVTA_WIDE static V low_bytes(V x) { return _mm256_and_si256(x, _mm256_set1_epi16(0xFF)); }
  TAUVTA_WIDE static void store(int32_t* p, V v) { _mm256_storeu_si256(reinterpret_cast<V*>(p), v); }
};

constexpr int64_t kWideInt32Max = (int64_t(1) << 31) - 1;

struct WideShape {
  explicit WideShape(const OnChipMemory& m)
      : B(m.config().batch()), BI(m.config().block_in()), BO(m.config().block_out()), pairs(BI / 2),
        acc_bits(m.config().acc_width()), out_bits(m.config().out_width()), acc64(!m.acc_is_int32()),
        wgt_elem(size_t(BO) * BI), x_step(size_t(B) * BI) {
    const int64_t max_x = int64_t(1) << (m.config().inp_width() - 1);
    const int64_t max_w = int64_t(1) << (m.config().wgt_width() - 1);
    split = acc64 && 2 * max_x * max_w > kWideInt32Max;
    // Pairs whose int32 sums cannot overflow (split: the low byte's, the larger of the two).
    const int64_t safe = !acc64 ? 0 : split ? kWideInt32Max / (2 * 255 * max_w) : kWideInt32Max / (2 * max_x * max_w);
    flush_steps = acc64 ? int(safe / pairs) : 0;
  }
  int B, BI, BO, pairs, acc_bits, out_bits;
  bool acc64, split = false;
  int flush_steps = 0;  // 64-bit accumulators: steps between widenings (0 with 32-bit ones)
  size_t wgt_elem, x_step;
};

// 64-bit accumulators: the int32 sums join the int64 ones before they could overflow.
template <class Vec, int NV, bool kSplit>
TAUVTA_WIDE inline void widen(typename Vec::V* hi, typename Vec::V* lo, int64_t (*wide)[Vec::kLanes]) {
  alignas(64) int32_t h[Vec::kLanes], l[Vec::kLanes];
  for (int v = 0; v < NV; ++v) {
    Vec::store(h, hi[v]);
    if constexpr (kSplit) Vec::store(l, lo[v]);
    for (int k = 0; k < Vec::kLanes; ++k) wide[v][k] += kSplit ? int64_t(h[k]) * 256 + l[k] : int64_t(h[k]);
    hi[v] = lo[v] = Vec::zero();
  }
}

// One block of a planned tile: NV vector rows (row, batch pairs) over all the tile's steps.
template <class Vec, int NV, bool kSplit, class OutT>
TAUVTA_WIDE void wide_rows(const WideShape& s, OnChipMemory& m, const int16_t* inp, OutT* out, const GemmBlocking& p,
                           const GemmBlocking::Tile& t, uint32_t v0, size_t lane0, bool reset) {
  constexpr int L = Vec::kLanes;
  const int16_t* xp[NV];
  size_t at[NV];
  for (int v = 0; v < NV; ++v) {
    const GemmBlocking::VectorRow r = p.vector_row(t, v0 + uint32_t(v), s.B);
    xp[v] = inp + r.inp * s.BI;
    at[v] = r.acc * s.BO + lane0;
  }
  const int16_t* wv = m.wgt_pairs.data() + lane0 * 2;
  typename Vec::V hi[NV], lo[NV];
  for (int v = 0; v < NV; ++v) hi[v] = lo[v] = Vec::zero();
  alignas(64) int32_t h[L];
  int64_t wide[NV][L];
  if (s.acc64) std::memset(wide, 0, sizeof(wide));
  int pending = 0;
  for (uint32_t q = t.step_begin; q < t.step_end; ++q) {
    const GemmBlocking::Step st = p.steps[q];
    const size_t xo = st.src * s.x_step;
    const int16_t* wp = wv + st.wgt * s.wgt_elem;
    for (int pr = 0; pr < s.pairs; ++pr) {
      const typename Vec::V w = Vec::load(wp + size_t(pr) * s.BO * 2);
      for (int v = 0; v < NV; ++v) {
        int32_t x;
        std::memcpy(&x, xp[v] + xo + 2 * pr, 4);
        const typename Vec::V xv = Vec::set1(x);
        if constexpr (kSplit) {
          hi[v] = Vec::dp(hi[v], Vec::high_bytes(xv), w);
          lo[v] = Vec::dp(lo[v], Vec::low_bytes(xv), w);
        } else {
          hi[v] = Vec::dp(hi[v], xv, w);
        }
      }
    }
    if (s.acc64 && ++pending == s.flush_steps) {
      widen<Vec, NV, kSplit>(hi, lo, wide);
      pending = 0;
    }
  }
  // The rows join their accumulators in order (rows sharing one add up), and each written row's
  // output is the low OUT bits of its new value (a reset zeroes the accumulator after that).
  const int out_shift = 64 - s.out_bits;
  if (s.acc64) {
    widen<Vec, NV, kSplit>(hi, lo, wide);
    for (int v = 0; v < NV; ++v) {
      int64_t* ap = m.acc64.data() + at[v];
      OutT* op = out + at[v];
      for (int k = 0; k < L; ++k) {
        const uint64_t r = uint64_t(ap[k]) + uint64_t(wide[v][k]);  // 64-bit accumulators wrap here
        ap[k] = reset ? 0 : int64_t(r);
        op[k] = OutT(int64_t(r << out_shift) >> out_shift);
      }
    }
  } else {
    const int acc_shift = 32 - s.acc_bits;
    for (int v = 0; v < NV; ++v) {
      Vec::store(h, hi[v]);
      int32_t* ap = m.acc32.data() + at[v];
      OutT* op = out + at[v];
      for (int k = 0; k < L; ++k) {
        const int32_t r = int32_t((uint32_t(ap[k]) + uint32_t(h[k])) << acc_shift) >> acc_shift;
        ap[k] = reset ? 0 : r;
        op[k] = OutT(int64_t(uint64_t(int64_t(r)) << out_shift) >> out_shift);
      }
    }
  }
}

constexpr int kMaxWideBlock = 8;  // 8 rows x (hi, lo) sums, a weight vector and the input's forms

template <class Vec, bool kSplit, class OutT, size_t... N>
constexpr auto wide_table(std::index_sequence<N...>) {
  using Fn = void (*)(const WideShape&, OnChipMemory&, const int16_t*, OutT*, const GemmBlocking&,
                      const GemmBlocking::Tile&, uint32_t, size_t, bool);
  return std::array<Fn, sizeof...(N)>{&wide_rows<Vec, int(N) + 1, kSplit, OutT>...};
}

template <class Vec, bool kSplit, class OutT>
void run_wide_plan(OnChipMemory& m, const GemmBlocking& p, bool reset, const WideShape& s, OutT* out) {
  static constexpr auto kBlocks = wide_table<Vec, kSplit, OutT>(std::make_index_sequence<kMaxWideBlock>());
  const int16_t* inp = m.inp_is_int8() ? m.inp_wide.data() : m.inp16.data();
  for (const GemmBlocking::Tile& t : p.tiles) {
    const uint32_t n = (t.row_end - t.row_begin) * uint32_t(s.B);
    for (int cb = 0; cb < s.BO / Vec::kLanes; ++cb) {
      const size_t lane0 = size_t(cb) * Vec::kLanes;
      uint32_t v = 0;
      for (; v + kMaxWideBlock <= n; v += kMaxWideBlock) kBlocks[kMaxWideBlock - 1](s, m, inp, out, p, t, v, lane0, reset);
      if (v < n) kBlocks[n - v - 1](s, m, inp, out, p, t, v, lane0, reset);
    }
  }
}

template <class Vec, class OutT>
void run_wide_vec(OnChipMemory& m, const GemmBlocking& p, bool reset, const WideShape& s, OutT* out) {
  s.split ? run_wide_plan<Vec, true>(m, p, reset, s, out) : run_wide_plan<Vec, false>(m, p, reset, s, out);
}

template <class OutT>
void run_wide_out(OnChipMemory& m, const GemmBlocking& p, bool reset, const WideShape& s, OutT* out) {
  s.BO % 16 == 0 ? run_wide_vec<WideZmm>(m, p, reset, s, out) : run_wide_vec<WideYmm>(m, p, reset, s, out);
}

}  // namespace

bool wide_gemm_supported(const OnChipMemory& m) {
  const hw::HwConfig& c = m.config();
  if (!cpu_has_vnni() || !m.has_pair_weights() || c.block_out() % 8 != 0 || c.block_in() % 2 != 0) return false;
  const WideShape s(m);
  return !s.acc64 || s.flush_steps >= 1;
}

bool run_gemm_wide(OnChipMemory& m, const LoopNest& l, bool reset) {
  if (!wide_gemm_supported(m)) return false;
  const GemmBlocking* p = m.gemm_plans.plan(l, reset);
  if (p == nullptr) return false;
  const WideShape s(m);
  if (m.out_is_int8()) {
    run_wide_out(m, *p, reset, s, m.out8.data());
  } else {
    run_wide_out(m, *p, reset, s, m.out16.data());
  }
  return true;
}

}  // namespace tauvta::sim
