#include "hw/disasm.h"

#include <fmt/format.h>

#include "common/error.h"
#include "hw/isa_fields.h"

namespace tauvta::hw {

// The line is built from the rows of isa_fields.def the instruction's format holds: the mnemonic,
// then the bare words (a named value such as INP or MAX, then the ALU operand), then the key=value
// tokens, then deps=, each group in row order.
std::string disassemble(const Insn& i) {
  if (uint8_t(i.opcode) >= kNumOpcodes) return fmt::format("OPCODE? opcode={}", int(i.opcode));
  const Format format = format_of(i.opcode);
  auto value = [&](const FieldInfo& f) { return IsaLayout::get(i, f.id); };
  auto number = [&](const FieldInfo& f) {
    return f.is_signed() ? fmt::format("{}", int64_t(value(f))) : fmt::format("{}", value(f));
  };
  auto next = [](const FieldInfo& f) -> const FieldInfo& { return kFields[size_t(f.id) + 1]; };
  std::string s = opcode_name(i.opcode);
  for (const FieldInfo& f : kFields) {
    if (!f.in(format)) continue;
    const TextForm& t = f.text;
    if (t.kind == TextKind::kNamed) {
      // Ids without a name print as key=N so the bits survive a round trip.
      const uint64_t v = value(f);
      s += v < uint64_t(t.num_names) ? fmt::format(" {}", t.names[v])
                                     : fmt::format(" {}={}", t.key, v);
    } else if (t.kind == TextKind::kOperand) {
      // The operand bit selects the form; a value left in the bits of the word form is kept as
      // unused_key=N so the encoding is rebuilt exactly.
      const TextForm& vt = next(f).text;
      const int64_t v = int64_t(value(next(f)));
      if (value(f) != 0) {
        s += fmt::format(" {}={}", vt.key, v);
      } else {
        s += fmt::format(" {}", t.word);
        if (v != 0) s += fmt::format(" {}={}", vt.word, v);
      }
    }
  }
  for (const FieldInfo& f : kFields) {
    if (!f.in(format)) continue;
    const TextForm& t = f.text;
    if (t.kind == TextKind::kValue) {
      s += fmt::format(" {}={}", t.key, number(f));
    } else if (t.kind == TextKind::kPairFirst) {
      s += fmt::format(" {}={}{}{}", t.key, number(f), t.sep, number(next(f)));
    }
  }
  std::string deps;
  const char* group = "";
  for (const FieldInfo& f : kFields) {
    if (!f.in(format) || f.text.kind != TextKind::kDep) continue;
    group = f.text.key;
    if (value(f) == 0) continue;
    if (!deps.empty()) deps += '+';
    deps += f.text.word;
  }
  s += fmt::format(" {}={}", group, deps.empty() ? "none" : deps);
  return s;
}

std::string disassemble_uop(UopFormat f, const Uop& u) {
  std::string s = kUopMnemonics[size_t(f)];
  for (const UopFieldInfo& d : kUopFields) {
    if (d.in(f)) s += fmt::format(" {}={}", d.key[size_t(f)], u.*d.member);
  }
  return s;
}

std::string disassemble_gemm_uop(const Uop& u) { return disassemble_uop(UopFormat::kGemm, u); }

std::string disassemble_alu_uop(const Uop& u) { return disassemble_uop(UopFormat::kAlu, u); }

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
