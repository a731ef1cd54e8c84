// The GEMM core and tensor ALU inner loops over OnChipMemory. A kernel runs one whole GEMM or ALU
// instruction (two affine loops around a micro-op range). Callers check index ranges first
// (loop_bounds.h); kernels may assume every index they compute is in range.
#pragma once

#include <cstdint>

#include "common/cpu_features.h"
#include "hw/insn.h"
#include "sim/onchip_memory.h"

namespace tauvta::sim {

// Observer of SRAM accesses (the hazard checker). Only the checked (slow) paths report.
class AccessObserver {
 public:
  virtual ~AccessObserver() = default;
  virtual void on_access(hw::MemId mem, uint32_t first, uint32_t count, bool write) = 0;
};

// One GEMM/ALU instruction's loop nest. As in vta.cc, the loop offset of each index lives in a
// register one bit wider than its buffer's address (offset masks) and the micro-op field plus
// the offset wraps at the index type's width (index masks). They differ only for the ALU source:
// its offset has the input buffer's width, its index the accumulator's.
struct LoopNest {
  const hw::Uop* uops = nullptr;
  uint32_t n_uops = 0;
  uint32_t iter_out = 0, iter_in = 0;
  uint32_t dst_out = 0, dst_in = 0, src_out = 0, src_in = 0, wgt_out = 0, wgt_in = 0;
  uint32_t dst_mask = ~0u, src_mask = ~0u, wgt_mask = ~0u;  // index masks
  uint32_t src_offset_mask = ~0u;                           // dst/wgt offsets use the index mask

  uint32_t dst(const hw::Uop& u, uint32_t o, uint32_t i) const {
    return (u.dst + ((o * dst_out + i * dst_in) & dst_mask)) & dst_mask;
  }
  uint32_t src(const hw::Uop& u, uint32_t o, uint32_t i) const {
    return (u.src + ((o * src_out + i * src_in) & src_offset_mask)) & src_mask;
  }
  uint32_t wgt(const hw::Uop& u, uint32_t o, uint32_t i) const {
    return (u.wgt + ((o * wgt_out + i * wgt_in) & wgt_mask)) & wgt_mask;
  }
};

// Which SIMD kernels this CPU runs: cpu_has_vnni(), cpu_has_avx2() (common/cpu_features.h).

// GEMM: acc' = wrap(acc + dot); acc = reset ? 0 : acc'; out = low OUT bits of acc'.
// `simd` allows the SIMD kernel `m` keeps layouts for (m.simd_gemm(): VNNI, else AVX2); results
// are identical either way.
void run_gemm(OnChipMemory& m, const LoopNest& loop, bool reset, bool simd,
              AccessObserver* observer);

// ALU: acc[dst] = op(acc[dst], use_imm ? imm : acc[src]); out[dst] = low OUT bits.
void run_alu(OnChipMemory& m, const LoopNest& loop, hw::AluOp op, bool use_imm, int32_t imm,
             AccessObserver* observer);

}  // namespace tauvta::sim
