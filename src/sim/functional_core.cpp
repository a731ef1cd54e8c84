#include "sim/functional_core.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/disasm.h"
#include "hw/lanes.h"

namespace tauvta::sim {

using hw::Insn;
using hw::MemId;

std::string insn_context(const Insn& insn, size_t index) {
  return fmt::format("instruction {} ({})", index, hw::disassemble(insn));
}

FunctionalCore::FunctionalCore(const hw::HwConfig& config, const hw::IsaLayout& layout, Dram& dram)
    : config_(config), layout_(layout), dram_(dram), mem_(config), simd_(cpu_has_vnni()) {}

void FunctionalCore::execute(const Insn& insn, size_t index) {
  switch (insn.opcode) {
    case hw::Opcode::kLoad: load(insn, index); return;
    case hw::Opcode::kStore: store(insn, index); return;
    case hw::Opcode::kGemm: gemm(insn, index); return;
    case hw::Opcode::kAlu: alu(insn, index); return;
    case hw::Opcode::kFinish: return;
  }
  throw Error(fmt::format("instruction {}: undefined opcode {}", index, int(insn.opcode)));
}

namespace {

void check_sram_range(const Insn& insn, size_t index, const char* buffer, uint64_t first,
                      uint64_t count, uint32_t depth) {
  if (first + count > depth) {
    throw Error(fmt::format("{}: sram_base = {} plus {} elements reaches element {}, past the {} "
                            "buffer (depth {})",
                            insn_context(insn, index), first, count, first + count - 1, buffer,
                            depth));
  }
}

}  // namespace

uint8_t* FunctionalCore::dram_span(const Insn& insn, size_t index, uint64_t addr, uint64_t len,
                                   uint64_t row) {
  if (!dram_.contains(addr, len)) {
    dram_.check(addr, len, fmt::format("{} row {}", insn_context(insn, index), row));
  }
  return dram_.raw(addr);
}

void FunctionalCore::load(const Insn& insn, size_t index) {
  const uint8_t mem = insn.memory_type;
  if (mem == uint8_t(MemId::kUop)) {
    // UOP loads are 1D: x_size micro-ops; y_size, stride and pads are ignored.
    check_sram_range(insn, index, "micro-op", insn.sram_base, insn.x_size, config_.uop_depth());
    const uint64_t addr = uint64_t(insn.dram_base) * 4;
    const uint8_t* src = dram_span(insn, index, addr, uint64_t(insn.x_size) * 4, 0);
    mem_.write_uops(insn.sram_base, src, insn.x_size, layout_);
    if (observer_ != nullptr) observer_->on_access(MemId::kUop, insn.sram_base, insn.x_size, true);
    return;
  }
  const bool is_inp = mem == uint8_t(MemId::kInp), is_wgt = mem == uint8_t(MemId::kWgt),
             is_acc = mem == uint8_t(MemId::kAcc);
  if (!is_inp && !is_wgt && !is_acc) return;  // OUT, ACC_8BIT, others: tokens only

  const uint32_t elem_bytes =
      is_inp ? config_.inp_elem_bytes() : is_wgt ? config_.wgt_elem_bytes() : config_.acc_elem_bytes();
  const uint32_t depth = is_inp ? config_.inp_depth() : is_wgt ? config_.wgt_depth() : config_.acc_depth();
  // Weight loads ignore the pad fields.
  const uint32_t y0 = is_wgt ? 0 : insn.y_pad_0, y1 = is_wgt ? 0 : insn.y_pad_1;
  const uint32_t x0 = is_wgt ? 0 : insn.x_pad_0, x1 = is_wgt ? 0 : insn.x_pad_1;
  const uint64_t rows = uint64_t(y0) + insn.y_size + y1;
  const uint64_t cols = uint64_t(x0) + insn.x_size + x1;
  check_sram_range(insn, index, hw::mem_id_name(mem), insn.sram_base, rows * cols, depth);

  // Whole rows at a time: `bytes` null writes zero padding (never for weights).
  auto put = [&](uint32_t sram, const uint8_t* bytes, uint32_t count) {
    if (count == 0) return;
    if (is_inp) {
      bytes ? mem_.write_inp(sram, bytes, count) : mem_.zero_inp(sram, count);
    } else if (is_acc) {
      bytes ? mem_.write_acc(sram, bytes, count) : mem_.zero_acc(sram, count);
    } else {
      mem_.write_wgt(sram, bytes, count);
    }
  };
  uint32_t sram = insn.sram_base;
  for (uint64_t r = 0; r < rows; ++r) {
    const bool pad_row = r < y0 || r >= y0 + insn.y_size;
    if (pad_row) {
      put(sram, nullptr, uint32_t(cols));
      sram += uint32_t(cols);
      continue;
    }
    put(sram, nullptr, x0);
    sram += x0;
    const uint64_t y = r - y0;
    const uint64_t addr = (uint64_t(insn.dram_base) + y * insn.x_stride) * elem_bytes;
    const uint64_t len = uint64_t(insn.x_size) * elem_bytes;
    if (len > 0) put(sram, dram_span(insn, index, addr, len, y), insn.x_size);
    sram += insn.x_size;
    put(sram, nullptr, x1);
    sram += x1;
  }
  if (observer_ != nullptr) {
    observer_->on_access(MemId(mem), insn.sram_base, uint32_t(rows * cols), true);
  }
}

void FunctionalCore::store(const Insn& insn, size_t index) {
  // The source is the output buffer; pads and memory_type are ignored.
  const uint64_t total = uint64_t(insn.y_size) * insn.x_size;
  check_sram_range(insn, index, "OUT", insn.sram_base, total, config_.out_depth());
  if (instruments_ != nullptr) instruments_->on_store(mem_, insn);
  const uint32_t elem_bytes = config_.out_elem_bytes();
  for (uint32_t y = 0; y < insn.y_size; ++y) {
    const uint64_t addr = (uint64_t(insn.dram_base) + uint64_t(y) * insn.x_stride) * elem_bytes;
    const uint64_t len = uint64_t(insn.x_size) * elem_bytes;
    if (len == 0) continue;
    uint8_t* dst = dram_span(insn, index, addr, len, y);
    mem_.read_out(insn.sram_base + y * insn.x_size, dst, insn.x_size);
  }
  if (observer_ != nullptr) observer_->on_access(MemId::kOut, insn.sram_base, uint32_t(total), false);
}

bool FunctionalCore::prepare_loop(const Insn& insn, size_t index, bool is_gemm, LoopNest& l) const {
  const uint32_t uop_depth = config_.uop_depth();
  if (insn.uop_end > uop_depth) {
    throw Error(fmt::format("{}: uop_end = {} is past the micro-op buffer (depth {})",
                            insn_context(insn, index), insn.uop_end, uop_depth));
  }
  const auto& uops = is_gemm ? mem_.uop_gemm : mem_.uop_alu;
  l.uops = uops.data() + insn.uop_bgn;
  l.n_uops = insn.uop_end > insn.uop_bgn ? insn.uop_end - insn.uop_bgn : 0;
  l.iter_out = insn.iter_out;
  l.iter_in = insn.iter_in;
  l.dst_out = insn.dst_factor_out;
  l.dst_in = insn.dst_factor_in;
  l.src_out = insn.src_factor_out;
  l.src_in = insn.src_factor_in;
  l.wgt_out = is_gemm ? insn.wgt_factor_out : 0;
  l.wgt_in = is_gemm ? insn.wgt_factor_in : 0;
  const int A = config_.log_acc_depth(), I = config_.log_inp_depth(), W = config_.log_wgt_depth();
  // The hardware's index registers are one bit wider than the buffer's address.
  l.dst_mask = (1u << (A + 1)) - 1;
  l.src_offset_mask = (1u << (I + 1)) - 1;
  l.src_mask = is_gemm ? l.src_offset_mask : l.dst_mask;  // the ALU source is an acc index
  l.wgt_mask = is_gemm ? (1u << (W + 1)) - 1 : ~0u;
  if (l.n_uops == 0 || l.iter_out == 0 || l.iter_in == 0) return true;

  struct Axis {
    const char* uop_field;
    const char* factor;
    uint32_t hw::Uop::*member;
    uint32_t (LoopNest::*index)(const hw::Uop&, uint32_t, uint32_t) const;
    uint32_t f_out, f_in, offset_mask, depth;
    const char* buffer;
  };
  std::vector<Axis> axes;
  if (is_gemm) {
    axes = {{"acc_idx", "dst", &hw::Uop::dst, &LoopNest::dst, l.dst_out, l.dst_in, l.dst_mask,
             config_.acc_depth(), "accumulator"},
            {"inp_idx", "src", &hw::Uop::src, &LoopNest::src, l.src_out, l.src_in,
             l.src_offset_mask, config_.inp_depth(), "input"},
            {"wgt_idx", "wgt", &hw::Uop::wgt, &LoopNest::wgt, l.wgt_out, l.wgt_in, l.wgt_mask,
             config_.wgt_depth(), "weight"}};
  } else {
    axes = {{"dst_idx", "dst", &hw::Uop::dst, &LoopNest::dst, l.dst_out, l.dst_in, l.dst_mask,
             config_.acc_depth(), "accumulator"},
            {"src_idx", "src", &hw::Uop::src, &LoopNest::src, l.src_out, l.src_in,
             l.src_offset_mask, config_.acc_depth(), "accumulator"}};
  }
  bool fast = true;
  for (const Axis& ax : axes) {
    uint64_t max_uop = 0;
    for (uint32_t u = 0; u < l.n_uops; ++u) max_uop = std::max<uint64_t>(max_uop, l.uops[u].*ax.member);
    const uint64_t max_offset = uint64_t(l.iter_out - 1) * ax.f_out + uint64_t(l.iter_in - 1) * ax.f_in;
    // No register wraps and every index is in the buffer: the kernels' fast paths apply.
    if (max_offset <= ax.offset_mask && max_uop + max_offset < ax.depth) continue;
    fast = false;
    // Some index wraps or overflows: check each one as the hardware computes it.
    for (uint32_t o = 0; o < l.iter_out; ++o) {
      for (uint32_t i = 0; i < l.iter_in; ++i) {
        for (uint32_t u = 0; u < l.n_uops; ++u) {
          const uint32_t idx = (l.*ax.index)(l.uops[u], o, i);
          if (idx >= ax.depth) {
            const uint32_t v = l.uops[u].*ax.member;
            throw Error(fmt::format(
                "{}: {} index {} is past the {} buffer (depth {}): micro-op {} has {} = {}, at "
                "iter_out {} x {}_factor_out {} + iter_in {} x {}_factor_in {}",
                insn_context(insn, index), ax.factor, idx, ax.buffer, ax.depth,
                insn.uop_bgn + u, ax.uop_field, v, o, ax.factor, ax.f_out, i, ax.factor, ax.f_in));
          }
        }
      }
    }
  }
  return fast;
}

void FunctionalCore::gemm(const Insn& insn, size_t index) {
  LoopNest loop;
  const bool fast = prepare_loop(insn, index, true, loop);
  run_gemm(mem_, loop, insn.reset, simd_ && fast, observer_);
}

void FunctionalCore::alu(const Insn& insn, size_t index) {
  if (insn.alu_opcode >= hw::kNumAluOps) {
    throw Error(fmt::format("{}: alu_opcode = {} is undefined (MIN 0, MAX 1, ADD 2, SHR 3, MUL 4)",
                            insn_context(insn, index), insn.alu_opcode));
  }
  const auto op = hw::AluOp(insn.alu_opcode);
  if (op == hw::AluOp::kMul && !config_.impl.alu_mul) {
    throw Error(fmt::format("{}: alu_opcode = 4 (MUL) is switched off in this config "
                            "(IMPLEMENTATION.ALU_MUL = false; VTA's HLS hardware has no MUL)",
                            insn_context(insn, index)));
  }
  LoopNest loop;
  prepare_loop(insn, index, false, loop);
  if (instruments_ != nullptr && insn.use_imm && (op == hw::AluOp::kMin || op == hw::AluOp::kMax)) {
    instruments_->on_clip(mem_, loop, op, hw::sign_extend(uint64_t(int64_t(insn.imm)), config_.acc_width()));
  }
  run_alu(mem_, loop, op, insn.use_imm, insn.imm, observer_);
}

}  // namespace tauvta::sim
