// ReferenceInterpreter: a deliberately slow, simple and independent model of VTA's hardware
// semantics (docs/vta_isa.md sections 1-4), used to check sim::Simulator.
//
// It shares nothing with src/sim: it decodes instructions and micro-ops with its own field
// placement (the C bit-field rule of docs/vta_isa.md section 2), keeps every SRAM in the hardware's packed
// byte form, reads and writes lanes bit by bit and does all arithmetic in 128-bit integers before
// wrapping. The three modules run from one round-robin loop that honours the dependency tokens
// (counts, with the configured queue depth); that is one legal order, and for a race-free program
// every legal order gives the same memory contents.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "hw/insn.h"

namespace tauvta::testing {

// Sizes derived from the config keys, computed here from docs/vta_isa.md section 1 (not via HwConfig's
// helpers, so a mistake there shows up as a disagreement).
struct RefGeometry {
  int inp_bits = 0, wgt_bits = 0, acc_bits = 0, out_bits = 0, log_acc_bits = 0;
  int batch = 0, block_in = 0, block_out = 0;
  uint64_t uop_elem_bytes = 4, inp_elem_bytes = 0, wgt_elem_bytes = 0, acc_elem_bytes = 0,
           out_elem_bytes = 0;
  uint64_t uop_depth = 0, inp_depth = 0, wgt_depth = 0, acc_depth = 0, out_depth = 0;
  int log_uop_depth = 0, log_inp_depth = 0, log_wgt_depth = 0, log_acc_depth = 0;  // U I W A
  bool alu_mul = true;
  uint32_t token_queue_depth = 8;

  static RefGeometry from(const hw::HwConfig& config);
};

// An instruction decoded by the reference's own decoder.
struct RefInsn {
  unsigned opcode = 0;
  bool pop_prev = false, pop_next = false, push_prev = false, push_next = false;
  unsigned memory_type = 0;
  uint64_t sram_base = 0, dram_base = 0, y_size = 0, x_size = 0, x_stride = 0;
  unsigned y_pad_0 = 0, y_pad_1 = 0, x_pad_0 = 0, x_pad_1 = 0;
  bool reset = false;
  uint64_t uop_bgn = 0, uop_end = 0, iter_out = 0, iter_in = 0;
  uint64_t dst_factor_out = 0, dst_factor_in = 0, src_factor_out = 0, src_factor_in = 0;
  uint64_t wgt_factor_out = 0, wgt_factor_in = 0;
  unsigned alu_opcode = 0;
  bool use_imm = false;
  int64_t imm = 0;  // sign-extended from 16 bits
};

// Decodes one instruction from its 128 bits (throws tauvta::Error on an undefined opcode).
RefInsn ref_decode(const RefGeometry& g, const hw::RawInsn& raw, size_t index = 0);

struct RefRunStats {
  uint64_t executed = 0;      // instructions executed, FINISH included
  uint64_t not_executed = 0;  // instructions still queued when FINISH ran
  // Tokens left in l2g, g2l, g2s, s2g when FINISH ran (a balanced program leaves none).
  std::array<uint64_t, 4> leftover_tokens{};
  uint64_t gemm_uops = 0, alu_uops = 0;
};

class ReferenceInterpreter {
 public:
  ReferenceInterpreter(const hw::HwConfig& config, uint64_t dram_bytes);

  const RefGeometry& geometry() const { return g_; }
  std::vector<uint8_t>& dram() { return dram_; }
  const std::vector<uint8_t>& dram() const { return dram_; }

  // Runs until FINISH executes. Throws tauvta::Error on a deadlock, a program without FINISH,
  // out-of-range addresses or indices, undefined opcodes, or MUL when the config switches it off.
  RefRunStats run(std::span<const hw::RawInsn> program);

  void reset();  // zero every SRAM

  // Lane values (sign-extended) and raw SRAM bytes, for tests.
  int64_t inp_lane(uint64_t elem, uint64_t lane) const;
  int64_t wgt_lane(uint64_t elem, uint64_t lane) const;
  int64_t acc_lane(uint64_t elem, uint64_t lane) const;
  int64_t out_lane(uint64_t elem, uint64_t lane) const;
  uint32_t uop_word(uint64_t index) const;
  const std::vector<uint8_t>& inp_sram() const { return inp_; }
  const std::vector<uint8_t>& wgt_sram() const { return wgt_; }
  const std::vector<uint8_t>& acc_sram() const { return acc_; }
  const std::vector<uint8_t>& out_sram() const { return out_; }

 private:
  void execute(const RefInsn& insn, size_t index);
  void exec_load(const RefInsn& insn, size_t index);
  void exec_store(const RefInsn& insn, size_t index);
  void exec_gemm(const RefInsn& insn, size_t index);
  void exec_alu(const RefInsn& insn, size_t index);
  void load_padded(std::vector<uint8_t>& sram, uint64_t depth, uint64_t elem_bytes,
                   const RefInsn& insn, size_t index, const char* what);
  void copy_dram_to_sram(std::vector<uint8_t>& sram, uint64_t sram_elem, uint64_t dram_elem,
                         uint64_t elem_bytes, size_t index, const char* what);

  RefGeometry g_;
  std::vector<uint8_t> dram_;
  std::vector<uint8_t> uop_, inp_, wgt_, acc_, out_;  // packed, as on the hardware
  RefRunStats stats_;
};

}  // namespace tauvta::testing
