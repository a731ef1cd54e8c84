// Small helpers for simulator tests: build instructions by hand and run them.
#pragma once

#include <vector>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "hw/isa_layout.h"
#include "sim/simulator.h"

namespace tauvta::testing {

inline hw::Insn mem_insn(hw::Opcode op, hw::MemId mem, uint32_t sram, uint32_t dram, uint32_t y,
                         uint32_t x, uint32_t stride) {
  hw::Insn i;
  i.opcode = op;
  i.memory_type = uint8_t(mem);
  i.sram_base = sram;
  i.dram_base = dram;
  i.y_size = y;
  i.x_size = x;
  i.x_stride = stride;
  return i;
}

inline hw::Insn gemm_insn(uint32_t uop_bgn, uint32_t uop_end, uint32_t iter_out, uint32_t iter_in) {
  hw::Insn i;
  i.opcode = hw::Opcode::kGemm;
  i.uop_bgn = uop_bgn;
  i.uop_end = uop_end;
  i.iter_out = iter_out;
  i.iter_in = iter_in;
  return i;
}

inline hw::Insn finish_insn() {
  hw::Insn i;
  i.opcode = hw::Opcode::kFinish;
  return i;
}

inline std::vector<hw::RawInsn> encode_all(const hw::HwConfig& c, const std::vector<hw::Insn>& v) {
  hw::IsaLayout layout(c);
  std::vector<hw::RawInsn> out;
  for (const hw::Insn& i : v) out.push_back(layout.encode(i));
  return out;
}

}  // namespace tauvta::testing
