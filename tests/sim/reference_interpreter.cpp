#include "sim/reference_interpreter.h"

#include <string>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::testing {
namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// ---- bits -------------------------------------------------------------------------------------

int exact_log2(uint64_t v) {
  int l = 0;
  while ((uint64_t(1) << l) < v) ++l;
  if ((uint64_t(1) << l) != v) throw InternalError(fmt::format("{} is not a power of two", v));
  return l;
}

uint64_t low_mask(int width) { return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1; }

int64_t sign_extend(uint64_t v, int width) {
  v &= low_mask(width);
  if (width < 64 && ((v >> (width - 1)) & 1) != 0) v |= ~low_mask(width);
  return int64_t(v);
}

// Two's-complement wrap of an exact value to `width` bits, returned sign-extended.
int64_t wrap(i128 v, int width) { return sign_extend(uint64_t(u128(v)), width); }

// Reads `width` bits starting at bit `pos` of a little-endian byte array, one bit at a time.
uint64_t get_bits(const std::vector<uint8_t>& mem, uint64_t pos, int width) {
  uint64_t v = 0;
  for (int k = 0; k < width; ++k) {
    const uint64_t p = pos + uint64_t(k);
    if (((mem.at(p / 8) >> (p % 8)) & 1) != 0) v |= uint64_t(1) << k;
  }
  return v;
}

void set_bits(std::vector<uint8_t>& mem, uint64_t pos, int width, uint64_t v) {
  for (int k = 0; k < width; ++k) {
    const uint64_t p = pos + uint64_t(k);
    const uint8_t bit = uint8_t(1u << (p % 8));
    if (((v >> k) & 1) != 0) {
      mem.at(p / 8) = uint8_t(mem.at(p / 8) | bit);
    } else {
      mem.at(p / 8) = uint8_t(mem.at(p / 8) & ~bit);
    }
  }
}

uint64_t raw_bit(const hw::RawInsn& r, int i) { return i < 64 ? (r.lo >> i) & 1 : (r.hi >> (i - 64)) & 1; }

uint64_t raw_field(const hw::RawInsn& r, int lsb, int width) {
  uint64_t v = 0;
  for (int k = 0; k < width; ++k) v |= raw_bit(r, lsb + k) << k;
  return v;
}

// The C bit-field rule: fields are placed upward from bit 0; one that would cross bit 64 starts
// at bit 64 instead.
class Placer {
 public:
  explicit Placer(const hw::RawInsn& raw) : raw_(raw) {}
  uint64_t next(int width) {
    if (pos_ < 64 && pos_ + width > 64) pos_ = 64;
    if (pos_ + width > 128) throw Error("reference: instruction fields do not fit 128 bits");
    const uint64_t v = raw_field(raw_, pos_, width);
    pos_ += width;
    return v;
  }

 private:
  const hw::RawInsn& raw_;
  int pos_ = 0;
};

enum : unsigned { kLoad = 0, kStore = 1, kGemm = 2, kFinish = 3, kAlu = 4 };
enum : unsigned { kUop = 0, kWgt = 1, kInp = 2, kAcc = 3 };
enum : unsigned { kMin = 0, kMax = 1, kAdd = 2, kShr = 3, kMul = 4 };
enum Queue { kL2G = 0, kG2L = 1, kG2S = 2, kS2G = 3 };
enum ModuleId { kLoadModule = 0, kComputeModule = 1, kStoreModule = 2 };

ModuleId route(const RefInsn& i) {
  if (i.opcode == kStore) return kStoreModule;
  if (i.opcode == kLoad && (i.memory_type == kInp || i.memory_type == kWgt)) return kLoadModule;
  return kComputeModule;
}

// The queues a module pops from / pushes to for each dependency bit; -1 = no queue (ignored).
struct DepQueues {
  int pop_prev, pop_next, push_prev, push_next;
};
DepQueues dep_queues(ModuleId m) {
  switch (m) {
    case kLoadModule: return {-1, kG2L, -1, kL2G};
    case kComputeModule: return {kL2G, kS2G, kG2L, kG2S};
    case kStoreModule: return {kG2S, -1, kS2G, -1};
  }
  return {-1, -1, -1, -1};
}

}  // namespace

// ---- geometry ---------------------------------------------------------------------------------

RefGeometry RefGeometry::from(const hw::HwConfig& c) {
  RefGeometry g;
  g.inp_bits = 1 << c.log_inp_width;
  g.wgt_bits = 1 << c.log_wgt_width;
  g.acc_bits = 1 << c.log_acc_width;
  g.log_acc_bits = c.log_acc_width;
  g.out_bits = g.inp_bits;  // the output type has the input's width
  g.batch = 1 << c.log_batch;
  g.block_in = 1 << c.log_block_in;
  g.block_out = 1 << c.log_block_out;
  g.inp_elem_bytes = uint64_t(g.batch) * uint64_t(g.block_in) * uint64_t(g.inp_bits) / 8;
  g.wgt_elem_bytes = uint64_t(g.block_out) * uint64_t(g.block_in) * uint64_t(g.wgt_bits) / 8;
  g.acc_elem_bytes = uint64_t(g.batch) * uint64_t(g.block_out) * uint64_t(g.acc_bits) / 8;
  g.out_elem_bytes = uint64_t(g.batch) * uint64_t(g.block_out) * uint64_t(g.out_bits) / 8;
  g.uop_depth = (uint64_t(1) << c.log_uop_buff_size) / g.uop_elem_bytes;
  g.inp_depth = (uint64_t(1) << c.log_inp_buff_size) / g.inp_elem_bytes;
  g.wgt_depth = (uint64_t(1) << c.log_wgt_buff_size) / g.wgt_elem_bytes;
  g.acc_depth = (uint64_t(1) << c.log_acc_buff_size) / g.acc_elem_bytes;
  g.out_depth = g.acc_depth;  // as many elements as the accumulator buffer
  g.log_uop_depth = exact_log2(g.uop_depth);
  g.log_inp_depth = exact_log2(g.inp_depth);
  g.log_wgt_depth = exact_log2(g.wgt_depth);
  g.log_acc_depth = exact_log2(g.acc_depth);
  g.alu_mul = c.impl.alu_mul;
  g.token_queue_depth = uint32_t(c.timing.token_queue_depth);
  return g;
}

// ---- decoding ---------------------------------------------------------------------------------

RefInsn ref_decode(const RefGeometry& g, const hw::RawInsn& raw, size_t index) {
  RefInsn i;
  Placer p(raw);
  i.opcode = unsigned(p.next(3));
  i.pop_prev = p.next(1) != 0;
  i.pop_next = p.next(1) != 0;
  i.push_prev = p.next(1) != 0;
  i.push_next = p.next(1) != 0;
  const int U = g.log_uop_depth, I = g.log_inp_depth, W = g.log_wgt_depth, A = g.log_acc_depth;
  switch (i.opcode) {
    case kLoad:
    case kStore:
      i.memory_type = unsigned(p.next(3));
      i.sram_base = p.next(16);
      i.dram_base = p.next(32);
      i.y_size = p.next(16);
      i.x_size = p.next(16);
      i.x_stride = p.next(16);
      i.y_pad_0 = unsigned(p.next(4));
      i.y_pad_1 = unsigned(p.next(4));
      i.x_pad_0 = unsigned(p.next(4));
      i.x_pad_1 = unsigned(p.next(4));
      break;
    case kGemm:
    case kAlu:
    case kFinish:  // FINISH uses the GEMM layout (fields expected zero, unused)
      i.reset = p.next(1) != 0;
      i.uop_bgn = p.next(U);
      i.uop_end = p.next(U + 1);
      i.iter_out = p.next(14);
      i.iter_in = p.next(14);
      i.dst_factor_out = p.next(A);
      i.dst_factor_in = p.next(A);
      if (i.opcode == kAlu) {
        i.src_factor_out = p.next(A);
        i.src_factor_in = p.next(A);
        i.alu_opcode = unsigned(p.next(3));
        i.use_imm = p.next(1) != 0;
        i.imm = sign_extend(p.next(16), 16);
      } else {
        i.src_factor_out = p.next(I);
        i.src_factor_in = p.next(I);
        i.wgt_factor_out = p.next(W);
        i.wgt_factor_in = p.next(W);
      }
      break;
    default:
      throw Error(fmt::format("reference: instruction {}: undefined opcode {}", index, i.opcode));
  }
  return i;
}

// ---- state ------------------------------------------------------------------------------------

ReferenceInterpreter::ReferenceInterpreter(const hw::HwConfig& config, uint64_t dram_bytes)
    : g_(RefGeometry::from(config)), dram_(dram_bytes, 0) {
  reset();
}

void ReferenceInterpreter::reset() {
  uop_.assign(g_.uop_depth * g_.uop_elem_bytes, 0);
  inp_.assign(g_.inp_depth * g_.inp_elem_bytes, 0);
  wgt_.assign(g_.wgt_depth * g_.wgt_elem_bytes, 0);
  acc_.assign(g_.acc_depth * g_.acc_elem_bytes, 0);
  out_.assign(g_.out_depth * g_.out_elem_bytes, 0);
}

int64_t ReferenceInterpreter::inp_lane(uint64_t elem, uint64_t lane) const {
  return sign_extend(get_bits(inp_, elem * g_.inp_elem_bytes * 8 + lane * uint64_t(g_.inp_bits),
                              g_.inp_bits),
                     g_.inp_bits);
}
int64_t ReferenceInterpreter::wgt_lane(uint64_t elem, uint64_t lane) const {
  return sign_extend(get_bits(wgt_, elem * g_.wgt_elem_bytes * 8 + lane * uint64_t(g_.wgt_bits),
                              g_.wgt_bits),
                     g_.wgt_bits);
}
int64_t ReferenceInterpreter::acc_lane(uint64_t elem, uint64_t lane) const {
  return sign_extend(get_bits(acc_, elem * g_.acc_elem_bytes * 8 + lane * uint64_t(g_.acc_bits),
                              g_.acc_bits),
                     g_.acc_bits);
}
int64_t ReferenceInterpreter::out_lane(uint64_t elem, uint64_t lane) const {
  return sign_extend(get_bits(out_, elem * g_.out_elem_bytes * 8 + lane * uint64_t(g_.out_bits),
                              g_.out_bits),
                     g_.out_bits);
}
uint32_t ReferenceInterpreter::uop_word(uint64_t index) const {
  return uint32_t(get_bits(uop_, index * 32, 32));
}

// ---- scheduling -------------------------------------------------------------------------------

RefRunStats ReferenceInterpreter::run(std::span<const hw::RawInsn> program) {
  stats_ = RefRunStats{};
  std::array<std::vector<size_t>, 3> queues;  // instruction indices per module, program order
  std::vector<RefInsn> decoded;
  decoded.reserve(program.size());
  for (size_t k = 0; k < program.size(); ++k) {
    decoded.push_back(ref_decode(g_, program[k], k));
    queues[route(decoded.back())].push_back(k);
  }
  std::array<uint64_t, 4> tokens{};
  std::array<size_t, 3> pos{};  // next instruction per module
  // Pushes still owed by the instruction a module executed last (it stalls until they fit).
  std::array<std::vector<int>, 3> owed;
  bool finished = false;

  auto try_pushes = [&](int m) {
    bool progress = false;
    auto& list = owed[size_t(m)];
    while (!list.empty() && tokens[size_t(list.front())] < g_.token_queue_depth) {
      ++tokens[size_t(list.front())];
      list.erase(list.begin());
      progress = true;
    }
    return progress;
  };

  while (!finished) {
    bool progress = false;
    for (int m = 0; m < 3 && !finished; ++m) {
      if (!owed[size_t(m)].empty()) {
        progress |= try_pushes(m);
        if (!owed[size_t(m)].empty()) continue;
      }
      if (pos[size_t(m)] >= queues[size_t(m)].size()) continue;
      const size_t index = queues[size_t(m)][pos[size_t(m)]];
      const RefInsn& insn = decoded[index];
      const DepQueues dq = dep_queues(ModuleId(m));
      const int pp = insn.pop_prev ? dq.pop_prev : -1;
      const int pn = insn.pop_next ? dq.pop_next : -1;
      // Wait until every token it pops is available (counts only).
      if ((pp >= 0 && tokens[size_t(pp)] == 0) || (pn >= 0 && tokens[size_t(pn)] == 0)) continue;
      if (pp >= 0) --tokens[size_t(pp)];
      if (pn >= 0) --tokens[size_t(pn)];
      ++pos[size_t(m)];
      execute(insn, index);
      ++stats_.executed;
      progress = true;
      if (insn.opcode == kFinish) {
        finished = true;
        break;
      }
      if (insn.push_prev && dq.push_prev >= 0) owed[size_t(m)].push_back(dq.push_prev);
      if (insn.push_next && dq.push_next >= 0) owed[size_t(m)].push_back(dq.push_next);
      try_pushes(m);
    }
    if (finished) break;
    if (!progress) {
      bool all_done = true;
      std::string where;
      for (int m = 0; m < 3; ++m) {
        static const char* const names[] = {"load", "compute", "store"};
        const bool done = pos[size_t(m)] >= queues[size_t(m)].size() && owed[size_t(m)].empty();
        all_done &= done;
        if (!done) {
          where += fmt::format(" {}@insn{}{}", names[m],
                               pos[size_t(m)] < queues[size_t(m)].size()
                                   ? queues[size_t(m)][pos[size_t(m)]]
                                   : program.size(),
                               owed[size_t(m)].empty() ? "" : "(push stalled)");
        }
      }
      if (all_done) throw Error("reference: program ended without FINISH");
      throw Error(fmt::format("reference: deadlock; tokens l2g={} g2l={} g2s={} s2g={};{}",
                              tokens[0], tokens[1], tokens[2], tokens[3], where));
    }
  }
  for (int m = 0; m < 3; ++m) stats_.not_executed += queues[size_t(m)].size() - pos[size_t(m)];
  stats_.leftover_tokens = tokens;
  return stats_;
}

void ReferenceInterpreter::execute(const RefInsn& insn, size_t index) {
  switch (insn.opcode) {
    case kLoad: exec_load(insn, index); return;
    case kStore: exec_store(insn, index); return;
    case kGemm: exec_gemm(insn, index); return;
    case kAlu: exec_alu(insn, index); return;
    case kFinish: return;
    default: break;
  }
  throw Error(fmt::format("reference: instruction {}: undefined opcode {}", index, insn.opcode));
}

// ---- loads and stores -------------------------------------------------------------------------

void ReferenceInterpreter::copy_dram_to_sram(std::vector<uint8_t>& sram, uint64_t sram_elem,
                                             uint64_t dram_elem, uint64_t elem_bytes,
                                             size_t index, const char* what) {
  const u128 addr = u128(dram_elem) * elem_bytes;
  if (addr + elem_bytes > dram_.size()) {
    throw Error(fmt::format("reference: instruction {} ({}): DRAM element {} is past the end",
                            index, what, dram_elem));
  }
  for (uint64_t b = 0; b < elem_bytes; ++b) {
    sram.at(sram_elem * elem_bytes + b) = dram_[size_t(addr) + b];
  }
}

void ReferenceInterpreter::load_padded(std::vector<uint8_t>& sram, uint64_t depth,
                                       uint64_t elem_bytes, const RefInsn& insn, size_t index,
                                       const char* what) {
  const uint64_t row_elems = insn.x_pad_0 + insn.x_size + insn.x_pad_1;
  const uint64_t rows = insn.y_pad_0 + insn.y_size + insn.y_pad_1;
  if (insn.sram_base + rows * row_elems > depth) {
    throw Error(fmt::format("reference: instruction {} ({}): SRAM elements [{}, {}) past depth {}",
                            index, what, insn.sram_base, insn.sram_base + rows * row_elems, depth));
  }
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t c = 0; c < row_elems; ++c) {
      const uint64_t sram_elem = insn.sram_base + r * row_elems + c;
      const bool data_row = r >= insn.y_pad_0 && r < insn.y_pad_0 + insn.y_size;
      const bool data_col = c >= insn.x_pad_0 && c < insn.x_pad_0 + insn.x_size;
      if (data_row && data_col) {
        const uint64_t y = r - insn.y_pad_0, x = c - insn.x_pad_0;
        copy_dram_to_sram(sram, sram_elem, insn.dram_base + y * insn.x_stride + x, elem_bytes,
                          index, what);
      } else {
        for (uint64_t b = 0; b < elem_bytes; ++b) sram.at(sram_elem * elem_bytes + b) = 0;
      }
    }
  }
}

void ReferenceInterpreter::exec_load(const RefInsn& insn, size_t index) {
  switch (insn.memory_type) {
    case kUop: {  // 1D: x_size micro-ops; y_size, stride and pads ignored
      if (insn.sram_base + insn.x_size > g_.uop_depth) {
        throw Error(fmt::format("reference: instruction {} (LOAD UOP): past the uop buffer", index));
      }
      for (uint64_t x = 0; x < insn.x_size; ++x) {
        copy_dram_to_sram(uop_, insn.sram_base + x, insn.dram_base + x, 4, index, "LOAD UOP");
      }
      return;
    }
    case kWgt: {  // rows without padding; pad fields ignored
      if (insn.sram_base + insn.y_size * insn.x_size > g_.wgt_depth) {
        throw Error(fmt::format("reference: instruction {} (LOAD WGT): past the weight buffer",
                                index));
      }
      for (uint64_t y = 0; y < insn.y_size; ++y) {
        for (uint64_t x = 0; x < insn.x_size; ++x) {
          copy_dram_to_sram(wgt_, insn.sram_base + y * insn.x_size + x,
                            insn.dram_base + y * insn.x_stride + x, g_.wgt_elem_bytes, index,
                            "LOAD WGT");
        }
      }
      return;
    }
    case kInp: load_padded(inp_, g_.inp_depth, g_.inp_elem_bytes, insn, index, "LOAD INP"); return;
    case kAcc: load_padded(acc_, g_.acc_depth, g_.acc_elem_bytes, insn, index, "LOAD ACC"); return;
    default: return;  // OUT, ACC_8BIT and other ids: nothing but the tokens
  }
}

void ReferenceInterpreter::exec_store(const RefInsn& insn, size_t index) {
  // Source is the OUTPUT buffer; memory_type and pads are ignored.
  if (insn.sram_base + insn.y_size * insn.x_size > g_.out_depth) {
    throw Error(fmt::format("reference: instruction {} (STORE): past the output buffer", index));
  }
  const uint64_t eb = g_.out_elem_bytes;
  for (uint64_t y = 0; y < insn.y_size; ++y) {
    for (uint64_t x = 0; x < insn.x_size; ++x) {
      const uint64_t src = insn.sram_base + y * insn.x_size + x;
      const u128 addr = u128(insn.dram_base + y * insn.x_stride + x) * eb;
      if (addr + eb > dram_.size()) {
        throw Error(fmt::format("reference: instruction {} (STORE): DRAM past the end", index));
      }
      for (uint64_t b = 0; b < eb; ++b) dram_[size_t(addr) + b] = out_.at(src * eb + b);
    }
  }
}

// ---- GEMM -------------------------------------------------------------------------------------

void ReferenceInterpreter::exec_gemm(const RefInsn& insn, size_t index) {
  const int A = g_.log_acc_depth, I = g_.log_inp_depth, W = g_.log_wgt_depth;
  const uint64_t amod = uint64_t(1) << (A + 1), imod = uint64_t(1) << (I + 1),
                 wmod = uint64_t(1) << (W + 1);
  for (uint64_t o = 0; o < insn.iter_out; ++o) {
    for (uint64_t i = 0; i < insn.iter_in; ++i) {
      for (uint64_t upc = insn.uop_bgn; upc < insn.uop_end; ++upc) {
        if (upc >= g_.uop_depth) {
          throw Error(fmt::format("reference: instruction {} (GEMM): uop {} past the buffer", index,
                                  upc));
        }
        const uint64_t word = uop_word(upc);
        const uint64_t uacc = (word >> 0) & low_mask(A);
        const uint64_t uinp = (word >> A) & low_mask(I);
        const uint64_t uwgt = (word >> (A + I)) & low_mask(W);
        const uint64_t a = (uacc + o * insn.dst_factor_out + i * insn.dst_factor_in) % amod;
        const uint64_t x = (uinp + o * insn.src_factor_out + i * insn.src_factor_in) % imod;
        const uint64_t w = (uwgt + o * insn.wgt_factor_out + i * insn.wgt_factor_in) % wmod;
        if (a >= g_.acc_depth || x >= g_.inp_depth || w >= g_.wgt_depth) {
          throw Error(fmt::format(
              "reference: instruction {} (GEMM): index out of range (acc {}, inp {}, wgt {})",
              index, a, x, w));
        }
        ++stats_.gemm_uops;
        for (int b = 0; b < g_.batch; ++b) {
          for (int oc = 0; oc < g_.block_out; ++oc) {
            i128 dot = 0;
            for (int ic = 0; ic < g_.block_in; ++ic) {
              dot += i128(inp_lane(x, uint64_t(b * g_.block_in + ic))) *
                     i128(wgt_lane(w, uint64_t(oc * g_.block_in + ic)));
            }
            const uint64_t lane = uint64_t(b * g_.block_out + oc);
            const int64_t sum = wrap(i128(acc_lane(a, lane)) + dot, g_.acc_bits);
            set_bits(acc_, a * g_.acc_elem_bytes * 8 + lane * uint64_t(g_.acc_bits), g_.acc_bits,
                     insn.reset ? 0 : uint64_t(sum));
            set_bits(out_, a * g_.out_elem_bytes * 8 + lane * uint64_t(g_.out_bits), g_.out_bits,
                     uint64_t(sum));
          }
        }
      }
    }
  }
}

// ---- ALU --------------------------------------------------------------------------------------

void ReferenceInterpreter::exec_alu(const RefInsn& insn, size_t index) {
  if (insn.alu_opcode > kMul) {
    throw Error(fmt::format("reference: instruction {} (ALU): undefined ALU opcode {}", index,
                            insn.alu_opcode));
  }
  if (insn.alu_opcode == kMul && !g_.alu_mul) {
    throw Error(fmt::format("reference: instruction {} (ALU): MUL is switched off", index));
  }
  const int A = g_.log_acc_depth, I = g_.log_inp_depth;
  const uint64_t dmod = uint64_t(1) << (A + 1), smod = uint64_t(1) << (I + 1);
  const uint64_t lanes = uint64_t(g_.batch) * uint64_t(g_.block_out);
  const int aw = g_.acc_bits;
  for (uint64_t o = 0; o < insn.iter_out; ++o) {
    for (uint64_t i = 0; i < insn.iter_in; ++i) {
      for (uint64_t upc = insn.uop_bgn; upc < insn.uop_end; ++upc) {
        if (upc >= g_.uop_depth) {
          throw Error(fmt::format("reference: instruction {} (ALU): uop {} past the buffer", index,
                                  upc));
        }
        const uint64_t word = uop_word(upc);
        const uint64_t udst = word & low_mask(A);
        const uint64_t usrc = (word >> A) & low_mask(I);  // decoded with the input field's width
        // As vta.cc computes them: the dst offset and index are A+1 bits wide; the src offset
        // register is I+1 bits wide (it wraps there), and the uop's src plus that offset is
        // again an A+1-bit accumulator index.
        const uint64_t d = (udst + o * insn.dst_factor_out + i * insn.dst_factor_in) % dmod;
        const uint64_t soff = (o * insn.src_factor_out + i * insn.src_factor_in) % smod;
        const uint64_t s = (usrc + soff) % dmod;
        if (d >= g_.acc_depth || s >= g_.acc_depth) {
          throw Error(fmt::format(
              "reference: instruction {} (ALU): index out of range (dst {}, src {})", index, d, s));
        }
        ++stats_.alu_uops;
        // Read both whole vectors first (the source is read even with use_imm).
        std::vector<int64_t> va(lanes), vb(lanes);
        for (uint64_t l = 0; l < lanes; ++l) {
          va[l] = acc_lane(d, l);
          vb[l] = acc_lane(s, l);
        }
        for (uint64_t l = 0; l < lanes; ++l) {
          const int64_t a = va[l];
          const int64_t b = insn.use_imm ? wrap(i128(insn.imm), aw) : vb[l];
          int64_t r = 0;
          switch (insn.alu_opcode) {
            case kMin: r = a < b ? a : b; break;
            case kMax: r = a > b ? a : b; break;
            case kAdd: r = wrap(i128(a) + i128(b), aw); break;
            case kShr: {
              const int64_t sh = sign_extend(uint64_t(b), g_.log_acc_bits);
              if (sh >= 0) {
                r = a >> sh;  // arithmetic: a is a sign-extended int64
              } else {
                i128 p = a;
                for (int64_t k = 0; k < -sh; ++k) p = wrap(p * 2, aw);
                r = wrap(p, aw);
              }
              break;
            }
            case kMul: r = wrap(i128(a) * i128(b), aw); break;
            default: throw InternalError("reference: ALU opcode");
          }
          set_bits(acc_, d * g_.acc_elem_bytes * 8 + l * uint64_t(aw), aw, uint64_t(r));
          set_bits(out_, d * g_.out_elem_bytes * 8 + l * uint64_t(g_.out_bits), g_.out_bits,
                   uint64_t(r));
        }
      }
    }
  }
}

}  // namespace tauvta::testing
