// FunctionalCore: the bit-exact semantics of every instruction (docs/vta_isa.md section 4) over the
// on-chip memories and DRAM. It executes one decoded instruction at a time, in whatever order the
// timing model starts them; it never re-decodes micro-ops. Range violations throw tauvta::Error
// naming the instruction index, its disassembly and the offending field.
#pragma once

#include <cstddef>
#include <string>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "hw/isa_layout.h"
#include "sim/compute_kernels.h"
#include "sim/dram.h"
#include "sim/instruments.h"
#include "sim/onchip_memory.h"

namespace tauvta::sim {

class FunctionalCore {
 public:
  FunctionalCore(const hw::HwConfig& config, const hw::IsaLayout& layout, Dram& dram);

  void execute(const hw::Insn& insn, size_t index);
  void set_observer(AccessObserver* observer) { observer_ = observer; }
  void set_simd(bool simd) { simd_ = simd; }
  void set_instruments(LayerInstruments* instruments) { instruments_ = instruments; }
  OnChipMemory& memory() { return mem_; }
  const OnChipMemory& memory() const { return mem_; }

 private:
  void load(const hw::Insn& insn, size_t index);
  void store(const hw::Insn& insn, size_t index);
  void gemm(const hw::Insn& insn, size_t index);
  void alu(const hw::Insn& insn, size_t index);
  // Pointer to DRAM bytes [addr, addr+len); throws naming the instruction and row when outside.
  uint8_t* dram_span(const hw::Insn& insn, size_t index, uint64_t addr, uint64_t len, uint64_t row);
  // Fills the loop nest and checks every index it will produce against the buffer depths.
  // Returns true when no index wraps (the kernels' fast paths apply).
  bool prepare_loop(const hw::Insn& insn, size_t index, bool is_gemm, LoopNest& loop) const;

  const hw::HwConfig& config_;
  const hw::IsaLayout& layout_;
  Dram& dram_;
  OnChipMemory mem_;
  AccessObserver* observer_ = nullptr;
  LayerInstruments* instruments_ = nullptr;
  bool simd_ = true;
};

// "instruction 12 (GEMM ...): <what>" — the prefix every execution error carries.
std::string insn_context(const hw::Insn& insn, size_t index);

}  // namespace tauvta::sim
