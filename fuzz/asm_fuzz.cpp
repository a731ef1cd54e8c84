// The assembler's text (hw::assemble, what `tauvta asm` reads), for the default Pynq config and
// the reference programs' 2x8 4-bit config (a leading '#2' comment line picks the latter). What
// assembles must disassemble and assemble back to the same instructions.
#include <string_view>

#include <fmt/format.h>

#include "fuzz_target.h"
#include "hw/disasm.h"
#include "hw/hw_config.h"
#include "hw/isa_layout.h"

TAUVTA_FUZZ_TARGET(asm) {
  using namespace tauvta;
  static const hw::HwConfig pynq;
  static const hw::HwConfig small = hw::HwConfig::from_name("2x8_i4w4a32_15_14_15_17");
  static const hw::IsaLayout pynq_layout(pynq), small_layout(small);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const hw::IsaLayout& layout = text.starts_with("#2") ? small_layout : pynq_layout;

  const hw::Assembled a = hw::assemble(layout, text, "fuzz.asm");
  const std::string listing = hw::disassemble_program(layout, a.insns);
  const hw::Assembled again = hw::assemble(layout, listing, "disassembly");
  fuzz::check(again.insns == a.insns, fmt::format("the disassembly does not assemble back:\n{}", listing));
  for (const uint32_t u : a.uops) {
    // Micro-op words are shared by GEMM and ALU; each reading must survive its own round trip.
    const hw::Uop g = layout.decode_gemm_uop(u), l = layout.decode_alu_uop(u);
    fuzz::check(layout.decode_gemm_uop(layout.encode_gemm_uop(g)) == g, fmt::format("GEMM micro-op 0x{:08x}", u));
    fuzz::check(layout.decode_alu_uop(layout.encode_alu_uop(l)) == l, fmt::format("ALU micro-op 0x{:08x}", u));
    const std::string gt = hw::disassemble_gemm_uop(g);
    const hw::Assembled ga = hw::assemble(layout, gt, "disassembly");
    fuzz::check(ga.uops.size() == 1 && layout.decode_gemm_uop(ga.uops[0]) == g, "'" + gt + "' does not assemble back");
  }
}
