#include "runtime/command_builder.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/disasm.h"
#include "runtime/uop_kernel_cache.h"

namespace tauvta::runtime {

using hw::Module;

namespace {

size_t mod_index(Module m) { return size_t(m); }

// The no-op of each module (VTA's PushNoop): a zero-sized LOAD INP, LOAD UOP or STORE.
hw::Insn noop(Module m) {
  hw::Insn n;
  n.opcode = m == Module::kStore ? hw::Opcode::kStore : hw::Opcode::kLoad;
  n.memory_type = uint8_t(m == Module::kLoad    ? hw::MemId::kInp
                          : m == Module::kStore ? hw::MemId::kOut
                                                : hw::MemId::kUop);
  return n;
}

void check_adjacent(Module from, Module to, const char* what) {
  const int f = int(from), t = int(to);
  if (f - t != 1 && t - f != 1) {
    throw Error(fmt::format("{}({}, {}): tokens only flow between neighbouring modules "
                            "(load<->compute, compute<->store)",
                            what, hw::module_name(from), hw::module_name(to)));
  }
}

uint32_t sram_depth(const hw::HwConfig& c, hw::MemId mem) {
  switch (mem) {
    case hw::MemId::kUop: return c.uop_depth();
    case hw::MemId::kInp: return c.inp_depth();
    case hw::MemId::kWgt: return c.wgt_depth();
    case hw::MemId::kAcc: return c.acc_depth();
    case hw::MemId::kOut: return c.out_depth();
    case hw::MemId::kAcc8: return c.acc_depth();
  }
  return 0;
}

}  // namespace

CommandBuilder::CommandBuilder(Device& device, CommandBuilderOptions options)
    : device_(device), options_(options) {
  if (device_.builder_active_) {
    throw Error("a CommandBuilder is already active on this device (they would share its "
                "micro-op SRAM); finish that one first");
  }
  device_.builder_active_ = true;
  last_of_module_.fill(kNone);
}

CommandBuilder::~CommandBuilder() {
  // Micro-op loads of a stream that never ran did not happen: forget them.
  if (!insns_.empty()) device_.uop_cache().invalidate();
  device_.builder_active_ = false;
}

bool CommandBuilder::balanced() const {
  return std::all_of(tokens_.begin(), tokens_.end(), [](int64_t t) { return t == 0; });
}

void CommandBuilder::count_flags(const hw::Insn& insn, int sign_push, int sign_pop) {
  auto add = [&](TokenQueue q, int v) { tokens_[size_t(q)] += v; };
  switch (hw::module_of(insn)) {
    case Module::kLoad:
      if (insn.push_next) add(TokenQueue::kL2G, sign_push);
      if (insn.pop_next) add(TokenQueue::kG2L, -sign_pop);
      break;
    case Module::kCompute:
      if (insn.pop_prev) add(TokenQueue::kL2G, -sign_pop);
      if (insn.push_prev) add(TokenQueue::kG2L, sign_push);
      if (insn.pop_next) add(TokenQueue::kS2G, -sign_pop);
      if (insn.push_next) add(TokenQueue::kG2S, sign_push);
      break;
    case Module::kStore:
      if (insn.pop_prev) add(TokenQueue::kG2S, -sign_pop);
      if (insn.push_prev) add(TokenQueue::kS2G, sign_push);
      break;
  }
}

size_t CommandBuilder::append(hw::Insn insn) {
  const size_t m = mod_index(hw::module_of(insn));
  count_flags(insn, 1, 1);
  // An instruction pops a queue at most once: an older pending pop of the same queue goes first.
  if ((insn.pop_prev && pending_pop_prev_[m]) || (insn.pop_next && pending_pop_next_[m])) {
    commit_pending_pops(Module(m));
  }
  insn.pop_prev = insn.pop_prev || pending_pop_prev_[m];
  insn.pop_next = insn.pop_next || pending_pop_next_[m];
  pending_pop_prev_[m] = pending_pop_next_[m] = false;
  try {
    if (!device_.layout().fits(insn)) (void)device_.layout().encode(insn);  // throws saying which field
  } catch (const Error& e) {
    throw Error(fmt::format("instruction {} ({}): {}", insns_.size(), hw::disassemble(insn),
                            e.what()));
  }
  insns_.push_back(insn);
  last_of_module_[m] = insns_.size() - 1;
  return insns_.size() - 1;
}

void CommandBuilder::commit_pending_pops(Module m) {
  const size_t i = mod_index(m);
  if (!pending_pop_prev_[i] && !pending_pop_next_[i]) return;
  hw::Insn n = noop(m);
  n.pop_prev = pending_pop_prev_[i];
  n.pop_next = pending_pop_next_[i];
  pending_pop_prev_[i] = pending_pop_next_[i] = false;
  insns_.push_back(n);  // already counted when dep_pop() recorded it
  last_of_module_[i] = insns_.size() - 1;
}

void CommandBuilder::push_noop(Module m, bool push_prev, bool push_next) {
  hw::Insn n = noop(m);
  n.push_prev = push_prev;
  n.push_next = push_next;
  append(n);
}

void CommandBuilder::dep_push(Module from, Module to) {
  add_push(from, to);
  maybe_flush();
}

void CommandBuilder::dep_pop(Module from, Module to) {
  add_pop(from, to);
  maybe_flush();
}

void CommandBuilder::add_push(Module from, Module to) {
  check_adjacent(from, to, "dep_push");
  commit_pending_pops(from);
  const bool next = int(to) > int(from);
  const size_t last = last_of_module_[mod_index(from)];
  if (last != kNone) {
    hw::Insn& insn = insns_[last];
    bool& flag = next ? insn.push_next : insn.push_prev;
    if (!flag) {
      flag = true;
      tokens_[size_t(from == Module::kLoad      ? TokenQueue::kL2G
                     : from == Module::kStore   ? TokenQueue::kS2G
                     : next                     ? TokenQueue::kG2S
                                                : TokenQueue::kG2L)] += 1;
      return;
    }
  }
  push_noop(from, !next, next);
}

void CommandBuilder::add_pop(Module from, Module to) {
  check_adjacent(from, to, "dep_pop");
  const size_t t = mod_index(to);
  const bool prev = int(from) < int(to);
  if (prev ? pending_pop_prev_[t] : pending_pop_next_[t]) commit_pending_pops(to);
  (prev ? pending_pop_prev_[t] : pending_pop_next_[t]) = true;
  tokens_[size_t(to == Module::kLoad      ? TokenQueue::kG2L
                 : to == Module::kStore   ? TokenQueue::kG2S
                 : prev                   ? TokenQueue::kL2G
                                          : TokenQueue::kS2G)] -= 1;
}

void CommandBuilder::emit(const hw::Insn& insn) {
  append(insn);
  maybe_flush();
}

void CommandBuilder::load_2d(hw::MemId mem, uint32_t sram_base, const DramBuffer& src,
                             uint64_t elem_offset, uint32_t x_size, uint32_t y_size,
                             uint32_t x_stride, Pad2D pad) {
  const hw::HwConfig& c = config();
  const char* name = hw::mem_id_name(uint8_t(mem));
  if (mem != hw::MemId::kInp && mem != hw::MemId::kWgt && mem != hw::MemId::kAcc &&
      mem != hw::MemId::kUop) {
    throw Error(fmt::format("load_2d: cannot load into {} (INP, WGT, ACC or UOP)", name));
  }
  const bool padded = pad.x0 || pad.x1 || pad.y0 || pad.y1;
  if (padded && (mem == hw::MemId::kWgt || mem == hw::MemId::kUop)) {
    throw Error(fmt::format("load_2d: {} loads have no padding (the hardware ignores it)", name));
  }
  if (mem == hw::MemId::kUop && y_size > 1) {
    throw Error("load_2d: UOP loads are one-dimensional (y_size 1)");
  }
  if (x_size != 0 && y_size != 0) {
    const uint64_t last = elem_offset + uint64_t(y_size - 1) * x_stride + x_size;
    if (last > src.elem_count(mem)) {
      throw Error(fmt::format("load_2d {}: elements [{}, {}) lie past the {}-element DRAM buffer",
                              name, elem_offset, last, src.elem_count(mem)));
    }
  }
  const uint64_t rows = uint64_t(pad.y0) + y_size + pad.y1;
  const uint64_t cols = uint64_t(pad.x0) + x_size + pad.x1;
  const uint64_t depth = sram_depth(c, mem);
  if (uint64_t(sram_base) + rows * cols > depth) {
    throw Error(fmt::format("load_2d {}: SRAM elements [{}, {}) lie past the {}-element buffer",
                            name, sram_base, sram_base + rows * cols, depth));
  }
  hw::Insn insn;
  insn.opcode = hw::Opcode::kLoad;
  insn.memory_type = uint8_t(mem);
  insn.sram_base = sram_base;
  insn.dram_base = src.elem_addr(mem, elem_offset);
  insn.x_size = x_size;
  insn.y_size = y_size;
  insn.x_stride = x_stride;
  if (mem != hw::MemId::kWgt && mem != hw::MemId::kUop) {
    insn.y_pad_0 = pad.y0;
    insn.y_pad_1 = pad.y1;
    insn.x_pad_0 = pad.x0;
    insn.x_pad_1 = pad.x1;
  }
  append(insn);
  maybe_flush();
}

void CommandBuilder::store_2d(uint32_t sram_base, const DramBuffer& dst, uint64_t elem_offset,
                              uint32_t x_size, uint32_t y_size, uint32_t x_stride) {
  if (x_size != 0 && y_size != 0) {
    const uint64_t last = elem_offset + uint64_t(y_size - 1) * x_stride + x_size;
    if (last > dst.elem_count(hw::MemId::kOut)) {
      throw Error(fmt::format("store_2d: OUT elements [{}, {}) lie past the {}-element DRAM "
                              "buffer",
                              elem_offset, last, dst.elem_count(hw::MemId::kOut)));
    }
  }
  const uint64_t depth = config().out_depth();
  if (uint64_t(sram_base) + uint64_t(x_size) * y_size > depth) {
    throw Error(fmt::format("store_2d: OUT elements [{}, {}) lie past the {}-element buffer",
                            sram_base, uint64_t(sram_base) + uint64_t(x_size) * y_size, depth));
  }
  hw::Insn insn;
  insn.opcode = hw::Opcode::kStore;
  insn.memory_type = uint8_t(hw::MemId::kOut);
  insn.sram_base = sram_base;
  insn.dram_base = dst.elem_addr(hw::MemId::kOut, elem_offset);
  insn.x_size = x_size;
  insn.y_size = y_size;
  insn.x_stride = x_stride;
  append(insn);
  maybe_flush();
}

void CommandBuilder::issue_kernel(std::span<const uint32_t> words, uint64_t hash, UopKind kind,
                                  const UopLoop& lo, const UopLoop& li, hw::Insn insn) {
  UopPlacement pl = device_.uop_cache().place(words, hash);
  if (!pl.loads.empty()) {
    uop_loads_.push_back(UopLoadRecord{insns_.size(), kind, pl.bgn, std::vector<uint32_t>(words.begin(), words.end())});
  }
  for (const hw::Insn& load : pl.loads) append(load);
  insn.uop_bgn = pl.bgn;
  insn.uop_end = pl.end;
  insn.iter_out = lo.extent;
  insn.iter_in = li.extent;
  insn.dst_factor_out = lo.dst_factor;
  insn.dst_factor_in = li.dst_factor;
  insn.src_factor_out = lo.src_factor;
  insn.src_factor_in = li.src_factor;
  if (insn.opcode == hw::Opcode::kGemm) {
    insn.wgt_factor_out = lo.wgt_factor;
    insn.wgt_factor_in = li.wgt_factor;
  }
  append(insn);
}

void CommandBuilder::run_kernel(const UopKernel& kernel, hw::Insn insn) {
  const hw::IsaLayout& layout = device_.layout();
  UopKernelCache& cache = device_.uop_cache();
  if (kernel.loops.size() > 2) throw Error("a micro-op kernel has at most two loops");
  if (kernel.uops.empty()) throw Error("a micro-op kernel needs at least one micro-op");
  const std::vector<uint32_t> words = kernel.encode(layout);
  if (words.size() <= cache.capacity()) {
    issue_kernel(words, hash_uop_words(words), kernel.kind, kernel.outer(), kernel.inner(), insn);
    return;
  }
  // Too large for the micro-op SRAM: run every (outer, inner, uop) execution in order, in
  // loop-free chunks that fit.
  cache.note_split();
  const UopKernel flat = kernel.materialize(layout);
  const std::vector<uint32_t> flat_words = flat.encode(layout);
  for (size_t at = 0; at < flat_words.size(); at += cache.capacity()) {
    const size_t len = std::min<size_t>(cache.capacity(), flat_words.size() - at);
    const std::span<const uint32_t> chunk = std::span<const uint32_t>(flat_words).subspan(at, len);
    issue_kernel(chunk, hash_uop_words(chunk), kernel.kind, UopLoop{}, UopLoop{}, insn);
  }
}

void CommandBuilder::run_kernel(const EncodedKernel& k, hw::Insn insn) {
  if (k.kernel.loops.size() > 2 || k.words.empty() || k.words.size() > device_.uop_cache().capacity()) {
    run_kernel(k.kernel, insn);  // the checks and the split path
    return;
  }
  issue_kernel(k.words, k.hash, k.kernel.kind, k.kernel.outer(), k.kernel.inner(), insn);
}

bool CommandBuilder::prefetch(const UopKernel& kernel) {
  if (kernel.uops.empty()) throw Error("a micro-op kernel needs at least one micro-op");
  const std::vector<uint32_t> words = kernel.encode(device_.layout());
  UopKernelCache& cache = device_.uop_cache();
  if (words.size() > cache.capacity()) return false;
  UopPlacement pl = cache.place(words);
  if (!pl.loads.empty()) {
    uop_loads_.push_back(UopLoadRecord{insns_.size(), kernel.kind, pl.bgn, words});
  }
  for (const hw::Insn& load : pl.loads) append(load);
  maybe_flush();
  return true;
}

hw::Insn CommandBuilder::gemm_insn(UopKind kind, bool reset) const {
  if (kind != UopKind::kGemm) throw Error("gemm() needs a GEMM micro-op kernel");
  hw::Insn insn;
  insn.opcode = hw::Opcode::kGemm;
  insn.reset = reset;
  return insn;
}

hw::Insn CommandBuilder::alu_insn(UopKind kind, hw::AluOp op, bool use_imm, int32_t imm) const {
  if (kind != UopKind::kAlu) throw Error("alu() needs an ALU micro-op kernel");
  if (op == hw::AluOp::kMul && !config().impl.alu_mul) {
    throw Error("ALU MUL is switched off in this configuration (IMPLEMENTATION.ALU_MUL = false)");
  }
  if (imm < -32768 || imm > 32767) {
    throw Error(fmt::format("ALU immediate {} does not fit the signed 16-bit imm field", imm));
  }
  hw::Insn insn;
  insn.opcode = hw::Opcode::kAlu;
  insn.alu_opcode = uint8_t(op);
  insn.use_imm = use_imm;
  insn.imm = imm;
  return insn;
}

void CommandBuilder::gemm(const UopKernel& kernel, bool reset) {
  run_kernel(kernel, gemm_insn(kernel.kind, reset));
  maybe_flush();
}

void CommandBuilder::gemm(const EncodedKernel& kernel, bool reset) {
  run_kernel(kernel, gemm_insn(kernel.kernel.kind, reset));
  maybe_flush();
}

void CommandBuilder::alu(const UopKernel& kernel, hw::AluOp op, bool use_imm, int32_t imm) {
  run_kernel(kernel, alu_insn(kernel.kind, op, use_imm, imm));
  maybe_flush();
}

void CommandBuilder::alu(const EncodedKernel& kernel, hw::AluOp op, bool use_imm, int32_t imm) {
  run_kernel(kernel, alu_insn(kernel.kernel.kind, op, use_imm, imm));
  maybe_flush();
}

void CommandBuilder::maybe_flush() {
  if (options_.max_insns != 0 && insns_.size() >= options_.max_insns && balanced()) {
    ++auto_flushes_;
    synchronize(options_.run_options);
  }
}

void CommandBuilder::reset_stream() {
  insns_.clear();
  uop_loads_.clear();
  last_of_module_.fill(kNone);
  pending_pop_prev_.fill(false);
  pending_pop_next_.fill(false);
  tokens_.fill(0);
}

sim::RunReport CommandBuilder::synchronize() { return synchronize(options_.run_options); }

sim::RunReport CommandBuilder::synchronize(const sim::RunOptions& options) {
  const bool any_pending = std::any_of(pending_pop_prev_.begin(), pending_pop_prev_.end(),
                                       [](bool b) { return b; }) ||
                           std::any_of(pending_pop_next_.begin(), pending_pop_next_.end(),
                                       [](bool b) { return b; });
  if (insns_.empty() && !any_pending) return sim::RunReport{};
  // Hand the last load and store back to compute so FINISH runs after everything (VTA's
  // Synchronize); a module with no instruction in this stream has nothing to wait for.
  commit_pending_pops(Module::kLoad);
  commit_pending_pops(Module::kStore);
  const bool has_store = last_of_module_[mod_index(Module::kStore)] != kNone;
  const bool has_load = last_of_module_[mod_index(Module::kLoad)] != kNone;
  if (has_store) {
    add_push(Module::kStore, Module::kCompute);
    add_pop(Module::kStore, Module::kCompute);
  }
  if (has_load) {
    add_push(Module::kLoad, Module::kCompute);
    add_pop(Module::kLoad, Module::kCompute);
  }
  commit_pending_pops(Module::kCompute);  // FINISH itself carries no pops, as in VTA
  if (!balanced()) {
    std::string counts;
    for (int q = 0; q < kNumTokenQueues; ++q) {
      counts += fmt::format(" {} {:+}", sim::token_queue_name(TokenQueue(q)), tokens_[size_t(q)]);
    }
    const size_t n = insns_.size();
    reset_stream();
    device_.uop_cache().invalidate();
    throw Error(fmt::format("synchronize: the stream of {} instructions leaves dependency tokens "
                            "unbalanced (pushes minus pops per queue:{}); every dep_push needs a matching "
                            "dep_pop",
                            n, counts));
  }
  hw::Insn finish;
  finish.opcode = hw::Opcode::kFinish;
  append(finish);

  sim::RunReport report;
  try {
    report = device_.driver().run_decoded(insns_, device_.layout(), options);
  } catch (...) {
    last_insns_ = std::move(insns_);
    last_uop_loads_ = std::move(uop_loads_);
    reset_stream();
    device_.uop_cache().invalidate();
    throw;
  }
  // A timing-only run moved no data, so the micro-op SRAM holds none of this stream's kernels.
  if (options.timing_only) device_.uop_cache().invalidate();
  // No instruction refers to a staged kernel copy now: bound the DRAM they take.
  device_.uop_cache().trim();
  total_.add(report);
  ++runs_;
  insns_run_ += insns_.size();
  last_insns_ = std::move(insns_);
  last_uop_loads_ = std::move(uop_loads_);
  reset_stream();
  return report;
}

std::string CommandBuilder::format_program(std::span<const hw::Insn> program) {
  std::string s;
  for (size_t i = 0; i < program.size(); ++i) {
    s += fmt::format("{:04}: {}\n", i, hw::disassemble(program[i]));
  }
  return s;
}

std::string CommandBuilder::format_uop_loads(std::span<const UopLoadRecord> loads) const {
  const hw::IsaLayout& layout = device_.layout();
  std::string s;
  for (const UopLoadRecord& r : loads) {
    s += fmt::format("# LOAD UOP at instruction {}: {} micro-ops at SRAM {}\n", r.insn_index,
                     r.words.size(), r.sram_base);
    for (size_t i = 0; i < r.words.size(); ++i) {
      const std::string text = r.kind == UopKind::kGemm
                                   ? hw::disassemble_gemm_uop(layout.decode_gemm_uop(r.words[i]))
                                   : hw::disassemble_alu_uop(layout.decode_alu_uop(r.words[i]));
      s += fmt::format("{:04}: {}\n", r.sram_base + i, text);
    }
  }
  return s;
}

}  // namespace tauvta::runtime
