#include "sim/wide_gemm.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "hw/lanes.h"
#include "sim/avx512_vectors.h"
#include "sim/gemm_blocking.h"

namespace tauvta::sim {
namespace {

// Vectors (avx512_vectors.h) hold int32 sums of kLanes output channels; weights are kept as
// [ic/2][oc][2] int16 pairs (wgt_pairs), so one vector is kLanes channels of one pair of inputs.

constexpr int64_t kWideInt32Max = (int64_t(1) << 31) - 1;
// 16 x 16-bit split (see the header): x * w differs from 65536 * (x >> 8) * (w >> 8) by
// 256 * (xh * wl + xl * wh) + xl * wl, at most 2 * 128 * 255 * 256 + 255 * 255 in magnitude, so
// this many products keep the high bytes' estimate within 2^31 of the true sum.
constexpr int64_t kSplitProducts = kWideInt32Max / (2 * 128 * 255 * 256 + 255 * 255);  // 128

struct WideShape {
  explicit WideShape(const OnChipMemory& m)
      : B(m.config().batch()), BI(m.config().block_in()), BO(m.config().block_out()), pairs(BI / 2),
        out_bits(m.config().out_width()), acc_bits(m.config().acc_width()), acc64(!m.acc_is_int32()),
        wgt_elem(size_t(BO) * BI), x_step(size_t(B) * BI) {
    const int64_t max_x = int64_t(1) << (m.config().inp_width() - 1);
    const int64_t max_w = int64_t(1) << (m.config().wgt_width() - 1);
    split = acc64 && 2 * max_x * max_w > kWideInt32Max;
    if (!acc64) {
      flush_steps = 0;
    } else if (split) {  // without the high bytes' VNNI form there is no split: no steps fit
      flush_steps = m.has_high_byte_vnni() ? int(kSplitProducts / BI) : 0;
    } else {  // pairs whose int32 sums cannot overflow
      flush_steps = int(kWideInt32Max / (2 * max_x * max_w) / pairs);
    }
  }
  int B, BI, BO, pairs, out_bits, acc_bits;
  bool acc64, split = false;
  int flush_steps = 0;  // 64-bit accumulators: steps between widenings (0 with 32-bit ones)
  size_t wgt_elem, x_step;
};

// 64-bit accumulators: the int32 sums join the int64 ones before they could overflow.
template <class Vec, int NV>
TAUVTA_AVX512_VNNI inline void widen(typename Vec::V* sums, int64_t (*wide)[Vec::kLanes]) {
  alignas(64) int32_t h[Vec::kLanes];
  for (int v = 0; v < NV; ++v) {
    Vec::store(h, sums[v]);
    for (int k = 0; k < Vec::kLanes; ++k) wide[v][k] += h[k];
    sums[v] = Vec::zero();
  }
}

// The split's exact sums: `high` less the input bias's correction is H = sum (x >> 8) * (w >> 8)
// exactly, and the true sum S is within 2^31 of 65536 * H, so S = 65536 * H + int32(low - H * 65536)
// with `low` the sum mod 2^32.
template <class Vec, int NV>
TAUVTA_AVX512_VNNI inline void join_split(typename Vec::V* low, typename Vec::V* high, typename Vec::V& corr,
                                          int64_t (*wide)[Vec::kLanes]) {
  constexpr int L = Vec::kLanes;
  alignas(64) int32_t l[L], h[L], c[L];
  Vec::store(c, corr);
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    Vec::store(l, low[v]);
    Vec::store(h, high[v]);
    for (int k = 0; k < L; ++k) {
      const int32_t hh = h[k] - c[k];
      const int32_t d = int32_t(uint32_t(l[k]) - (uint32_t(hh) << 16));
      wide[v][k] += int64_t(hh) * 65536 + d;
    }
    low[v] = high[v] = Vec::zero();
  }
  corr = Vec::zero();
}

// The rows join their 64-bit accumulators in order (rows sharing one add up), and each written
// row's output is the low OUT bits of its new value (a reset zeroes the accumulator after that).
template <int L, int NV, class OutT>
inline void write_acc64(const WideShape& s, OnChipMemory& m, OutT* out, const size_t* at,
                        const int64_t (*wide)[L], bool reset) {
  const int out_shift = 64 - s.out_bits;
  for (int v = 0; v < NV; ++v) {
    int64_t* ap = m.acc64.data() + at[v];
    OutT* op = out + at[v];
    for (int k = 0; k < L; ++k) {
      const uint64_t r = uint64_t(ap[k]) + uint64_t(wide[v][k]);  // 64-bit accumulators wrap here
      ap[k] = reset ? 0 : int64_t(r);
      op[k] = OutT(int64_t(r << out_shift) >> out_shift);
    }
  }
}

// A block's NV vector rows: where each row's inputs start (in lanes) and its first accumulator lane.
template <int NV>
inline void block_rows(const WideShape& s, const GemmBlocking& p, const GemmBlocking::Tile& t, uint32_t v0,
                       size_t lane0, size_t* inp_lane, size_t* at) {
  for (int v = 0; v < NV; ++v) {
    const GemmBlocking::VectorRow r = p.vector_row(t, v0 + uint32_t(v), s.B);
    inp_lane[v] = r.inp * s.BI;
    at[v] = r.acc * s.BO + lane0;
  }
}

// One block of a planned tile: NV vector rows (row, batch pairs) over all the tile's steps, one
// vpdpwssd per pair of input channels.
template <class Vec, int NV, class OutT>
TAUVTA_AVX512_VNNI void wide_rows(const WideShape& s, OnChipMemory& m, const int16_t* inp, OutT* out, const GemmBlocking& p,
                                  const GemmBlocking::Tile& t, uint32_t v0, size_t lane0, bool reset) {
  constexpr int L = Vec::kLanes;
  size_t first[NV], at[NV];
  block_rows<NV>(s, p, t, v0, lane0, first, at);
  const int16_t* xp[NV];
  for (int v = 0; v < NV; ++v) xp[v] = inp + first[v];
  const int16_t* wv = m.wgt_pairs.data() + lane0 * 2;
  typename Vec::V sums[NV];
  for (int v = 0; v < NV; ++v) sums[v] = Vec::zero();
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
        sums[v] = Vec::dpwssd(sums[v], Vec::set1(x), w);
      }
    }
    if (s.acc64 && ++pending == s.flush_steps) {
      widen<Vec, NV>(sums, wide);
      pending = 0;
    }
  }
  if (s.acc64) {
    widen<Vec, NV>(sums, wide);
    write_acc64<L, NV>(s, m, out, at, wide, reset);
    return;
  }
  const int acc_shift = 32 - s.acc_bits, out_shift = 64 - s.out_bits;
  alignas(64) int32_t h[L];
  for (int v = 0; v < NV; ++v) {
    Vec::store(h, sums[v]);
    int32_t* ap = m.acc32.data() + at[v];
    OutT* op = out + at[v];
    for (int k = 0; k < L; ++k) {
      const int32_t r = int32_t((uint32_t(ap[k]) + uint32_t(h[k])) << acc_shift) >> acc_shift;
      ap[k] = reset ? 0 : r;
      op[k] = OutT(int64_t(uint64_t(int64_t(r)) << out_shift) >> out_shift);
    }
  }
}

// The same block for 16-bit inputs and weights into 64-bit accumulators: per group of 4 input
// channels, two vpdpwssd sum the products mod 2^32 and one vpdpbusd the high bytes' products
// (inputs' high bytes biased by 128, wgt_corr undoing it); join_split makes each chunk of
// flush_steps steps exact. The inputs come from inp_split16 (one pointer per row: 8 rows' pointers
// stay in registers).
template <class Vec, int NV, class OutT>
TAUVTA_AVX512_VNNI void split_rows(const WideShape& s, OnChipMemory& m, const int16_t*, OutT* out, const GemmBlocking& p,
                                   const GemmBlocking::Tile& t, uint32_t v0, size_t lane0, bool reset) {
  constexpr int L = Vec::kLanes;
  size_t first[NV], at[NV];
  block_rows<NV>(s, p, t, v0, lane0, first, at);
  const uint8_t* xp[NV];
  for (int v = 0; v < NV; ++v) xp[v] = m.inp_split16.data() + 3 * first[v];
  const int16_t* wv = m.wgt_pairs.data() + lane0 * 2;
  const int8_t* hv = m.wgt_vnni.data() + lane0 * 4;
  const int32_t* cv = m.wgt_corr.data() + lane0;
  typename Vec::V low[NV], high[NV], corr = Vec::zero();
  for (int v = 0; v < NV; ++v) low[v] = high[v] = Vec::zero();
  int64_t wide[NV][L];
  std::memset(wide, 0, sizeof(wide));
  const int groups = s.BI / 4;
  for (uint32_t q = t.step_begin; q < t.step_end;) {
    const uint32_t chunk_end = std::min(t.step_end, q + uint32_t(s.flush_steps));
    for (; q < chunk_end; ++q) {
      const GemmBlocking::Step st = p.steps[q];
      const size_t xo = 3 * st.src * s.x_step;
      const int16_t* wp = wv + st.wgt * s.wgt_elem;
      const int8_t* hw = hv + st.wgt * s.wgt_elem;
      corr = Vec::add(corr, Vec::load(cv + size_t(st.wgt) * s.BO));
      for (int g = 0; g < groups; ++g) {
        const typename Vec::V w0 = Vec::load(wp + size_t(2 * g) * s.BO * 2);
        const typename Vec::V w1 = Vec::load(wp + size_t(2 * g + 1) * s.BO * 2);
        const typename Vec::V wh = Vec::load(hw + size_t(g) * s.BO * 4);
#pragma GCC unroll 8  // the sums must stay in registers
        for (int v = 0; v < NV; ++v) {
          const uint8_t* x = xp[v] + xo + 12 * g;  // the two pairs, the high bytes
          int32_t x0, x1, xh;
          std::memcpy(&x0, x, 4);
          std::memcpy(&x1, x + 4, 4);
          std::memcpy(&xh, x + 8, 4);
          low[v] = Vec::dpwssd(low[v], Vec::set1(x0), w0);
          low[v] = Vec::dpwssd(low[v], Vec::set1(x1), w1);
          high[v] = Vec::dpbusd(high[v], Vec::set1(xh), wh);
        }
      }
    }
    join_split<Vec, NV>(low, high, corr, wide);
  }
  write_acc64<L, NV>(s, m, out, at, wide, reset);
}

constexpr int kMaxWideBlock = 8;  // 8 rows x (low, high) sums, the weight vectors and a broadcast

template <class Vec, bool kSplit, class OutT, size_t... N>
constexpr auto wide_table(std::index_sequence<N...>) {
  using Fn = void (*)(const WideShape&, OnChipMemory&, const int16_t*, OutT*, const GemmBlocking&,
                      const GemmBlocking::Tile&, uint32_t, size_t, bool);
  if constexpr (kSplit) {
    return std::array<Fn, sizeof...(N)>{&split_rows<Vec, int(N) + 1, OutT>...};
  } else {
    return std::array<Fn, sizeof...(N)>{&wide_rows<Vec, int(N) + 1, OutT>...};
  }
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
  s.BO % 16 == 0 ? run_wide_vec<Zmm>(m, p, reset, s, out) : run_wide_vec<Ymm>(m, p, reset, s, out);
}

// The CPU and the memory's layouts; then whether 64-bit sums can be widened often enough.
bool layouts_fit(const OnChipMemory& m) {
  const hw::HwConfig& c = m.config();
  return cpu_has_vnni() && m.has_pair_weights() && c.block_out() % 8 == 0 && c.block_in() % 2 == 0;
}
bool shape_fits(const WideShape& s) { return !s.acc64 || s.flush_steps >= 1; }

}  // namespace

bool wide_gemm_supported(const OnChipMemory& m) { return layouts_fit(m) && shape_fits(WideShape(m)); }

bool run_gemm_wide(OnChipMemory& m, const LoopNest& l, bool reset) {
  if (!layouts_fit(m)) return false;
  const WideShape s(m);
  if (!shape_fits(s)) return false;
  const GemmBlocking* p = m.gemm_plans.plan(l, reset);
  if (p == nullptr) return false;
  if (m.out_is_int8()) {
    run_wide_out(m, *p, reset, s, m.out8.data());
  } else {
    run_wide_out(m, *p, reset, s, m.out16.data());
  }
  return true;
}

}  // namespace tauvta::sim
