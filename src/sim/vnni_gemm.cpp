#include "sim/vnni_gemm.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "sim/avx512_vectors.h"
#include "sim/gemm_blocking.h"

namespace tauvta::sim {
namespace {

// dpbusd multiplies u8 by s8, so inputs are kept biased as x + 128 (inp_vnni) and
// 128 * row-sum(w) (wgt_corr, computed at weight load) is subtracted. Weights are laid out
// [ic/4][oc][4], so one vector load covers kLanes output channels of one group of 4 inputs.

// Geometry shared by both kernels; k* > 0 fixes a dimension at compile time.
template <class Vec, int kGroups, int kBatch>
struct VnniShape {
  explicit VnniShape(const hw::HwConfig& c)
      : BI(c.block_in()), BO(c.block_out()), B(kBatch > 0 ? kBatch : c.batch()),
        groups(kGroups > 0 ? kGroups : c.block_in() / 4), oc_blocks(c.block_out() / Vec::kLanes),
        acc_shift(32 - c.acc_width()), out_shift(c.out_width() < 8 ? 32 - c.out_width() : 0),
        wgt_elem(size_t(c.block_out()) * c.block_in()) {}
  int BI, BO, B, groups, oc_blocks, acc_shift, out_shift;
  size_t wgt_elem;
};

// Writes a finished accumulator vector: wrap to the accumulator width, store (or zero on reset),
// and store the low OUT bits of the pre-reset value into the output buffer.
template <class Vec, class S>
TAUVTA_AVX512_VNNI inline void finish(const S& s, typename Vec::V nv, int32_t* ap, int8_t* op, bool reset) {
  if (s.acc_shift != 0) nv = Vec::wrap(nv, s.acc_shift);
  Vec::store(ap, reset ? Vec::zero() : nv);
  Vec::store_low_bytes(op, s.out_shift != 0 ? Vec::wrap(nv, s.out_shift) : nv);
}

// General loop order (the hardware's): every (o, i) step runs all micro-ops. Two dependency
// chains per micro-op halve the dpbusd latency it waits for.
template <class Vec, int kGroups, int kBatch>
TAUVTA_AVX512_VNNI void gemm_steps(OnChipMemory& m, const LoopNest& l, bool reset) {
  const VnniShape<Vec, kGroups, kBatch> s(m.config());
  const uint8_t* inp = m.inp_vnni.data();
  const int8_t* wv = m.wgt_vnni.data();
  const int32_t* corr = m.wgt_corr.data();
  int32_t* acc = m.acc32.data();
  int8_t* out = m.out8.data();
  for (uint32_t o = 0; o < l.iter_out; ++o) {
    for (uint32_t i = 0; i < l.iter_in; ++i) {
      const uint32_t da = o * l.dst_out + i * l.dst_in;
      const uint32_t dx = o * l.src_out + i * l.src_in;
      const uint32_t dw = o * l.wgt_out + i * l.wgt_in;
      for (uint32_t u = 0; u < l.n_uops; ++u) {
        const hw::Uop& uop = l.uops[u];
        const size_t a = uop.dst + da, x = uop.src + dx, w = uop.wgt + dw;
        for (int b = 0; b < s.B; ++b) {
          const uint8_t* xp = inp + (x * s.B + b) * s.BI;
          for (int cb = 0; cb < s.oc_blocks; ++cb) {
            const size_t lane0 = size_t(cb) * Vec::kLanes;
            const int8_t* wp = wv + w * s.wgt_elem + lane0 * 4;
            int32_t* ap = acc + (a * s.B + b) * s.BO + lane0;
            typename Vec::V nv = Vec::sub(Vec::load(ap), Vec::load(corr + w * s.BO + lane0));
            typename Vec::V nv2 = Vec::zero();
            int g = 0;
            for (; g + 1 < s.groups; g += 2) {
              int32_t x0, x1;
              std::memcpy(&x0, xp + 4 * g, 4);
              std::memcpy(&x1, xp + 4 * g + 4, 4);
              nv = Vec::dpbusd(nv, Vec::set1(x0), Vec::load(wp + size_t(g) * s.BO * 4));
              nv2 = Vec::dpbusd(nv2, Vec::set1(x1), Vec::load(wp + size_t(g + 1) * s.BO * 4));
            }
            if (g < s.groups) {
              int32_t x0;
              std::memcpy(&x0, xp + 4 * g, 4);
              nv = Vec::dpbusd(nv, Vec::set1(x0), Vec::load(wp + size_t(g) * s.BO * 4));
            }
            finish<Vec>(s, Vec::add(nv, nv2), ap, out + (a * s.B + b) * s.BO + lane0, reset);
          }
        }
      }
    }
  }
}

// Reduction-shaped GEMM: the accumulator index does not move with the loops (dst factors 0), so
// each micro-op accumulates over all iter_out x iter_in steps into one accumulator row. Without
// reset the hardware's final state is order-independent (acc += dot is a wrapping sum; out is the
// truncation of the last, i.e. final, sum), so this kernel runs micro-op-major and keeps the row
// in registers: one accumulator load and store per micro-op instead of per step, and four
// independent chains so consecutive steps do not wait on each other's dpbusd latency.
template <class Vec, int kGroups, int kBatch>
TAUVTA_AVX512_VNNI void gemm_reduce(OnChipMemory& m, const LoopNest& l) {
  const VnniShape<Vec, kGroups, kBatch> s(m.config());
  const uint8_t* inp = m.inp_vnni.data();
  const int8_t* wv = m.wgt_vnni.data();
  const int32_t* corr = m.wgt_corr.data();
  int32_t* acc = m.acc32.data();
  int8_t* out = m.out8.data();
  for (uint32_t u = 0; u < l.n_uops; ++u) {
    const hw::Uop& uop = l.uops[u];
    const size_t a = uop.dst;
    for (int b = 0; b < s.B; ++b) {
      for (int cb = 0; cb < s.oc_blocks; ++cb) {
        const size_t lane0 = size_t(cb) * Vec::kLanes;
        int32_t* ap = acc + (a * s.B + b) * s.BO + lane0;
        typename Vec::V ch[4] = {Vec::load(ap), Vec::zero(), Vec::zero(), Vec::zero()};
        typename Vec::V corr_sum = Vec::zero();
        for (uint32_t o = 0; o < l.iter_out; ++o) {
          for (uint32_t i = 0; i < l.iter_in; ++i) {
            const size_t x = uop.src + o * l.src_out + i * l.src_in;
            const size_t w = uop.wgt + o * l.wgt_out + i * l.wgt_in;
            const uint8_t* xp = inp + (x * s.B + b) * s.BI;
            const int8_t* wp = wv + w * s.wgt_elem + lane0 * 4;
            corr_sum = Vec::add(corr_sum, Vec::load(corr + w * s.BO + lane0));
            for (int g = 0; g < s.groups; ++g) {
              int32_t xg;
              std::memcpy(&xg, xp + 4 * g, 4);
              ch[g & 3] = Vec::dpbusd(ch[g & 3], Vec::set1(xg), Vec::load(wp + size_t(g) * s.BO * 4));
            }
          }
        }
        const typename Vec::V nv =
            Vec::sub(Vec::add(Vec::add(ch[0], ch[1]), Vec::add(ch[2], ch[3])), corr_sum);
        finish<Vec>(s, nv, ap, out + (a * s.B + b) * s.BO + lane0, false);
      }
    }
  }
}

// One block of a planned tile (gemm_blocking.h): NV vector rows, each a (row, batch) pair of the
// tile's rows, hold their sums in registers over all the tile's steps, and each step's weight
// vectors are loaded once for all NV. The sums join the accumulators row by row at the end (in
// order, so rows that share an accumulator add up), minus the steps' bias corrections.
template <class Vec, int NV, class S>
TAUVTA_AVX512_VNNI void blocked_rows(const S& s, OnChipMemory& m, const GemmBlocking& p,
                                     const GemmBlocking::Tile& t, uint32_t v0, size_t lane0, bool reset) {
  const uint8_t* xp[NV];
  size_t at[NV];
  for (int v = 0; v < NV; ++v) {
    const GemmBlocking::VectorRow r = p.vector_row(t, v0 + uint32_t(v), s.B);
    xp[v] = m.inp_vnni.data() + r.inp * s.BI;
    at[v] = r.acc * s.BO + lane0;
  }
  const int8_t* wv = m.wgt_vnni.data() + lane0 * 4;
  const int32_t* corr = m.wgt_corr.data() + lane0;
  const size_t x_step = size_t(s.B) * s.BI, w_group = size_t(s.BO) * 4;
  typename Vec::V sum[NV], cs = Vec::zero();
  for (int v = 0; v < NV; ++v) sum[v] = Vec::zero();
  for (uint32_t q = t.step_begin; q < t.step_end; ++q) {
    const GemmBlocking::Step st = p.steps[q];
    const size_t xo = st.src * x_step;
    const int8_t* wp = wv + st.wgt * s.wgt_elem;
    cs = Vec::add(cs, Vec::load(corr + size_t(st.wgt) * s.BO));
    for (int g = 0; g < s.groups; ++g) {
      const typename Vec::V w = Vec::load(wp + g * w_group);
      for (int v = 0; v < NV; ++v) {
        int32_t x;
        std::memcpy(&x, xp[v] + xo + 4 * g, 4);
        sum[v] = Vec::dpbusd(sum[v], Vec::set1(x), w);
      }
    }
  }
  int32_t* acc = m.acc32.data();
  int8_t* out = m.out8.data();
  for (int v = 0; v < NV; ++v) {
    int32_t* ap = acc + at[v];
    finish<Vec>(s, Vec::sub(Vec::add(Vec::load(ap), sum[v]), cs), ap, out + at[v], reset);
  }
}

// Vector rows per block: 16 sums, a weight vector and a broadcast fit the 32 zmm registers with
// room to spare, and a convolution's 7- or 14-pixel rows run as one block (not 4 + 2 + 1).
constexpr int kMaxBlock = 16;

template <class Vec, class S, size_t... N>
constexpr auto block_table(std::index_sequence<N...>) {
  using Fn = void (*)(const S&, OnChipMemory&, const GemmBlocking&, const GemmBlocking::Tile&, uint32_t, size_t, bool);
  return std::array<Fn, sizeof...(N)>{&blocked_rows<Vec, int(N) + 1, S>...};
}

// Runs a plan: every tile's vector rows in blocks of kMaxBlock and one block of the rest.
template <class Vec, int kGroups, int kBatch>
TAUVTA_AVX512_VNNI void gemm_blocked(OnChipMemory& m, const GemmBlocking& p, bool reset) {
  using S = VnniShape<Vec, kGroups, kBatch>;
  static constexpr auto kBlocks = block_table<Vec, S>(std::make_index_sequence<kMaxBlock>());
  const S s(m.config());
  for (const GemmBlocking::Tile& t : p.tiles) {
    const uint32_t n = (t.row_end - t.row_begin) * uint32_t(s.B);
    for (int cb = 0; cb < s.oc_blocks; ++cb) {
      const size_t lane0 = size_t(cb) * Vec::kLanes;
      uint32_t v = 0;
      for (; v + kMaxBlock <= n; v += kMaxBlock) blocked_rows<Vec, kMaxBlock>(s, m, p, t, v, lane0, reset);
      if (v < n) kBlocks[n - v - 1](s, m, p, t, v, lane0, reset);
    }
  }
}

template <class Vec, int kGroups, int kBatch>
void run(OnChipMemory& m, const LoopNest& l, bool reset) {
  if (const GemmBlocking* plan = m.gemm_plans.plan(l, reset)) {
    gemm_blocked<Vec, kGroups, kBatch>(m, *plan, reset);
  } else if (!reset && l.dst_out == 0 && l.dst_in == 0) {
    gemm_reduce<Vec, kGroups, kBatch>(m, l);
  } else {
    gemm_steps<Vec, kGroups, kBatch>(m, l, reset);
  }
}

}  // namespace

void run_gemm_vnni(OnChipMemory& m, const LoopNest& l, bool reset) {
  const hw::HwConfig& c = m.config();
  if (c.block_out() % 16 == 0) {
    if (c.block_in() == 16 && c.batch() == 1) {
      run<Zmm, 4, 1>(m, l, reset);  // the default 1x16x16 shape, fully unrolled
    } else {
      run<Zmm, 0, 0>(m, l, reset);
    }
  } else {
    run<Ymm, 0, 0>(m, l, reset);
  }
}

}  // namespace tauvta::sim
