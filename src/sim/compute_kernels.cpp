#include "sim/compute_kernels.h"

// GCC 12's AVX-512 intrinsic headers trip -Wmaybe-uninitialized on their own _mm512_undefined
// placeholders (a known false positive); nothing in this file reads uninitialized data.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <cstring>
#include <type_traits>

#include "common/error.h"
#include "hw/lanes.h"

namespace tauvta::sim {
namespace {

// ---------------------------------------------------------------------------------------------
// Portable GEMM: any widths. The dot product is exact (int32 for int8 x int8 lanes, else int64),
// then the sum wraps at the accumulator width.
template <class InT, class WT, class AccT, class OutT>
void gemm_portable(const OnChipMemory& m, const InT* inp, const WT* wgt, AccT* acc, OutT* out,
                   const LoopNest& l, bool reset, AccessObserver* obs) {
  using DotT = std::conditional_t<sizeof(InT) == 1 && sizeof(WT) == 1, int32_t, int64_t>;
  const hw::HwConfig& c = m.config();
  const int B = c.batch(), BI = c.block_in(), BO = c.block_out();
  const int acc_bits = c.acc_width(), out_bits = c.out_width();
  for (uint32_t o = 0; o < l.iter_out; ++o) {
    for (uint32_t i = 0; i < l.iter_in; ++i) {
      for (uint32_t u = 0; u < l.n_uops; ++u) {
        const hw::Uop& uop = l.uops[u];
        const uint32_t a = l.dst(uop, o, i), x = l.src(uop, o, i), w = l.wgt(uop, o, i);
        if (obs != nullptr) {
          obs->on_access(hw::MemId::kInp, x, 1, false);
          obs->on_access(hw::MemId::kWgt, w, 1, false);
          obs->on_access(hw::MemId::kAcc, a, 1, false);
          obs->on_access(hw::MemId::kAcc, a, 1, true);
          obs->on_access(hw::MemId::kOut, a, 1, true);
        }
        const WT* wt = wgt + size_t(w) * BO * BI;
        for (int b = 0; b < B; ++b) {
          const InT* xv = inp + (size_t(x) * B + b) * BI;
          AccT* av = acc + (size_t(a) * B + b) * BO;
          OutT* ov = out + (size_t(a) * B + b) * BO;
          for (int oc = 0; oc < BO; ++oc) {
            const WT* wr = wt + size_t(oc) * BI;
            DotT dot = 0;
            for (int ic = 0; ic < BI; ++ic) dot += DotT(xv[ic]) * DotT(wr[ic]);
            const int64_t nv = hw::sign_extend(uint64_t(int64_t(av[oc]) + int64_t(dot)), acc_bits);
            av[oc] = reset ? AccT(0) : AccT(nv);
            ov[oc] = OutT(hw::sign_extend(uint64_t(nv), out_bits));
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// AVX-512 VNNI GEMM for int8-or-narrower lanes, BLOCK_OUT a multiple of 16 and BLOCK_IN a
// multiple of 4, accumulators of at most 32 bits. dpbusd multiplies u8 by s8, so inputs are kept
// biased as x + 128 (inp_vnni) and 128 * row-sum(w) (precomputed at weight load) is subtracted.
#define TAUVTA_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

// Adds the dot products of one biased input row `xp` with 16 output channels of a VNNI weight
// block `wp` into `nv` and `nv2`: two dependency chains halve the dpbusd latency a step waits for.
TAUVTA_VNNI inline void dot_vnni(__m512i& nv, __m512i& nv2, const uint8_t* xp, const int8_t* wp,
                                 int groups, int BO) {
  int g = 0;
  for (; g + 1 < groups; g += 2) {
    int32_t x0, x1;
    std::memcpy(&x0, xp + 4 * g, 4);
    std::memcpy(&x1, xp + 4 * g + 4, 4);
    nv = _mm512_dpbusd_epi32(nv, _mm512_set1_epi32(x0), _mm512_loadu_si512(wp + size_t(g) * BO * 4));
    nv2 = _mm512_dpbusd_epi32(nv2, _mm512_set1_epi32(x1),
                              _mm512_loadu_si512(wp + size_t(g + 1) * BO * 4));
  }
  if (g < groups) {
    int32_t x0;
    std::memcpy(&x0, xp + 4 * g, 4);
    nv = _mm512_dpbusd_epi32(nv, _mm512_set1_epi32(x0), _mm512_loadu_si512(wp + size_t(g) * BO * 4));
  }
}

template <int kGroups, int kBatch, int kOcBlocks>
TAUVTA_VNNI void gemm_vnni(OnChipMemory& m, const LoopNest& l, bool reset) {
  const hw::HwConfig& c = m.config();
  const int BI = c.block_in(), BO = c.block_out();
  const int B = kBatch > 0 ? kBatch : c.batch();
  const int groups = kGroups > 0 ? kGroups : BI / 4;
  const int oc_blocks = kOcBlocks > 0 ? kOcBlocks : BO / 16;
  const int acc_shift = 32 - c.acc_width();  // 0 for 32-bit accumulators
  const int out_shift = c.out_width() < 8 ? 32 - c.out_width() : 0;
  const uint8_t* inp = m.inp_vnni.data();
  const int8_t* wv = m.wgt_vnni.data();
  const int32_t* corr = m.wgt_corr.data();
  int32_t* acc = m.acc32.data();
  int8_t* out = m.out8.data();
  const __m512i zero = _mm512_setzero_si512();
  const size_t wgt_elem = size_t(BO) * BI;
  for (uint32_t o = 0; o < l.iter_out; ++o) {
    for (uint32_t i = 0; i < l.iter_in; ++i) {
      const uint32_t da = o * l.dst_out + i * l.dst_in;
      const uint32_t dx = o * l.src_out + i * l.src_in;
      const uint32_t dw = o * l.wgt_out + i * l.wgt_in;
      for (uint32_t u = 0; u < l.n_uops; ++u) {
        const hw::Uop& uop = l.uops[u];
        const size_t a = uop.dst + da, x = uop.src + dx, w = uop.wgt + dw;
        for (int b = 0; b < B; ++b) {
          const uint8_t* xp = inp + (x * B + b) * BI;
          for (int cb = 0; cb < oc_blocks; ++cb) {
            const int8_t* wp = wv + w * wgt_elem + size_t(cb) * 64;
            int32_t* ap = acc + (a * B + b) * BO + size_t(cb) * 16;
            // One dependency chain from the old accumulator; dpbusd adds wrap like the hardware.
            __m512i nv = _mm512_sub_epi32(_mm512_loadu_si512(ap),
                                          _mm512_loadu_si512(corr + w * BO + size_t(cb) * 16));
            __m512i nv2 = zero;
            dot_vnni(nv, nv2, xp, wp, groups, BO);
            nv = _mm512_add_epi32(nv, nv2);
            if (acc_shift != 0) nv = _mm512_srai_epi32(_mm512_slli_epi32(nv, acc_shift), acc_shift);
            _mm512_storeu_si512(ap, reset ? zero : nv);
            __m512i ov = nv;
            if (out_shift != 0) ov = _mm512_srai_epi32(_mm512_slli_epi32(nv, out_shift), out_shift);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (a * B + b) * BO + size_t(cb) * 16),
                             _mm512_cvtepi32_epi8(ov));
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
// in a register: one accumulator load and store per micro-op instead of per step.
template <int kGroups, int kBatch, int kOcBlocks>
TAUVTA_VNNI void gemm_vnni_reduce(OnChipMemory& m, const LoopNest& l) {
  const hw::HwConfig& c = m.config();
  const int BI = c.block_in(), BO = c.block_out();
  const int B = kBatch > 0 ? kBatch : c.batch();
  const int groups = kGroups > 0 ? kGroups : BI / 4;
  const int oc_blocks = kOcBlocks > 0 ? kOcBlocks : BO / 16;
  const int acc_shift = 32 - c.acc_width();
  const int out_shift = c.out_width() < 8 ? 32 - c.out_width() : 0;
  const uint8_t* inp = m.inp_vnni.data();
  const int8_t* wv = m.wgt_vnni.data();
  const int32_t* corr = m.wgt_corr.data();
  int32_t* acc = m.acc32.data();
  int8_t* out = m.out8.data();
  const size_t wgt_elem = size_t(BO) * BI;
  for (uint32_t u = 0; u < l.n_uops; ++u) {
    const hw::Uop& uop = l.uops[u];
    const size_t a = uop.dst;
    for (int b = 0; b < B; ++b) {
      for (int cb = 0; cb < oc_blocks; ++cb) {
        int32_t* ap = acc + (a * B + b) * BO + size_t(cb) * 16;
        // Four independent chains (input group g feeds chain g % 4) and one for the corrections,
        // so consecutive steps of the reduction do not wait on each other's dpbusd latency.
        __m512i ch[4] = {_mm512_loadu_si512(ap), _mm512_setzero_si512(), _mm512_setzero_si512(),
                         _mm512_setzero_si512()};
        __m512i corr_sum = _mm512_setzero_si512();
        for (uint32_t o = 0; o < l.iter_out; ++o) {
          for (uint32_t i = 0; i < l.iter_in; ++i) {
            const size_t x = uop.src + o * l.src_out + i * l.src_in;
            const size_t w = uop.wgt + o * l.wgt_out + i * l.wgt_in;
            const uint8_t* xp = inp + (x * B + b) * BI;
            const int8_t* wp = wv + w * wgt_elem + size_t(cb) * 64;
            corr_sum = _mm512_add_epi32(corr_sum,
                                        _mm512_loadu_si512(corr + w * BO + size_t(cb) * 16));
            for (int g = 0; g < groups; ++g) {
              int32_t xg;
              std::memcpy(&xg, xp + 4 * g, 4);
              ch[g & 3] = _mm512_dpbusd_epi32(ch[g & 3], _mm512_set1_epi32(xg),
                                              _mm512_loadu_si512(wp + size_t(g) * BO * 4));
            }
          }
        }
        __m512i nv = _mm512_sub_epi32(
            _mm512_add_epi32(_mm512_add_epi32(ch[0], ch[1]), _mm512_add_epi32(ch[2], ch[3])),
            corr_sum);
        if (acc_shift != 0) nv = _mm512_srai_epi32(_mm512_slli_epi32(nv, acc_shift), acc_shift);
        _mm512_storeu_si512(ap, nv);
        __m512i ov = nv;
        if (out_shift != 0) ov = _mm512_srai_epi32(_mm512_slli_epi32(nv, out_shift), out_shift);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (a * B + b) * BO + size_t(cb) * 16),
                         _mm512_cvtepi32_epi8(ov));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Tensor ALU. Values are kept sign-extended at the accumulator width; every result wraps.
template <class AccT, class OutT>
void alu_loop(OnChipMemory& m, AccT* acc, OutT* out, const LoopNest& l, hw::AluOp op,
              bool use_imm, int32_t imm, AccessObserver* obs) {
  const hw::HwConfig& c = m.config();
  const int lanes = m.acc_lanes();
  const int acc_bits = c.acc_width(), out_bits = c.out_width(), shift_bits = c.log_acc_width;
  auto apply = [&](int64_t a, int64_t b) -> int64_t {
    switch (op) {
      case hw::AluOp::kMin: return a < b ? a : b;
      case hw::AluOp::kMax: return a > b ? a : b;
      case hw::AluOp::kAdd: return hw::sign_extend(uint64_t(a) + uint64_t(b), acc_bits);
      case hw::AluOp::kMul: return hw::sign_extend(uint64_t(a) * uint64_t(b), acc_bits);
      case hw::AluOp::kShr: {
        // The shift amount is the low LOG_ACC_WIDTH bits of B, signed; negative shifts left.
        const int64_t s = hw::sign_extend(uint64_t(b), shift_bits);
        if (s >= 0) return a >> s;
        return hw::sign_extend(uint64_t(a) << (-s), acc_bits);
      }
    }
    return a;
  };
  const int64_t imm_v = hw::sign_extend(uint64_t(int64_t(imm)), acc_bits);
  for (uint32_t o = 0; o < l.iter_out; ++o) {
    for (uint32_t i = 0; i < l.iter_in; ++i) {
      for (uint32_t u = 0; u < l.n_uops; ++u) {
        const hw::Uop& uop = l.uops[u];
        const uint32_t d = l.dst(uop, o, i), s = l.src(uop, o, i);
        if (obs != nullptr) {
          obs->on_access(hw::MemId::kAcc, s, 1, false);
          obs->on_access(hw::MemId::kAcc, d, 1, false);
          obs->on_access(hw::MemId::kAcc, d, 1, true);
          obs->on_access(hw::MemId::kOut, d, 1, true);
        }
        AccT* dv = acc + size_t(d) * lanes;
        const AccT* sv = acc + size_t(s) * lanes;
        OutT* ov = out + size_t(d) * lanes;
        for (int k = 0; k < lanes; ++k) {
          const int64_t r = apply(int64_t(dv[k]), use_imm ? imm_v : int64_t(sv[k]));
          dv[k] = AccT(r);
          ov[k] = OutT(hw::sign_extend(uint64_t(r), out_bits));
        }
      }
    }
  }
}

template <class InT, class WT>
void gemm_dispatch_acc(OnChipMemory& m, const InT* inp, const WT* wgt, const LoopNest& l,
                       bool reset, AccessObserver* obs) {
  if (m.acc_is_int32()) {
    if (m.out_is_int8()) {
      gemm_portable(m, inp, wgt, m.acc32.data(), m.out8.data(), l, reset, obs);
    } else {
      gemm_portable(m, inp, wgt, m.acc32.data(), m.out16.data(), l, reset, obs);
    }
  } else {
    if (m.out_is_int8()) {
      gemm_portable(m, inp, wgt, m.acc64.data(), m.out8.data(), l, reset, obs);
    } else {
      gemm_portable(m, inp, wgt, m.acc64.data(), m.out16.data(), l, reset, obs);
    }
  }
}

}  // namespace

bool cpu_has_vnni() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  }();
  return has;
}

void run_gemm(OnChipMemory& m, const LoopNest& l, bool reset, bool simd, AccessObserver* obs) {
  if (l.n_uops == 0 || l.iter_out == 0 || l.iter_in == 0) return;
  if (simd && obs == nullptr && m.has_vnni_weights() && m.acc_is_int32() && cpu_has_vnni()) {
    const hw::HwConfig& c = m.config();
    const bool default_shape = c.block_in() == 16 && c.batch() == 1 && c.block_out() == 16;
    const bool reduce = !reset && l.dst_out == 0 && l.dst_in == 0;
    if (reduce) {
      default_shape ? gemm_vnni_reduce<4, 1, 1>(m, l) : gemm_vnni_reduce<0, 0, 0>(m, l);
    } else {
      default_shape ? gemm_vnni<4, 1, 1>(m, l, reset) : gemm_vnni<0, 0, 0>(m, l, reset);
    }
    return;
  }
  if (m.inp_is_int8()) {
    if (m.wgt_is_int8()) {
      gemm_dispatch_acc(m, m.inp8.data(), m.wgt8.data(), l, reset, obs);
    } else {
      gemm_dispatch_acc(m, m.inp8.data(), m.wgt16.data(), l, reset, obs);
    }
  } else {
    if (m.wgt_is_int8()) {
      gemm_dispatch_acc(m, m.inp16.data(), m.wgt8.data(), l, reset, obs);
    } else {
      gemm_dispatch_acc(m, m.inp16.data(), m.wgt16.data(), l, reset, obs);
    }
  }
}

void run_alu(OnChipMemory& m, const LoopNest& l, hw::AluOp op, bool use_imm, int32_t imm,
             AccessObserver* obs) {
  if (l.n_uops == 0 || l.iter_out == 0 || l.iter_in == 0) return;
  if (m.acc_is_int32()) {
    if (m.out_is_int8()) {
      alu_loop(m, m.acc32.data(), m.out8.data(), l, op, use_imm, imm, obs);
    } else {
      alu_loop(m, m.acc32.data(), m.out16.data(), l, op, use_imm, imm, obs);
    }
  } else {
    if (m.out_is_int8()) {
      alu_loop(m, m.acc64.data(), m.out8.data(), l, op, use_imm, imm, obs);
    } else {
      alu_loop(m, m.acc64.data(), m.out16.data(), l, op, use_imm, imm, obs);
    }
  }
}

}  // namespace tauvta::sim
