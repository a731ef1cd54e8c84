// Decoded VTA instructions and micro-ops: plain values the simulator, the runtime and the
// assembler share. The bit layout lives in isa_layout.h; this file only names things.
#pragma once

#include <array>
#include <cstdint>

namespace tauvta::hw {

enum class Opcode : uint8_t { kLoad = 0, kStore = 1, kGemm = 2, kFinish = 3, kAlu = 4 };
enum class MemId : uint8_t { kUop = 0, kWgt = 1, kInp = 2, kAcc = 3, kOut = 4, kAcc8 = 5 };
enum class AluOp : uint8_t { kMin = 0, kMax = 1, kAdd = 2, kShr = 3, kMul = 4 };

inline constexpr int kNumOpcodes = 5;
inline constexpr int kNumMemIds = 6;
inline constexpr int kNumAluOps = 5;

const char* opcode_name(Opcode op);  // "LOAD", "STORE", ...
const char* mem_id_name(uint8_t id);  // "UOP", "WGT", ... or "MEM?" for ids past ACC_8BIT
const char* alu_op_name(uint8_t op);  // "MIN", ... or "ALU?"

// One 128-bit instruction as it sits in DRAM (little-endian words).
struct RawInsn {
  uint64_t lo = 0;
  uint64_t hi = 0;
  friend bool operator==(const RawInsn&, const RawInsn&) = default;
};
static_assert(sizeof(RawInsn) == 16);

// Every field of every format; a given opcode uses a subset (see isa_layout.h).
struct Insn {
  Opcode opcode = Opcode::kFinish;
  bool pop_prev = false, pop_next = false, push_prev = false, push_next = false;
  // LOAD / STORE
  uint8_t memory_type = 0;
  uint32_t sram_base = 0, dram_base = 0;
  uint32_t y_size = 0, x_size = 0, x_stride = 0;
  uint8_t y_pad_0 = 0, y_pad_1 = 0, x_pad_0 = 0, x_pad_1 = 0;
  // GEMM / ALU
  bool reset = false;
  uint32_t uop_bgn = 0, uop_end = 0, iter_out = 0, iter_in = 0;
  uint32_t dst_factor_out = 0, dst_factor_in = 0, src_factor_out = 0, src_factor_in = 0;
  uint32_t wgt_factor_out = 0, wgt_factor_in = 0;  // GEMM only
  uint8_t alu_opcode = 0;                          // ALU only
  bool use_imm = false;
  int32_t imm = 0;  // sign-extended from 16 bits

  bool is_mem() const { return opcode == Opcode::kLoad || opcode == Opcode::kStore; }
  friend bool operator==(const Insn&, const Insn&) = default;
};

// A decoded micro-op. GEMM uses dst (acc_idx), src (inp_idx) and wgt; ALU uses dst and src,
// both accumulator indices.
struct Uop {
  uint32_t dst = 0, src = 0, wgt = 0;
  friend bool operator==(const Uop&, const Uop&) = default;
};

// The three execution modules and where fetch routes each instruction (ISA.md section 3).
enum class Module : uint8_t { kLoad = 0, kCompute = 1, kStore = 2 };
inline constexpr int kNumModules = 3;
const char* module_name(Module m);

inline Module module_of(const Insn& insn) {
  if (insn.opcode == Opcode::kStore) return Module::kStore;
  if (insn.opcode == Opcode::kLoad && (insn.memory_type == uint8_t(MemId::kInp) ||
                                       insn.memory_type == uint8_t(MemId::kWgt))) {
    return Module::kLoad;
  }
  return Module::kCompute;
}

}  // namespace tauvta::hw
