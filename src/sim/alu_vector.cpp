#include "sim/alu_vector.h"

#include <algorithm>

#include "hw/lanes.h"

namespace tauvta::sim {
namespace {

// Sign-extends the low 32 - shift bits (shift 0: unchanged). Through uint32 so the left shift
// is modular; the arithmetic right shift of a negative int32 is defined since C++20.
inline int32_t alu_wrap32(uint32_t v, int shift) { return int32_t(v << shift) >> shift; }

template <hw::AluOp Op>
inline int32_t alu_apply(int32_t a, int32_t b, int acc_shift, int shr_shift) {
  if constexpr (Op == hw::AluOp::kMin) return std::min(a, b);
  if constexpr (Op == hw::AluOp::kMax) return std::max(a, b);
  if constexpr (Op == hw::AluOp::kAdd) return alu_wrap32(uint32_t(a) + uint32_t(b), acc_shift);
  if constexpr (Op == hw::AluOp::kMul) return alu_wrap32(uint32_t(a) * uint32_t(b), acc_shift);
  if constexpr (Op == hw::AluOp::kShr) {
    // The shift amount is the low LOG_ACC_WIDTH bits of b, signed (at most 16 either way for a
    // 32-bit accumulator); negative shifts left and wrap.
    const int32_t s = alu_wrap32(uint32_t(b), shr_shift);
    return s >= 0 ? a >> s : alu_wrap32(uint32_t(a) << -s, acc_shift);
  }
  return a;
}

// One row of lanes. The rows an instruction names are whole rows, either the same row or
// disjoint, so the pointers are restrict in each of the two forms (the output buffer never
// overlaps the accumulators).
template <hw::AluOp Op, bool kImm, class OutT>
__attribute__((always_inline)) inline void alu_row(int32_t* __restrict dv, const int32_t* __restrict sv,
                                               OutT* __restrict ov, int lanes, int32_t imm, int acc_shift,
                                               int shr_shift, int out_shift) {
  for (int k = 0; k < lanes; ++k) {
    const int32_t r = alu_apply<Op>(dv[k], kImm ? imm : sv[k], acc_shift, shr_shift);
    dv[k] = r;
    ov[k] = OutT(alu_wrap32(uint32_t(r), out_shift));
  }
}
template <hw::AluOp Op, class OutT>
__attribute__((always_inline)) inline void alu_row_self(int32_t* __restrict dv, OutT* __restrict ov, int lanes,
                                                    int acc_shift, int shr_shift, int out_shift) {
  for (int k = 0; k < lanes; ++k) {
    const int32_t r = alu_apply<Op>(dv[k], dv[k], acc_shift, shr_shift);
    dv[k] = r;
    ov[k] = OutT(alu_wrap32(uint32_t(r), out_shift));
  }
}

// One instruction: every (o, i, micro-op) element in the hardware's order, all lanes of a row
// at once. Kept inline so each ISA wrapper below compiles it for its own vector width.
template <hw::AluOp Op, bool kImm, class OutT>
__attribute__((always_inline)) inline void alu_rows(int32_t* acc, OutT* out, const LoopNest& l, int lanes,
                                                    int32_t imm, int acc_shift, int shr_shift, int out_shift) {
  for (uint32_t o = 0; o < l.iter_out; ++o) {
    for (uint32_t i = 0; i < l.iter_in; ++i) {
      for (uint32_t u = 0; u < l.n_uops; ++u) {
        const hw::Uop& uop = l.uops[u];
        const uint32_t d = l.dst(uop, o, i), s = l.src(uop, o, i);
        int32_t* dv = acc + size_t(d) * lanes;
        OutT* ov = out + size_t(d) * lanes;
        if (!kImm && d == s) {
          alu_row_self<Op>(dv, ov, lanes, acc_shift, shr_shift, out_shift);
        } else {
          alu_row<Op, kImm>(dv, acc + size_t(s) * lanes, ov, lanes, imm, acc_shift, shr_shift, out_shift);
        }
      }
    }
  }
}

struct AluArgs {
  int32_t* acc;
  int lanes;
  int32_t imm;
  int acc_shift, shr_shift, out_shift;
};

template <hw::AluOp Op, bool kImm, class OutT>
__attribute__((target("avx2"))) void alu_avx2(const AluArgs& a, OutT* out, const LoopNest& l) {
  alu_rows<Op, kImm>(a.acc, out, l, a.lanes, a.imm, a.acc_shift, a.shr_shift, a.out_shift);
}

template <hw::AluOp Op, bool kImm, class OutT>
void alu_baseline(const AluArgs& a, OutT* out, const LoopNest& l) {
  alu_rows<Op, kImm>(a.acc, out, l, a.lanes, a.imm, a.acc_shift, a.shr_shift, a.out_shift);
}

template <hw::AluOp Op, bool kImm, class OutT>
void alu_isa(const AluArgs& a, OutT* out, const LoopNest& l) {
  cpu_has_avx2() ? alu_avx2<Op, kImm>(a, out, l) : alu_baseline<Op, kImm>(a, out, l);
}

template <hw::AluOp Op, class OutT>
void alu_operand(const AluArgs& a, OutT* out, const LoopNest& l, bool use_imm) {
  use_imm ? alu_isa<Op, true>(a, out, l) : alu_isa<Op, false>(a, out, l);
}

template <class OutT>
void alu_op(const AluArgs& a, OutT* out, const LoopNest& l, hw::AluOp op, bool use_imm) {
  switch (op) {
    case hw::AluOp::kMin: return alu_operand<hw::AluOp::kMin>(a, out, l, use_imm);
    case hw::AluOp::kMax: return alu_operand<hw::AluOp::kMax>(a, out, l, use_imm);
    case hw::AluOp::kAdd: return alu_operand<hw::AluOp::kAdd>(a, out, l, use_imm);
    case hw::AluOp::kShr: return alu_operand<hw::AluOp::kShr>(a, out, l, use_imm);
    case hw::AluOp::kMul: return alu_operand<hw::AluOp::kMul>(a, out, l, use_imm);
  }
}

}  // namespace

bool run_alu_vector(OnChipMemory& m, const LoopNest& l, hw::AluOp op, bool use_imm, int32_t imm) {
  if (!m.acc_is_int32()) return false;
  if (l.n_uops == 0 || l.iter_out == 0 || l.iter_in == 0) return true;
  const hw::HwConfig& c = m.config();
  const AluArgs a{m.acc32.data(), m.acc_lanes(),
               // The immediate, like every operand, as a value of the accumulator's width.
               alu_wrap32(uint32_t(imm), 32 - c.acc_width()), 32 - c.acc_width(), 32 - c.log_acc_width,
               32 - c.out_width()};
  if (m.out_is_int8()) {
    alu_op(a, m.out8.data(), l, op, use_imm);
  } else {
    alu_op(a, m.out16.data(), l, op, use_imm);
  }
  return true;
}

}  // namespace tauvta::sim
