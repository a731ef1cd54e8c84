// The tensor ALU on accumulators of at most 32 bits, one instruction at a time with the operation
// and operand kind fixed at compile time, in int32 arithmetic over a whole row of lanes (which
// the compiler vectorizes: AVX2 when this CPU has it, SSE2 otherwise). The same values as the
// portable loop (compute_kernels.cpp): every result wraps at the accumulator width through uint32
// arithmetic and a sign extension, shifts take the low LOG_ACC_WIDTH bits of the operand signed,
// and rows are visited in the hardware's order, so a micro-op reading a row an earlier one wrote
// sees the new value.
#pragma once

#include <cstdint>

#include "hw/insn.h"
#include "sim/compute_kernels.h"
#include "sim/onchip_memory.h"

namespace tauvta::sim {

// Runs one ALU instruction; false (nothing done) when the accumulators are 64-bit.
bool run_alu_vector(OnChipMemory& m, const LoopNest& loop, hw::AluOp op, bool use_imm, int32_t imm);

}  // namespace tauvta::sim
