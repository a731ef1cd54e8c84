#include "sim/random_programs.h"

#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/isa_layout.h"
#include "runtime/command_builder.h"
#include "runtime/device.h"
#include "runtime/uop_kernel.h"

namespace tauvta::testing {
namespace {

using hw::Insn;
using hw::MemId;
using hw::Module;
using hw::Opcode;

// Portable, seed-stable random numbers (no implementation-defined distributions).
class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed * 0x9E3779B97F4A7C15ull + 0x1234567ull) {}
  uint64_t next() { return g_(); }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : g_() % n; }
  uint64_t range(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }  // inclusive
  bool chance(int percent) { return below(100) < uint64_t(percent); }

 private:
  std::mt19937_64 g_;
};

struct Range {
  uint64_t lo = 0, hi = 0;  // [lo, hi)
  uint64_t size() const { return hi - lo; }
  bool contains(uint64_t v) const { return v >= lo && v < hi; }
};

// Offsets (before the uop's own index) of every loop iteration, unwrapped.
std::vector<uint64_t> offsets(uint64_t iter_out, uint64_t iter_in, uint64_t f_out, uint64_t f_in) {
  std::vector<uint64_t> v;
  for (uint64_t o = 0; o < iter_out; ++o) {
    for (uint64_t i = 0; i < iter_in; ++i) v.push_back(o * f_out + i * f_in);
  }
  return v;
}

// A uop field value u (field `width` bits) such that (u + off) mod `mod` lies in `r` for every
// offset; false if none was found.
bool pick_index(Rng& rng, int width, uint64_t mod, Range r, const std::vector<uint64_t>& offs,
                uint64_t& out) {
  const uint64_t field_max = (uint64_t(1) << width) - 1;
  for (int attempt = 0; attempt < 40; ++attempt) {
    uint64_t u = (attempt < 30 && r.size() > 0) ? r.lo + rng.below(r.size())
                                                : rng.below(field_max + 1);
    if (attempt >= 30 && !offs.empty() && r.size() > 0) {  // aim the first offset into range
      u = (r.lo + rng.below(r.size()) + mod - (offs[0] % mod)) % mod;
    }
    if (u > field_max) continue;
    bool ok = true;
    for (uint64_t off : offs) ok = ok && r.contains((u + off) % mod);
    if (ok) {
      out = u;
      return true;
    }
  }
  return false;
}

struct Op {
  Insn insn;
  Module module;
};

void link(Op& a, Op& b) {
  if (a.module == b.module) return;
  if (a.module == Module::kLoad && b.module == Module::kCompute) {
    a.insn.push_next = b.insn.pop_prev = true;
  } else if (a.module == Module::kCompute && b.module == Module::kLoad) {
    a.insn.push_prev = b.insn.pop_next = true;
  } else if (a.module == Module::kCompute && b.module == Module::kStore) {
    a.insn.push_next = b.insn.pop_prev = true;
  } else if (a.module == Module::kStore && b.module == Module::kCompute) {
    a.insn.push_prev = b.insn.pop_next = true;
  } else {
    throw InternalError("random_programs: load and store cannot pass a token directly");
  }
}

// Token on every module switch (calling `noop` to emit a compute instruction between a load and a
// store), then FINISH.
template <typename Noop>
std::vector<Op> serialize(std::vector<Op> body, Noop&& noop) {
  std::vector<Op> out;
  for (Op& op : body) {
    if (!out.empty()) {
      const Module prev = out.back().module;
      if ((prev == Module::kLoad && op.module == Module::kStore) ||
          (prev == Module::kStore && op.module == Module::kLoad)) {
        out.push_back({noop(), Module::kCompute});
        link(out[out.size() - 2], out.back());
      }
      link(out.back(), op);
    }
    out.push_back(op);
  }
  Op fin{Insn{}, Module::kCompute};
  fin.insn.opcode = Opcode::kFinish;
  if (!out.empty()) link(out.back(), fin);
  out.push_back(fin);
  return out;
}

class Generator {
 public:
  Generator(const hw::HwConfig& c, uint64_t seed, ProgramStyle style)
      : c_(c), layout_(c), rng_(seed), style_(style) {
    A_ = c.log_acc_depth();
    I_ = c.log_inp_depth();
    W_ = c.log_wgt_depth();
    const uint64_t max_eb = std::max({uint64_t(c.inp_elem_bytes()), uint64_t(c.wgt_elem_bytes()),
                                      uint64_t(c.acc_elem_bytes()), uint64_t(c.out_elem_bytes())});
    // DRAM layout: [uop words][load data][store area][dump area]. Regions are aligned to the
    // largest element so every memory type can address them.
    auto align = [&](uint64_t v) { return (v + max_eb - 1) / max_eb * max_eb; };
    uop_words_ = 2048;
    data_ = {align(uop_words_ * 4), 0};
    data_.hi = align(data_.lo + std::max<uint64_t>(64 * 1024, 96 * max_eb));
    store_ = {data_.hi, align(data_.hi + std::max<uint64_t>(32 * 1024, 64 * max_eb))};
    const uint64_t passes = reveal_passes();
    dump_ = {store_.hi, align(store_.hi + (passes + 1) * c.out_depth() * c.out_elem_bytes())};
    dram_.assign(dump_.hi + max_eb, 0);
    for (uint64_t b = data_.lo; b < dump_.hi; ++b) dram_[b] = uint8_t(rng_.next());
  }

  RandomProgram build() {
    if (style_ == ProgramStyle::kSerialized) {
      build_serialized();
    } else {
      build_pipelined();
    }
    RandomProgram p;
    p.config = c_;
    p.style = style_;
    p.insns.reserve(ops_.size());
    for (const Op& op : ops_) {
      if (hw::module_of(op.insn) != op.module) {
        throw InternalError("random_programs: module bookkeeping is wrong");
      }
      p.insns.push_back(layout_.encode(op.insn));
    }
    p.dram = std::move(dram_);
    return p;
  }

 private:
  // ---- small helpers --------------------------------------------------------------------------

  uint64_t reveal_passes() const {
    const int ow = c_.out_width(), aw = c_.acc_width();
    return uint64_t(std::min((aw + ow - 1) / ow, 8));
  }

  uint64_t mask(int width) const { return (uint64_t(1) << width) - 1; }

  // Element range of DRAM region `r` for elements of `eb` bytes.
  static Range elems(Range r, uint64_t eb) { return {(r.lo + eb - 1) / eb, r.hi / eb}; }

  void emit(const Insn& insn) { ops_.push_back({insn, hw::module_of(insn)}); }

  uint64_t pick_iter() {
    if (rng_.chance(4)) return 0;
    return rng_.range(1, 3);
  }

  uint64_t pick_factor(int width, uint64_t span) {
    const int r = int(rng_.below(100));
    uint64_t v;
    if (r < 35) {
      v = 0;
    } else if (r < 65) {
      v = rng_.range(1, 3);
    } else if (r < 85) {
      v = rng_.below(std::max<uint64_t>(span, 1));
    } else {
      v = rng_.below(uint64_t(1) << width);  // full field: exercises the index wrap
    }
    return v & mask(width);
  }

  // Writes micro-op words to the DRAM uop region and emits LOAD UOP(s) for them; returns the
  // uop buffer position of the first.
  uint64_t load_uops(const std::vector<uint32_t>& words) {
    const uint64_t n = words.size();
    if (uop_next_ + n > uop_words_) throw InternalError("random_programs: uop region full");
    const uint64_t dram_word = uop_next_;
    for (uint64_t k = 0; k < n; ++k) {
      for (int b = 0; b < 4; ++b) dram_[(dram_word + k) * 4 + uint64_t(b)] = uint8_t(words[k] >> (8 * b));
    }
    uop_next_ += n;
    const uint64_t depth = c_.uop_depth();
    const uint64_t base = rng_.below(depth - n + 1);
    // Sometimes split in two loads; randomize the fields a UOP load ignores.
    const uint64_t split = (n >= 2 && rng_.chance(25)) ? rng_.range(1, n - 1) : n;
    auto one = [&](uint64_t first, uint64_t count) {
      Insn i;
      i.opcode = Opcode::kLoad;
      i.memory_type = uint8_t(MemId::kUop);
      i.sram_base = uint32_t(base + first);
      i.dram_base = uint32_t(dram_word + first);
      i.x_size = uint32_t(count);
      i.y_size = uint32_t(rng_.chance(50) ? 1 : rng_.below(4));
      i.x_stride = uint32_t(rng_.chance(50) ? count : rng_.below(9));
      if (rng_.chance(30)) {
        i.y_pad_0 = uint8_t(rng_.below(16));
        i.y_pad_1 = uint8_t(rng_.below(16));
        i.x_pad_0 = uint8_t(rng_.below(16));
        i.x_pad_1 = uint8_t(rng_.below(16));
      }
      emit(i);
    };
    one(0, split);
    if (split < n) one(split, n - split);
    return base;
  }

  // ---- instruction generators -----------------------------------------------------------------

  // LOAD INP/ACC (padded) or WGT (pads ignored) into SRAM elements `sram`, reading DRAM region
  // `src`.
  void gen_load(MemId mem, Range sram, Range src) {
    const bool padded = mem != MemId::kWgt;
    const uint64_t eb = mem == MemId::kInp   ? uint64_t(c_.inp_elem_bytes())
                        : mem == MemId::kWgt ? uint64_t(c_.wgt_elem_bytes())
                                             : uint64_t(c_.acc_elem_bytes());
    const Range de = elems(src, eb);
    for (int attempt = 0; attempt < 100; ++attempt) {
      Insn i;
      i.opcode = Opcode::kLoad;
      i.memory_type = uint8_t(mem);
      i.y_size = uint32_t(rng_.chance(5) ? 0 : rng_.range(1, 3));
      i.x_size = uint32_t(rng_.chance(5) ? 0 : rng_.range(1, 4));
      auto pad = [&] { return uint8_t(rng_.chance(60) ? 0 : rng_.range(1, 2)); };
      i.y_pad_0 = pad();
      i.y_pad_1 = pad();
      i.x_pad_0 = pad();
      i.x_pad_1 = pad();
      if (attempt > 50) i.y_pad_0 = i.y_pad_1 = i.x_pad_0 = i.x_pad_1 = 0;
      if (attempt > 80) i.y_size = i.x_size = 1;
      const uint64_t rows = padded ? i.y_pad_0 + i.y_size + i.y_pad_1 : i.y_size;
      const uint64_t cols = padded ? i.x_pad_0 + i.x_size + i.x_pad_1 : i.x_size;
      if (rows * cols > sram.size()) continue;
      i.sram_base = uint32_t(sram.lo + rng_.below(sram.size() - rows * cols + 1));
      i.x_stride = uint32_t(rng_.chance(20) ? rng_.below(i.x_size + 1) : i.x_size + rng_.below(4));
      const uint64_t span = (i.y_size == 0 || i.x_size == 0)
                                ? 0
                                : (i.y_size - 1) * uint64_t(i.x_stride) + i.x_size;
      if (span > de.size()) continue;
      i.dram_base = uint32_t(de.lo + rng_.below(de.size() - span + 1));
      emit(i);
      return;
    }
  }

  void gen_store(Range out, Range dst) {
    const uint64_t eb = uint64_t(c_.out_elem_bytes());
    const Range de = elems(dst, eb);
    for (int attempt = 0; attempt < 100; ++attempt) {
      Insn i;
      i.opcode = Opcode::kStore;
      i.memory_type = uint8_t(rng_.chance(80) ? uint8_t(MemId::kOut) : rng_.below(8));  // ignored
      i.y_size = uint32_t(rng_.chance(5) ? 0 : rng_.range(1, 3));
      i.x_size = uint32_t(rng_.chance(5) ? 0 : rng_.range(1, 4));
      if (attempt > 80) i.y_size = i.x_size = 1;
      if (rng_.chance(20)) {  // ignored by STORE
        i.y_pad_0 = uint8_t(rng_.below(16));
        i.x_pad_1 = uint8_t(rng_.below(16));
      }
      const uint64_t n = uint64_t(i.y_size) * i.x_size;
      if (n > out.size()) continue;
      i.sram_base = uint32_t(out.lo + rng_.below(out.size() - n + 1));
      i.x_stride = uint32_t(rng_.chance(20) ? rng_.below(i.x_size + 1) : i.x_size + rng_.below(4));
      const uint64_t span = (i.y_size == 0 || i.x_size == 0)
                                ? 0
                                : (i.y_size - 1) * uint64_t(i.x_stride) + i.x_size;
      if (span > de.size()) continue;
      i.dram_base = uint32_t(de.lo + rng_.below(de.size() - span + 1));
      emit(i);
      return;
    }
  }

  static uint64_t wrap_mod(int width) { return uint64_t(1) << (width + 1); }

  void gen_gemm(Range acc, Range inp, Range wgt) {
    for (int attempt = 0; attempt < 200; ++attempt) {
      Insn g;
      g.opcode = Opcode::kGemm;
      g.reset = rng_.chance(20);
      const bool simple = attempt > 150;
      g.iter_out = uint32_t(simple ? 1 : pick_iter());
      g.iter_in = uint32_t(simple ? 1 : pick_iter());
      auto f = [&](int w, uint64_t span) { return simple ? 0 : uint32_t(pick_factor(w, span)); };
      g.dst_factor_out = f(A_, acc.size());
      g.dst_factor_in = f(A_, acc.size());
      g.src_factor_out = f(I_, inp.size());
      g.src_factor_in = f(I_, inp.size());
      g.wgt_factor_out = f(W_, wgt.size());
      g.wgt_factor_in = f(W_, wgt.size());
      const auto da = offsets(g.iter_out, g.iter_in, g.dst_factor_out, g.dst_factor_in);
      const auto di = offsets(g.iter_out, g.iter_in, g.src_factor_out, g.src_factor_in);
      const auto dw = offsets(g.iter_out, g.iter_in, g.wgt_factor_out, g.wgt_factor_in);
      const uint64_t nu = rng_.chance(5) ? 0 : rng_.range(1, 4);
      std::vector<uint32_t> words;
      bool ok = true;
      for (uint64_t k = 0; k < nu && ok; ++k) {
        hw::Uop u;
        uint64_t a = 0, x = 0, w = 0;
        ok = pick_index(rng_, A_, wrap_mod(A_), acc, da, a) && pick_index(rng_, I_, wrap_mod(I_), inp, di, x) &&
             pick_index(rng_, W_, wrap_mod(W_), wgt, dw, w);
        u.dst = uint32_t(a);
        u.src = uint32_t(x);
        u.wgt = uint32_t(w);
        if (ok) words.push_back(layout_.encode_gemm_uop(u));
      }
      if (!ok) continue;
      if (words.empty()) {
        g.uop_bgn = g.uop_end = uint32_t(rng_.below(c_.uop_depth()));
        if (rng_.chance(50) && g.uop_bgn > 0) g.uop_end = uint32_t(rng_.below(g.uop_bgn));
      } else {
        g.uop_bgn = uint32_t(load_uops(words));
        g.uop_end = uint32_t(g.uop_bgn + words.size());
      }
      emit(g);
      return;
    }
  }

  void gen_alu(Range dst, Range src) {
    const int ops = c_.impl.alu_mul ? 5 : 4;
    for (int attempt = 0; attempt < 200; ++attempt) {
      Insn a;
      a.opcode = Opcode::kAlu;
      a.alu_opcode = uint8_t(rng_.below(uint64_t(ops)));
      a.use_imm = rng_.chance(50);
      a.reset = rng_.chance(10);  // ignored by ALU
      const int aw = c_.acc_width();
      if (a.alu_opcode == uint8_t(hw::AluOp::kShr) && rng_.chance(60)) {
        a.imm = int32_t(rng_.below(uint64_t(aw))) - aw / 2;
      } else if (rng_.chance(30)) {
        a.imm = int32_t(rng_.below(17)) - 8;
      } else {
        a.imm = int32_t(int16_t(uint16_t(rng_.next())));
      }
      const bool simple = attempt > 150;
      a.iter_out = uint32_t(simple ? 1 : pick_iter());
      a.iter_in = uint32_t(simple ? 1 : pick_iter());
      auto f = [&](uint64_t span) { return simple ? 0 : uint32_t(pick_factor(A_, span)); };
      a.dst_factor_out = f(dst.size());
      a.dst_factor_in = f(dst.size());
      a.src_factor_out = f(src.size());
      a.src_factor_in = f(src.size());
      const auto dd = offsets(a.iter_out, a.iter_in, a.dst_factor_out, a.dst_factor_in);
      // The src offset register wraps at 2^(I+1); uop src + offset is an A+1-bit index.
      auto ds = offsets(a.iter_out, a.iter_in, a.src_factor_out, a.src_factor_in);
      for (uint64_t& v : ds) v %= wrap_mod(I_);
      const uint64_t nu = rng_.chance(5) ? 0 : rng_.range(1, 4);
      std::vector<uint32_t> words;
      bool ok = true;
      for (uint64_t k = 0; k < nu && ok; ++k) {
        uint64_t d = 0, s = 0;
        ok = pick_index(rng_, A_, wrap_mod(A_), dst, dd, d) && pick_index(rng_, I_, wrap_mod(A_), src, ds, s);
        if (ok) words.push_back(layout_.encode_alu_uop({uint32_t(d), uint32_t(s), 0}));
      }
      if (!ok) continue;
      if (words.empty()) {
        a.uop_bgn = a.uop_end = uint32_t(rng_.below(c_.uop_depth()));
      } else {
        a.uop_bgn = uint32_t(load_uops(words));
        a.uop_end = uint32_t(a.uop_bgn + words.size());
      }
      emit(a);
      return;
    }
  }

  // A compute-module instruction that changes nothing.
  void gen_compute_noop() {
    Insn i;
    switch (rng_.below(6)) {
      case 0:
      case 1: {  // LOAD of OUT, ACC_8BIT or the undefined ids 6, 7: nothing but tokens
        static const uint8_t ids[] = {uint8_t(MemId::kOut), uint8_t(MemId::kAcc8), 6, 7};
        i.opcode = Opcode::kLoad;
        i.memory_type = ids[rng_.below(4)];
        i.sram_base = uint32_t(rng_.below(4));
        i.dram_base = uint32_t(rng_.below(4));
        i.y_size = uint32_t(rng_.below(3));
        i.x_size = uint32_t(rng_.below(3));
        i.x_stride = i.x_size;
        break;
      }
      case 2:
        i.opcode = Opcode::kGemm;
        i.iter_out = 0;
        i.iter_in = uint32_t(rng_.below(3));
        i.uop_bgn = 0;
        i.uop_end = 1;
        break;
      case 3:
        i.opcode = Opcode::kAlu;
        i.iter_out = 1;
        i.iter_in = 1;
        i.uop_bgn = i.uop_end = uint32_t(rng_.below(c_.uop_depth()));
        i.alu_opcode = uint8_t(rng_.below(4));
        break;
      case 4:  // LOAD UOP of nothing
        i.opcode = Opcode::kLoad;
        i.memory_type = uint8_t(MemId::kUop);
        i.sram_base = 0;
        i.x_size = 0;
        i.y_size = uint32_t(rng_.below(3));
        break;
      default:  // LOAD ACC of an empty block
        i.opcode = Opcode::kLoad;
        i.memory_type = uint8_t(MemId::kAcc);
        i.sram_base = uint32_t(rng_.below(c_.acc_depth()));
        i.y_size = uint32_t(rng_.below(2));
        i.x_size = 0;
        i.x_stride = 1;
        break;
    }
    emit(i);
  }

  // ---- serialized style -----------------------------------------------------------------------

  void build_serialized() {
    const Range acc{0, c_.acc_depth()}, inp{0, c_.inp_depth()}, wgt{0, c_.wgt_depth()};
    const uint64_t n = rng_.range(6, 30);
    for (uint64_t k = 0; k < n; ++k) {
      const uint64_t r = rng_.below(100);
      if (r < 14) {
        gen_load(MemId::kInp, inp, data_);
      } else if (r < 28) {
        gen_load(MemId::kWgt, wgt, data_);
      } else if (r < 38) {
        gen_load(MemId::kAcc, acc, data_);
      } else if (r < 58) {
        gen_gemm(acc, inp, wgt);
      } else if (r < 80) {
        gen_alu(acc, acc);
      } else if (r < 95) {
        gen_store(acc, data_);  // may overwrite data later loads read: tokens order it
      } else {
        gen_compute_noop();
      }
    }
    emit_reveal();
    serialize_tokens();
  }

  // Stores the whole output buffer, then passes of (ALU SHR by the output width; store).
  void emit_reveal() {
    const uint64_t depth = c_.out_depth(), eb = uint64_t(c_.out_elem_bytes());
    const uint64_t x = std::min<uint64_t>(depth, 1024), y = depth / x;
    const uint64_t passes = reveal_passes();
    const uint64_t uop = load_uops({layout_.encode_alu_uop({0, 0, 0})});
    for (uint64_t p = 0; p < passes; ++p) {
      if (p > 0) {
        int left = c_.out_width();
        const int max_shift = c_.acc_width() / 2 - 1;
        while (left > 0) {
          const int s = std::min(left, max_shift);
          left -= s;
          Insn a;
          a.opcode = Opcode::kAlu;
          a.alu_opcode = uint8_t(hw::AluOp::kShr);
          a.use_imm = true;
          a.imm = s;
          a.uop_bgn = uint32_t(uop);
          a.uop_end = uint32_t(uop + 1);
          const uint64_t ii = std::min<uint64_t>(c_.acc_depth(), 8192);
          a.iter_in = uint32_t(ii);
          a.dst_factor_in = 1;
          a.iter_out = uint32_t(c_.acc_depth() / ii);
          a.dst_factor_out = a.iter_out > 1 ? uint32_t(ii) : 0;
          emit(a);
        }
      }
      Insn s;
      s.opcode = Opcode::kStore;
      s.memory_type = uint8_t(MemId::kOut);
      s.sram_base = 0;
      s.y_size = uint32_t(y);
      s.x_size = uint32_t(x);
      s.x_stride = uint32_t(x);
      s.dram_base = uint32_t(dump_.lo / eb + p * depth);
      emit(s);
    }
  }

  // Puts a token on every module switch (inserting a compute no-op between load and store) and
  // appends FINISH, so the program runs strictly in program order.
  void serialize_tokens() {
    std::vector<Op> body = std::move(ops_);
    ops_.clear();
    ops_ = serialize(std::move(body), [&] {
      gen_compute_noop();
      const Insn i = ops_.back().insn;
      ops_.pop_back();
      return i;
    });
  }

  // ---- pipelined style ------------------------------------------------------------------------

  void build_pipelined() {
    const uint64_t tiles = rng_.range(1, 6);
    const bool load_ahead = rng_.chance(50);
    auto half = [](uint64_t depth, uint64_t b) {
      return Range{b * (depth / 2), (b + 1) * (depth / 2)};
    };
    std::vector<std::vector<Op>> loads(tiles), computes(tiles), stores(tiles);
    const uint64_t store_elems = elems(store_, uint64_t(c_.out_elem_bytes())).size();
    for (uint64_t t = 0; t < tiles; ++t) {
      const uint64_t b = t % 2;
      const Range inp = half(c_.inp_depth(), b), wgt = half(c_.wgt_depth(), b),
                  acc = half(c_.acc_depth(), b);
      auto capture = [&](std::vector<Op>& into, auto&& fn) {
        const size_t before = ops_.size();
        fn();
        into.insert(into.end(), ops_.begin() + std::ptrdiff_t(before), ops_.end());
        ops_.resize(before);
      };
      capture(loads[t], [&] {
        const uint64_t n = rng_.range(1, 3);
        for (uint64_t k = 0; k < n; ++k) {
          gen_load(k % 2 == 0 ? MemId::kInp : MemId::kWgt, k % 2 == 0 ? inp : wgt, data_);
        }
      });
      capture(computes[t], [&] {
        if (rng_.chance(40)) gen_load(MemId::kAcc, acc, data_);
        const uint64_t ng = rng_.range(1, 2), na = rng_.range(0, 2);
        for (uint64_t k = 0; k < ng; ++k) gen_gemm(acc, inp, wgt);
        for (uint64_t k = 0; k < na; ++k) gen_alu(acc, acc);
        if (rng_.chance(20)) gen_compute_noop();
      });
      capture(stores[t], [&] {
        const uint64_t n = rng_.range(1, 2);
        const uint64_t per_tile = store_elems / tiles;
        const Range region{store_.lo + t * per_tile * uint64_t(c_.out_elem_bytes()),
                           store_.lo + (t + 1) * per_tile * uint64_t(c_.out_elem_bytes())};
        for (uint64_t k = 0; k < n; ++k) gen_store(acc, region);
      });
      if (loads[t].empty() || computes[t].empty() || stores[t].empty()) {
        throw InternalError("random_programs: empty pipeline stage");
      }
      // Tokens: l2g load->compute each tile; g2l frees input/weight half for tile t+2; g2s
      // compute->store each tile; s2g frees the output half for tile t+2 (and, from the last
      // tile, tells FINISH that every store is done).
      if (t >= 2) loads[t].front().insn.pop_next = true;
      loads[t].back().insn.push_next = true;
      computes[t].front().insn.pop_prev = true;
      if (t >= 2) computes[t].front().insn.pop_next = true;
      if (t + 2 < tiles) computes[t].back().insn.push_prev = true;
      computes[t].back().insn.push_next = true;
      stores[t].front().insn.pop_prev = true;
      if (t + 2 < tiles || t + 1 == tiles) stores[t].back().insn.push_prev = true;
    }
    ops_.clear();
    auto append = [&](std::vector<Op>& v) { ops_.insert(ops_.end(), v.begin(), v.end()); };
    if (load_ahead) {
      append(loads[0]);
      for (uint64_t t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) append(loads[t + 1]);
        append(computes[t]);
        append(stores[t]);
      }
    } else {
      for (uint64_t t = 0; t < tiles; ++t) {
        append(loads[t]);
        append(computes[t]);
        append(stores[t]);
      }
    }
    Op fin{Insn{}, Module::kCompute};
    fin.insn.opcode = Opcode::kFinish;
    fin.insn.pop_next = true;  // the last store's token
    ops_.push_back(fin);
  }

  const hw::HwConfig& c_;
  hw::IsaLayout layout_;
  Rng rng_;
  ProgramStyle style_;
  int A_ = 0, I_ = 0, W_ = 0;
  uint64_t uop_words_ = 0, uop_next_ = 0;
  Range data_, store_, dump_;
  std::vector<uint8_t> dram_;
  std::vector<Op> ops_;
};

}  // namespace

const char* style_name(ProgramStyle s) {
  return s == ProgramStyle::kSerialized ? "serialized" : "pipelined";
}

hw::HwConfig make_config(int log_inp_width, int log_wgt_width, int log_acc_width, int log_batch,
                         int log_block_in, int log_block_out, int log_uop_depth,
                         int log_inp_depth, int log_wgt_depth, int log_acc_depth) {
  hw::HwConfig c;
  c.log_inp_width = log_inp_width;
  c.log_wgt_width = log_wgt_width;
  c.log_acc_width = log_acc_width;
  c.log_batch = log_batch;
  c.log_block_in = log_block_in;
  c.log_block_out = log_block_out;
  c.log_uop_buff_size = log_uop_depth + 2;
  c.log_inp_buff_size = log_inp_depth + log_batch + log_block_in + log_inp_width - 3;
  c.log_wgt_buff_size = log_wgt_depth + log_block_out + log_block_in + log_wgt_width - 3;
  c.log_acc_buff_size = log_acc_depth + log_batch + log_block_out + log_acc_width - 3;
  c.impl.alu_mul = true;  // the test programs use MUL (tauvta's extension; VTA's default lacks it)
  c.validate("make_config");
  return c;
}

hw::HwConfig random_config(uint64_t seed) {
  Rng rng(seed ^ 0xC0FFEEull);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const int li = int(rng.range(0, 4)), lw = int(rng.range(0, 4)), la = int(rng.range(4, 6));
    const int lb = int(rng.chance(50) ? 0 : rng.range(1, 2));
    const int bi = int(rng.range(0, 4));
    int bo = int(rng.range(0, 4));
    if (bo == bi && rng.chance(70)) bo = (bi + 1 + int(rng.below(4))) % 5;
    if (lb + bi + li < 3 || bo + bi + lw < 3 || lb + bo + li < 3) continue;
    try {
      hw::HwConfig c = make_config(li, lw, la, lb, bi, bo, int(rng.range(4, 7)),
                                   int(rng.range(3, 6)), int(rng.range(2, 5)),
                                   int(rng.range(3, 6)));
      if (rng.chance(30)) {
        c.timing.token_queue_depth = int(rng.range(1, 3));
        c.timing.cmd_queue_depth = int(rng.range(1, 3));
      }
      c.impl.alu_mul = !rng.chance(10);
      c.validate("random_config");
      return c;
    } catch (const Error&) {
      continue;
    }
  }
  throw InternalError("random_config: no valid config found");
}

hw::Insn load_insn(uint8_t memory_type, uint32_t sram_base, uint32_t dram_base, uint32_t y_size,
                   uint32_t x_size, uint32_t x_stride, Pads pads) {
  Insn i;
  i.opcode = Opcode::kLoad;
  i.memory_type = memory_type;
  i.sram_base = sram_base;
  i.dram_base = dram_base;
  i.y_size = y_size;
  i.x_size = x_size;
  i.x_stride = x_stride;
  i.y_pad_0 = pads.y0;
  i.y_pad_1 = pads.y1;
  i.x_pad_0 = pads.x0;
  i.x_pad_1 = pads.x1;
  return i;
}

hw::Insn store_insn(uint32_t sram_base, uint32_t dram_base, uint32_t y_size, uint32_t x_size,
                    uint32_t x_stride, uint8_t memory_type) {
  Insn i = load_insn(memory_type, sram_base, dram_base, y_size, x_size, x_stride);
  i.opcode = Opcode::kStore;
  return i;
}

namespace {
void set_loops(Insn& i, const Loops& l) {
  i.uop_bgn = l.uop_bgn;
  i.uop_end = l.uop_end;
  i.iter_out = l.iter_out;
  i.iter_in = l.iter_in;
  i.dst_factor_out = l.dst_out;
  i.dst_factor_in = l.dst_in;
  i.src_factor_out = l.src_out;
  i.src_factor_in = l.src_in;
  i.wgt_factor_out = l.wgt_out;
  i.wgt_factor_in = l.wgt_in;
}
}  // namespace

hw::Insn gemm_insn(bool reset, Loops loops) {
  Insn i;
  i.opcode = Opcode::kGemm;
  i.reset = reset;
  set_loops(i, loops);
  return i;
}

hw::Insn alu_insn(hw::AluOp op, bool use_imm, int32_t imm, Loops loops) {
  Insn i;
  i.opcode = Opcode::kAlu;
  i.alu_opcode = uint8_t(op);
  i.use_imm = use_imm;
  i.imm = imm;
  set_loops(i, loops);
  return i;
}

std::vector<hw::RawInsn> encode_serialized(const hw::HwConfig& config,
                                           const std::vector<hw::Insn>& body) {
  std::vector<Op> ops;
  for (const Insn& i : body) ops.push_back({i, hw::module_of(i)});
  ops = serialize(std::move(ops), [] { return load_insn(uint8_t(MemId::kOut), 0, 0, 0, 0, 0); });
  const hw::IsaLayout layout(config);
  std::vector<hw::RawInsn> out;
  for (const Op& op : ops) out.push_back(layout.encode(op.insn));
  return out;
}

// ---- random work through the runtime ------------------------------------------------------------

namespace {

uint32_t random_factor(Rng& rng, int width, uint64_t span) {
  const uint64_t r = rng.below(100);
  uint64_t v;
  if (r < 35) {
    v = 0;
  } else if (r < 65) {
    v = rng.range(1, 3);
  } else if (r < 85) {
    v = rng.below(std::max<uint64_t>(span, 1));
  } else {
    v = rng.below(uint64_t(1) << width);
  }
  return uint32_t(v & ((uint64_t(1) << width) - 1));
}

runtime::UopKernel random_kernel(Rng& rng, const hw::HwConfig& c, runtime::UopKind kind) {
  const bool gemm = kind == runtime::UopKind::kGemm;
  const int A = c.log_acc_depth(), I = c.log_inp_depth(), W = c.log_wgt_depth();
  const Range acc{0, c.acc_depth()}, inp{0, c.inp_depth()}, wgt{0, c.wgt_depth()};
  const uint64_t amod = uint64_t(1) << (A + 1), imod = uint64_t(1) << (I + 1),
                 wmod = uint64_t(1) << (W + 1);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const bool simple = attempt > 150;
    const int nloops = simple ? 0 : int(rng.below(3));
    runtime::UopLoop loops[2];
    for (int l = 0; l < nloops; ++l) {
      loops[l].extent = uint32_t(rng.range(1, 3));
      loops[l].dst_factor = random_factor(rng, A, acc.size());
      loops[l].src_factor = random_factor(rng, gemm ? I : A, gemm ? inp.size() : acc.size());
      loops[l].wgt_factor = gemm ? random_factor(rng, W, wgt.size()) : 0;
    }
    const auto& lo = loops[0];
    const auto& li = loops[1];
    const auto dd = offsets(lo.extent, li.extent, lo.dst_factor, li.dst_factor);
    auto ds = offsets(lo.extent, li.extent, lo.src_factor, li.src_factor);
    const auto dw = offsets(lo.extent, li.extent, lo.wgt_factor, li.wgt_factor);
    if (!gemm) {
      for (uint64_t& v : ds) v %= imod;  // ALU: src offset wraps at 2^(I+1), index at 2^(A+1)
    }
    runtime::UopKernelBuilder kb(kind);
    for (int l = 0; l < nloops; ++l) {
      kb.loop_begin(loops[l].extent, loops[l].dst_factor, loops[l].src_factor,
                    loops[l].wgt_factor);
    }
    const uint64_t nu = rng.range(1, 4);
    bool ok = true;
    for (uint64_t k = 0; k < nu && ok; ++k) {
      uint64_t d = 0, x = 0, w = 0;
      ok = pick_index(rng, A, amod, acc, dd, d) &&
           (gemm ? pick_index(rng, I, imod, inp, ds, x) && pick_index(rng, W, wmod, wgt, dw, w)
                 : pick_index(rng, I, amod, acc, ds, x));
      if (ok) kb.push(uint32_t(d), uint32_t(x), uint32_t(w));
    }
    if (!ok) continue;
    for (int l = 0; l < nloops; ++l) kb.loop_end();
    return kb.build();
  }
  return runtime::UopKernelBuilder(kind).push(0, 0, 0).build();
}

void fill_random(Rng& rng, runtime::DramBuffer& b) {
  std::vector<uint8_t> bytes(b.size());
  for (uint8_t& v : bytes) v = uint8_t(rng.next());
  b.copy_in(bytes);
}

}  // namespace

uint64_t run_random_runtime_program(runtime::Device& device, uint64_t seed) {
  using runtime::Pad2D;
  Rng rng(seed ^ 0x5EEDull);
  const hw::HwConfig& c = device.config();
  runtime::CommandBuilderOptions options;
  options.max_insns = rng.chance(30) ? rng.range(6, 30) : 0;
  options.run_options.check_hazards = true;
  options.run_options.fail_on_hazard = true;
  runtime::CommandBuilder cb(device, options);

  runtime::DramBuffer inp = device.alloc_elems(MemId::kInp, 64);
  runtime::DramBuffer wgt = device.alloc_elems(MemId::kWgt, 32);
  runtime::DramBuffer acc = device.alloc_elems(MemId::kAcc, 64);
  runtime::DramBuffer out = device.alloc_elems(MemId::kOut, 64);
  runtime::DramBuffer dump = device.alloc_elems(MemId::kOut, c.out_depth());
  fill_random(rng, inp);
  fill_random(rng, wgt);
  fill_random(rng, acc);
  out.fill_zero();
  dump.fill_zero();

  bool have_module = false;
  Module cur = Module::kCompute;
  auto go = [&](Module m) {
    if (have_module && cur != m) {
      if ((cur == Module::kLoad && m == Module::kStore) ||
          (cur == Module::kStore && m == Module::kLoad)) {
        cb.dep_push(cur, Module::kCompute);
        cb.dep_pop(cur, Module::kCompute);
        cb.emit(load_insn(uint8_t(MemId::kUop), 0, 0, 0, 0, 0));  // compute no-op
        cur = Module::kCompute;
      }
      cb.dep_push(cur, m);
      cb.dep_pop(cur, m);
    }
    have_module = true;
    cur = m;
  };
  // A random 2D access: rows, cols fit `sram_depth` from some base, rows fit `dram_elems`.
  struct Access {
    uint32_t sram = 0, x = 0, y = 0, stride = 0;
    uint64_t offset = 0;
    Pad2D pad;
  };
  auto access = [&](uint64_t sram_depth, uint64_t dram_elems, bool padded) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      Access a;
      a.y = uint32_t(rng.chance(5) ? 0 : rng.range(1, 3));
      a.x = uint32_t(rng.chance(5) ? 0 : rng.range(1, 4));
      if (padded && rng.chance(50)) {
        a.pad = {uint8_t(rng.below(3)), uint8_t(rng.below(3)), uint8_t(rng.below(3)),
                 uint8_t(rng.below(3))};
      }
      if (attempt > 80) a = Access{0, 1, 1, 1, 0, {}};
      const uint64_t rows = uint64_t(a.pad.y0) + a.y + a.pad.y1;
      const uint64_t cols = uint64_t(a.pad.x0) + a.x + a.pad.x1;
      if (rows * cols > sram_depth) continue;
      a.sram = uint32_t(rng.below(sram_depth - rows * cols + 1));
      a.stride = uint32_t(rng.chance(20) ? rng.below(a.x + 1) : a.x + rng.below(4));
      const uint64_t span = (a.x == 0 || a.y == 0) ? 0 : uint64_t(a.y - 1) * a.stride + a.x;
      if (span > dram_elems) continue;
      a.offset = rng.below(dram_elems - span + 1);
      if (a.offset >= dram_elems) a.offset = 0;
      return a;
    }
    return Access{0, 0, 0, 0, 0, {}};
  };

  const uint64_t n = rng.range(8, 40);
  for (uint64_t k = 0; k < n; ++k) {
    const uint64_t r = rng.below(100);
    if (r < 14) {
      go(Module::kLoad);
      const Access a = access(c.inp_depth(), 64, true);
      cb.load_2d(MemId::kInp, a.sram, inp, a.offset, a.x, a.y, a.stride, a.pad);
    } else if (r < 26) {
      go(Module::kLoad);
      const Access a = access(c.wgt_depth(), 32, false);
      cb.load_2d(MemId::kWgt, a.sram, wgt, a.offset, a.x, a.y, a.stride);
    } else if (r < 36) {
      go(Module::kCompute);
      const Access a = access(c.acc_depth(), 64, true);
      cb.load_2d(MemId::kAcc, a.sram, acc, a.offset, a.x, a.y, a.stride, a.pad);
    } else if (r < 58) {
      go(Module::kCompute);
      cb.gemm(random_kernel(rng, c, runtime::UopKind::kGemm), rng.chance(20));
    } else if (r < 80) {
      go(Module::kCompute);
      const int ops = c.impl.alu_mul ? 5 : 4;
      const auto op = hw::AluOp(rng.below(uint64_t(ops)));
      const bool use_imm = rng.chance(50);
      const int32_t imm = rng.chance(40) ? int32_t(rng.below(33)) - 16
                                         : int32_t(int16_t(uint16_t(rng.next())));
      cb.alu(random_kernel(rng, c, runtime::UopKind::kAlu), op, use_imm, imm);
    } else if (r < 95) {
      go(Module::kStore);
      const Access a = access(c.out_depth(), 64, false);
      cb.store_2d(a.sram, out, a.offset, a.x, a.y, a.stride);
    } else {
      cb.synchronize();
      have_module = false;
    }
  }
  go(Module::kStore);
  const uint32_t x = uint32_t(std::min<uint64_t>(c.out_depth(), 1024));
  cb.store_2d(0, dump, 0, x, uint32_t(c.out_depth() / x), x);
  cb.synchronize();
  return cb.runs();
}

RandomProgram random_program(const hw::HwConfig& config, uint64_t seed, ProgramStyle style) {
  Generator g(config, seed, style);
  RandomProgram p = g.build();
  p.seed = seed;
  return p;
}

}  // namespace tauvta::testing
