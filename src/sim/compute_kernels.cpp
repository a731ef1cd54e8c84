#include "sim/compute_kernels.h"


#include <cstring>
#include <type_traits>

#include "common/error.h"
#include "hw/lanes.h"
#include "sim/alu_vector.h"
#include "sim/avx2_gemm.h"
#include "sim/vnni_gemm.h"
#include "sim/wide_gemm.h"

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
            // Added as unsigned: the accumulator wraps at acc_bits like the hardware's, and with
            // 64-bit accumulators a signed int64 sum would overflow (undefined behaviour).
            const int64_t nv = hw::sign_extend(uint64_t(int64_t(av[oc])) + uint64_t(int64_t(dot)), acc_bits);
            av[oc] = reset ? AccT(0) : AccT(nv);
            ov[oc] = OutT(hw::sign_extend(uint64_t(nv), out_bits));
          }
        }
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

void run_gemm(OnChipMemory& m, const LoopNest& l, bool reset, bool simd, AccessObserver* obs) {
  if (l.n_uops == 0 || l.iter_out == 0 || l.iter_in == 0) return;
  // The memory keeps the layouts of the best kernel this CPU runs for its config (VNNI, else AVX2).
  if (simd && obs == nullptr) {
    switch (m.simd_gemm()) {
      case SimdGemm::kVnni: run_gemm_vnni(m, l, reset); return;
      case SimdGemm::kAvx2:
        // On a CPU with AVX-512 VNNI, planned instructions take vpdpwssd over whole tiles.
        if (!run_gemm_wide(m, l, reset)) run_gemm_avx2(m, l, reset);
        return;
      case SimdGemm::kNone: break;
    }
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
  // Without an observer (which hears every element), a whole row of lanes at a time.
  if (obs == nullptr && run_alu_vector(m, l, op, use_imm, imm)) return;
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
