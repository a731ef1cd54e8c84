#include "hw/disasm.h"

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::hw {
namespace {

std::string deps_text(const Insn& i) {
  std::string s;
  auto add = [&](bool on, const char* name) {
    if (!on) return;
    if (!s.empty()) s += '+';
    s += name;
  };
  add(i.pop_prev, "pop_prev");
  add(i.pop_next, "pop_next");
  add(i.push_prev, "push_prev");
  add(i.push_next, "push_next");
  return s.empty() ? "none" : s;
}

// Memory ids past ACC_8BIT have no name; they print as mem=N so the bits survive a round trip.
std::string mem_text(uint8_t id) {
  return id < kNumMemIds ? mem_id_name(id) : fmt::format("mem={}", id);
}

std::string alu_op_text(uint8_t op) {
  return op < kNumAluOps ? alu_op_name(op) : fmt::format("alu={}", op);
}

std::string loop_text(const Insn& i) {
  return fmt::format("reset={} uop={}:{} iter={}x{} dst={},{} src={},{}", int(i.reset), i.uop_bgn,
                     i.uop_end, i.iter_out, i.iter_in, i.dst_factor_out, i.dst_factor_in,
                     i.src_factor_out, i.src_factor_in);
}

}  // namespace

std::string disassemble(const Insn& i) {
  switch (i.opcode) {
    case Opcode::kLoad:
    case Opcode::kStore:
      return fmt::format(
          "{} {} sram_base={} dram_base={} y_size={} x_size={} x_stride={} y_pad={},{} "
          "x_pad={},{} deps={}",
          opcode_name(i.opcode), mem_text(i.memory_type), i.sram_base, i.dram_base, i.y_size,
          i.x_size, i.x_stride, i.y_pad_0, i.y_pad_1, i.x_pad_0, i.x_pad_1, deps_text(i));
    case Opcode::kGemm:
      return fmt::format("GEMM {} wgt={},{} deps={}", loop_text(i), i.wgt_factor_out,
                         i.wgt_factor_in, deps_text(i));
    case Opcode::kAlu: {
      // use_imm selects the operand form; an immediate left in the bits of a tensor ALU
      // instruction is kept as unused_imm so the encoding is rebuilt exactly.
      std::string operand = i.use_imm ? fmt::format("imm={}", i.imm) : std::string("tensor");
      if (!i.use_imm && i.imm != 0) operand += fmt::format(" unused_imm={}", i.imm);
      return fmt::format("ALU {} {} {} deps={}", alu_op_text(i.alu_opcode), operand, loop_text(i),
                         deps_text(i));
    }
    case Opcode::kFinish:
      return fmt::format("FINISH deps={}", deps_text(i));
  }
  return fmt::format("OPCODE? opcode={}", int(i.opcode));
}

std::string disassemble_gemm_uop(const Uop& u) {
  return fmt::format("GEMM_UOP acc={} inp={} wgt={}", u.dst, u.src, u.wgt);
}

std::string disassemble_alu_uop(const Uop& u) {
  return fmt::format("ALU_UOP dst={} src={}", u.dst, u.src);
}

std::string disassemble_program(const IsaLayout& layout, std::span<const RawInsn> program) {
  std::string out;
  for (size_t k = 0; k < program.size(); ++k) {
    const Insn insn = layout.decode(program[k], k);
    out += fmt::format("{:04d}: {}", k, disassemble(insn));
    // Bits outside every field (the gap below bit 64, FINISH's operand bits) are not part of the
    // decoded instruction; say so rather than let a re-assembled program differ silently.
    if (layout.encode(insn) != program[k]) {
      out += fmt::format("  # raw 0x{:016x}{:016x}: bits outside the fields are set (ignored)",
                         program[k].hi, program[k].lo);
    }
    out += '\n';
  }
  return out;
}

}  // namespace tauvta::hw
