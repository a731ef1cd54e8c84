// Disassembler and assembler: one readable line per instruction and per micro-op, and that text
// back to binary. Both read the field table of isa_layout.h; the text format is in docs/isa.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hw/insn.h"
#include "hw/isa_layout.h"

namespace tauvta::hw {

// One line, no index prefix and no newline, e.g.
//   LOAD INP sram_base=4 dram_base=73728 y_size=2 x_size=3 x_stride=5 y_pad=1,2 x_pad=2,1 deps=pop_next
std::string disassemble(const Insn& insn);
// "GEMM_UOP acc=3 inp=5 wgt=7" or "ALU_UOP dst=3 src=5".
std::string disassemble_uop(UopFormat f, const Uop& uop);
std::string disassemble_gemm_uop(const Uop& uop);
std::string disassemble_alu_uop(const Uop& uop);

// A whole program, one "NNNN: <disassembly>" line per instruction. Throws on undefined opcodes.
std::string disassemble_program(const IsaLayout& layout, std::span<const RawInsn> program);

// Result of assembling a text: the instructions and any micro-op lines, in order.
struct Assembled {
  std::vector<RawInsn> insns;
  std::vector<uint32_t> uops;
};

// Parses text written by disassemble_program (index prefixes and '#' comments ignored) and
// GEMM_UOP/ALU_UOP lines. Throws tauvta::Error naming `source`, the line number and the token.
Assembled assemble(const IsaLayout& layout, std::string_view text,
                   std::string_view source = "<text>");

}  // namespace tauvta::hw
