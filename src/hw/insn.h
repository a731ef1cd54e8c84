// Decoded VTA instructions and micro-ops: plain values the simulator, the runtime and the
// assembler share. The fields are declared in isa_fields.def, the bit layout in isa_layout.h;
// this file only names things.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

namespace tauvta::hw {

enum class Opcode : uint8_t { kLoad = 0, kStore = 1, kGemm = 2, kFinish = 3, kAlu = 4 };
enum class MemId : uint8_t { kUop = 0, kWgt = 1, kInp = 2, kAcc = 3, kOut = 4, kAcc8 = 5 };
enum class AluOp : uint8_t { kMin = 0, kMax = 1, kAdd = 2, kShr = 3, kMul = 4 };

inline constexpr int kNumOpcodes = 5;
inline constexpr int kNumMemIds = 6;
inline constexpr int kNumAluOps = 5;

// The names of the values above, indexed by value (the field table and the assembler read them).
inline constexpr const char* kOpcodeNames[kNumOpcodes] = {"LOAD", "STORE", "GEMM", "FINISH", "ALU"};
inline constexpr const char* kMemIdNames[kNumMemIds] = {"UOP", "WGT", "INP", "ACC", "OUT",
                                                        "ACC_8BIT"};
inline constexpr const char* kAluOpNames[kNumAluOps] = {"MIN", "MAX", "ADD", "SHR", "MUL"};

const char* opcode_name(Opcode op);  // "LOAD", "STORE", ...
const char* mem_id_name(uint8_t id);  // "UOP", "WGT", ... or "MEM?" for ids past ACC_8BIT
const char* alu_op_name(uint8_t op);  // "MIN", ... or "ALU?"

// Members start at 0, except that a default Insn is FINISH (an instruction that does nothing).
template <class T>
constexpr T insn_default() {
  if constexpr (std::is_same_v<T, Opcode>) {
    return Opcode::kFinish;
  } else {
    return T{};
  }
}

// One 128-bit instruction as it sits in DRAM (little-endian words).
struct RawInsn {
  uint64_t lo = 0;
  uint64_t hi = 0;
  friend bool operator==(const RawInsn&, const RawInsn&) = default;
};
static_assert(sizeof(RawInsn) == 16);

// Every field of every format, one member per row of isa_fields.def (in its order); a given
// opcode uses a subset (see isa_layout.h). Signed fields hold the sign-extended value.
struct Insn {
#define TAUVTA_ISA_FIELD(Id, member, Type, ...) Type member = insn_default<Type>();
#include "hw/isa_fields.def"

  bool is_mem() const { return opcode == Opcode::kLoad || opcode == Opcode::kStore; }
  friend bool operator==(const Insn&, const Insn&) = default;
};

// A decoded micro-op (isa_fields.def's micro-op rows). GEMM uses dst (acc_idx), src (inp_idx) and
// wgt; ALU uses dst and src, both accumulator indices.
struct Uop {
#define TAUVTA_UOP_FIELD(Id, member, ...) uint32_t member = 0;
#include "hw/isa_fields.def"
  friend bool operator==(const Uop&, const Uop&) = default;
};

// The three execution modules and where fetch routes each instruction (docs/vta_isa.md section 3).
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
