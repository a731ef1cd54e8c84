// Random hardware configs and random valid VTA programs for differential testing of
// sim::Simulator against the ReferenceInterpreter.
//
// Programs are encoded with hw::IsaLayout and come with their initial DRAM image. Every index is
// in range (checked with the hardware's wrap rule), every load/store fits its buffer and DRAM,
// tokens are balanced and the program is race-free, so any legal execution order gives the same
// DRAM contents.
//
// Styles:
//  - kSerialized: a random sequence of loads (INP/WGT/ACC/UOP, random pads and strides, the
//    ignored fields randomized), GEMMs (random loops, factors, reset), ALU ops (all five, immediate
//    and tensor operands), stores and compute no-ops (LOAD OUT/ACC_8BIT/ids 6-7, empty loops).
//    Every module switch passes a token, so the program runs in program order; load<->store
//    switches go through a compute no-op. It ends by dumping the whole output buffer and then,
//    pass by pass, the accumulators (ALU SHR by the output width, then store) so the final SRAM
//    state reaches DRAM.
//  - kPipelined: VTA's double-buffered producer/consumer pattern. Tile i loads INP/WGT into half
//    i%2 of the input and weight buffers, computes into half i%2 of the accumulator/output
//    buffers, stores from there; load, compute and store overlap, ordered only by tokens
//    (g2l and s2g free a half two tiles later). Stores go to a DRAM region no load reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "hw/insn.h"

namespace tauvta::runtime {
class Device;
}

namespace tauvta::testing {

enum class ProgramStyle { kSerialized, kPipelined };
const char* style_name(ProgramStyle s);

struct RandomProgram {
  hw::HwConfig config;
  ProgramStyle style = ProgramStyle::kSerialized;
  uint64_t seed = 0;
  std::vector<hw::RawInsn> insns;
  std::vector<uint8_t> dram;  // initial DRAM image; its size is the DRAM size to simulate
};

// A random valid config: input/weight widths 1..16 bits, accumulators 16/32/64, batch 1..4,
// BLOCK_IN and BLOCK_OUT 1..16 (usually different), small buffers; sometimes token and command
// queues of depth 1..3; MUL usually on.
hw::HwConfig random_config(uint64_t seed);

// A small config with depths given as log2 element counts (for named test configs), with MUL built.
hw::HwConfig make_config(int log_inp_width, int log_wgt_width, int log_acc_width, int log_batch,
                         int log_block_in, int log_block_out, int log_uop_depth,
                         int log_inp_depth, int log_wgt_depth, int log_acc_depth);

RandomProgram random_program(const hw::HwConfig& config, uint64_t seed, ProgramStyle style);

// Random work built through the runtime (runtime::CommandBuilder on `device`): random 2D loads
// (INP/ACC with pads, WGT), stores, GEMM/ALU over random runtime::UopKernels (0-2 loops, 1-4
// micro-ops, in-range indices; the kernel cache loads and reuses them), a token on every module
// switch via dep_push/dep_pop (load<->store through a compute no-op), synchronize() at random
// points and sometimes automatic flushes; hazard checking on (a race fails the run). Ends by
// storing the whole output buffer. Returns the number of runs (synchronize calls that ran).
uint64_t run_random_runtime_program(runtime::Device& device, uint64_t seed);

// ---- helpers for hand-written programs --------------------------------------------------------

struct Pads {
  uint8_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;
};
struct Loops {
  uint32_t uop_bgn = 0, uop_end = 1, iter_out = 1, iter_in = 1;
  uint32_t dst_out = 0, dst_in = 0, src_out = 0, src_in = 0, wgt_out = 0, wgt_in = 0;
};
hw::Insn load_insn(uint8_t memory_type, uint32_t sram_base, uint32_t dram_base, uint32_t y_size,
                   uint32_t x_size, uint32_t x_stride, Pads pads = {});
hw::Insn store_insn(uint32_t sram_base, uint32_t dram_base, uint32_t y_size, uint32_t x_size,
                    uint32_t x_stride, uint8_t memory_type = uint8_t(hw::MemId::kOut));
hw::Insn gemm_insn(bool reset, Loops loops);
hw::Insn alu_insn(hw::AluOp op, bool use_imm, int32_t imm, Loops loops);

// Encodes `body` so it runs strictly in program order: a token on every module switch (a
// compute no-op, LOAD OUT, between a load and a store), then FINISH popping the last token.
std::vector<hw::RawInsn> encode_serialized(const hw::HwConfig& config,
                                           const std::vector<hw::Insn>& body);

}  // namespace tauvta::testing
