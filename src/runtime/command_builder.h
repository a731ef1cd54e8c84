// CommandBuilder: builds one instruction stream for a Device the way VTA's runtime does: 2D
// loads and stores, GEMM/ALU instructions over micro-op kernels (made resident through the
// device's UopKernelCache), dependency-token push/pop with no-op insertion, and synchronize(),
// which closes the stream with FINISH, runs it on the driver and accumulates the RunReport.
//
// Token rules (VTA runtime semantics): dep_push(from, to) sets the push flag on the last
// instruction of module `from` in the current stream (a no-op of that module is appended when it
// has none or that flag is already taken); dep_pop(from, to) marks the pop as pending on module
// `to` and the next instruction routed to `to` carries it (synchronize() and a second pop of the
// same queue commit it as a no-op). No-ops: LOAD INP of size 0 (load), LOAD UOP of size 0
// (compute), STORE of size 0 (store).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hw/insn.h"
#include "runtime/device.h"
#include "runtime/uop_kernel.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/timing_model.h"

namespace tauvta::runtime {

struct Pad2D {
  uint8_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;  // rows before/after, elements before/after each row
};

// Dependency token queues of docs/vta_isa.md section 3 (the simulator's names).
using sim::TokenQueue;
using sim::kNumTokenQueues;

struct CommandBuilderOptions {
  // Once the stream holds this many instructions it is synchronized automatically at the next
  // point where every token queue is balanced (0 = never). A stream that never balances keeps
  // growing; the flush waits for balance because a run must leave every token queue empty.
  size_t max_insns = size_t(1) << 16;
  sim::RunOptions run_options;  // for synchronize() without arguments and automatic flushes
};

// A micro-op load issued in the stream (for dumps).
struct UopLoadRecord {
  size_t insn_index = 0;
  UopKind kind = UopKind::kGemm;
  uint32_t sram_base = 0;
  std::vector<uint32_t> words;
};

class CommandBuilder {
 public:
  // Only one CommandBuilder per Device at a time (they would share the micro-op SRAM).
  explicit CommandBuilder(Device& device, CommandBuilderOptions options = {});
  ~CommandBuilder();
  CommandBuilder(const CommandBuilder&) = delete;
  CommandBuilder& operator=(const CommandBuilder&) = delete;

  Device& device() { return device_; }
  const hw::HwConfig& config() const { return device_.config(); }
  const CommandBuilderOptions& options() const { return options_; }
  void set_max_insns(size_t n) { options_.max_insns = n; }
  void set_run_options(const sim::RunOptions& o) { options_.run_options = o; }

  // LOAD into `mem` (INP, WGT, ACC or UOP) at `sram_base`: y_size rows of x_size elements, row y
  // from element `elem_offset + y * x_stride` of `src`, with zero padding (not for WGT or UOP).
  // Checks the DRAM range against the buffer and the SRAM range against the buffer depth.
  void load_2d(hw::MemId mem, uint32_t sram_base, const DramBuffer& src, uint64_t elem_offset,
               uint32_t x_size, uint32_t y_size, uint32_t x_stride, Pad2D pad = {});
  // STORE y_size rows of x_size OUT elements (dense from `sram_base`) to element
  // `elem_offset + y * x_stride` of `dst`.
  void store_2d(uint32_t sram_base, const DramBuffer& dst, uint64_t elem_offset, uint32_t x_size,
                uint32_t y_size, uint32_t x_stride);
  // GEMM / ALU over `kernel`, loading it into the micro-op SRAM first when it is not resident.
  // A kernel larger than the SRAM runs as materialized chunks in the same order (bit-identical).
  void gemm(const UopKernel& kernel, bool reset = false);
  void alu(const UopKernel& kernel, hw::AluOp op, bool use_imm = false, int32_t imm = 0);
  // The same with the kernel encoded once by the caller (encode_kernel), for kernels issued
  // many times.
  void gemm(const EncodedKernel& kernel, bool reset = false);
  void alu(const EncodedKernel& kernel, hw::AluOp op, bool use_imm = false, int32_t imm = 0);

  // Makes `kernel` resident now (a LOAD UOP on a miss) so a later gemm()/alu() with it is a hit;
  // lets a program load its kernels up front instead of between data-dependent steps. Returns
  // false (and does nothing) for a kernel larger than the micro-op SRAM.
  bool prefetch(const UopKernel& kernel);

  void dep_push(hw::Module from, hw::Module to);
  void dep_pop(hw::Module from, hw::Module to);

  // Appends a raw instruction (validated against the field table); it takes the pending pops of
  // its module. Token flags it carries are counted.
  void emit(const hw::Insn& insn);

  // Ends the stream (token hand-back to compute, FINISH), runs it, adds the report to
  // total_report() and starts an empty stream. An empty stream runs nothing. Throws
  // tauvta::Error when the stream's tokens do not balance, or what the driver throws.
  sim::RunReport synchronize();
  sim::RunReport synchronize(const sim::RunOptions& options);

  // State of the stream being built.
  std::span<const hw::Insn> pending() const { return insns_; }
  std::span<const UopLoadRecord> pending_uop_loads() const { return uop_loads_; }
  int64_t tokens(TokenQueue q) const { return tokens_[size_t(q)]; }
  bool balanced() const;  // every queue nets to zero (pending pops counted)
  // The stream of the last synchronize() (FINISH included).
  const std::vector<hw::Insn>& last_program() const { return last_insns_; }
  std::span<const UopLoadRecord> last_uop_loads() const { return last_uop_loads_; }

  // Totals over every synchronize() of this builder.
  const sim::RunReport& total_report() const { return total_; }
  uint64_t runs() const { return runs_; }
  uint64_t auto_flushes() const { return auto_flushes_; }
  uint64_t insns_run() const { return insns_run_; }

  // "NNNN: <disassembly>" per instruction, and the micro-ops of each LOAD UOP.
  static std::string format_program(std::span<const hw::Insn> program);
  std::string format_uop_loads(std::span<const UopLoadRecord> loads) const;

 private:
  static constexpr size_t kNone = SIZE_MAX;

  size_t append(hw::Insn insn);
  void push_noop(hw::Module m, bool push_prev, bool push_next);
  void add_push(hw::Module from, hw::Module to);  // dep_push without the automatic flush
  void add_pop(hw::Module from, hw::Module to);
  void commit_pending_pops(hw::Module m);
  void count_flags(const hw::Insn& insn, int sign_push, int sign_pop);
  void run_kernel(const UopKernel& kernel, hw::Insn insn);
  void run_kernel(const EncodedKernel& kernel, hw::Insn insn);
  void issue_kernel(std::span<const uint32_t> words, uint64_t hash, UopKind kind, const UopLoop& outer,
                    const UopLoop& inner, hw::Insn insn);
  hw::Insn gemm_insn(UopKind kind, bool reset) const;
  hw::Insn alu_insn(UopKind kind, hw::AluOp op, bool use_imm, int32_t imm) const;
  void maybe_flush();
  void reset_stream();

  Device& device_;
  CommandBuilderOptions options_;
  std::vector<hw::Insn> insns_;
  std::vector<UopLoadRecord> uop_loads_;
  std::array<size_t, hw::kNumModules> last_of_module_{};
  std::array<bool, hw::kNumModules> pending_pop_prev_{};
  std::array<bool, hw::kNumModules> pending_pop_next_{};
  std::array<int64_t, kNumTokenQueues> tokens_{};
  std::vector<hw::Insn> last_insns_;
  std::vector<UopLoadRecord> last_uop_loads_;
  sim::RunReport total_;
  uint64_t runs_ = 0, auto_flushes_ = 0, insns_run_ = 0;
};

}  // namespace tauvta::runtime
