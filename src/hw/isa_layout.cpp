#include "hw/isa_layout.h"

#include <cstddef>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::hw {
namespace {

struct FieldSpec {
  Field field;
  const char* name;
  int width;
  bool is_signed = false;
};

// Fields in declaration order; widths from the config. This is the whole ISA.
std::vector<FieldSpec> field_specs(Format f, const HwConfig& c) {
  const int U = c.log_uop_depth(), A = c.log_acc_depth(), I = c.log_inp_depth(),
            W = c.log_wgt_depth();
  std::vector<FieldSpec> s = {{Field::kOpcode, "opcode", 3},
                              {Field::kPopPrev, "pop_prev_dep", 1},
                              {Field::kPopNext, "pop_next_dep", 1},
                              {Field::kPushPrev, "push_prev_dep", 1},
                              {Field::kPushNext, "push_next_dep", 1}};
  auto loop_fields = [&] {
    s.insert(s.end(), {{Field::kReset, "reset_reg", 1},
                       {Field::kUopBgn, "uop_bgn", U},
                       {Field::kUopEnd, "uop_end", U + 1},
                       {Field::kIterOut, "iter_out", 14},
                       {Field::kIterIn, "iter_in", 14},
                       {Field::kDstFactorOut, "dst_factor_out", A},
                       {Field::kDstFactorIn, "dst_factor_in", A}});
  };
  switch (f) {
    case Format::kMem:
      s.insert(s.end(), {{Field::kMemoryType, "memory_type", 3},
                         {Field::kSramBase, "sram_base", 16},
                         {Field::kDramBase, "dram_base", 32},
                         {Field::kYSize, "y_size", 16},
                         {Field::kXSize, "x_size", 16},
                         {Field::kXStride, "x_stride", 16},
                         {Field::kYPad0, "y_pad_0", 4},
                         {Field::kYPad1, "y_pad_1", 4},
                         {Field::kXPad0, "x_pad_0", 4},
                         {Field::kXPad1, "x_pad_1", 4}});
      break;
    case Format::kGemm:
      loop_fields();
      s.insert(s.end(), {{Field::kSrcFactorOut, "src_factor_out", I},
                         {Field::kSrcFactorIn, "src_factor_in", I},
                         {Field::kWgtFactorOut, "wgt_factor_out", W},
                         {Field::kWgtFactorIn, "wgt_factor_in", W}});
      break;
    case Format::kAlu:
      loop_fields();
      s.insert(s.end(), {{Field::kSrcFactorOut, "src_factor_out", A},
                         {Field::kSrcFactorIn, "src_factor_in", A},
                         {Field::kAluOpcode, "alu_opcode", 3},
                         {Field::kUseImm, "use_imm", 1},
                         {Field::kImm, "imm", 16, true}});
      break;
    case Format::kFinish:
      break;
  }
  return s;
}

// The C bit-field rule of hw_spec.h's uint64_t structs: a field that would straddle bit 64
// starts at bit 64.
std::vector<FieldDesc> place(Format f, const HwConfig& c, const std::string& source) {
  std::vector<FieldDesc> out;
  int pos = 0;
  for (const FieldSpec& s : field_specs(f, c)) {
    if (s.width > 64 || s.width < 0) {
      throw Error(fmt::format("{}: {} field {} would be {} bits wide", source, format_name(f),
                              s.name, s.width));
    }
    if (pos < 64 && pos + s.width > 64) pos = 64;
    if (pos + s.width > 128) {
      throw Error(fmt::format(
          "{}: config {} cannot be encoded: {} instruction field {} ({} bits) ends at bit {}, past "
          "the 128-bit instruction (reduce a buffer size)",
          source, c.name(), format_name(f), s.name, s.width, pos + s.width));
    }
    out.push_back({s.field, s.name, pos, s.width, s.is_signed});
    pos += s.width;
  }
  return out;
}

void deposit(RawInsn& r, int lsb, int width, uint64_t v) {
  if (width == 0) return;
  if (lsb >= 64) {
    r.hi |= v << (lsb - 64);
  } else {
    r.lo |= v << lsb;
  }
}

}  // namespace

Format format_of(Opcode op) {
  switch (op) {
    case Opcode::kLoad:
    case Opcode::kStore: return Format::kMem;
    case Opcode::kGemm: return Format::kGemm;
    case Opcode::kAlu: return Format::kAlu;
    case Opcode::kFinish: return Format::kFinish;
  }
  throw InternalError("format_of: bad opcode");
}

const char* format_name(Format f) {
  static const char* names[] = {"LOAD/STORE", "GEMM", "ALU", "FINISH"};
  return names[size_t(f)];
}

const char* opcode_name(Opcode op) {
  static const char* names[] = {"LOAD", "STORE", "GEMM", "FINISH", "ALU"};
  return uint8_t(op) < kNumOpcodes ? names[uint8_t(op)] : "OPCODE?";
}

const char* mem_id_name(uint8_t id) {
  static const char* names[] = {"UOP", "WGT", "INP", "ACC", "OUT", "ACC_8BIT"};
  return id < kNumMemIds ? names[id] : "MEM?";
}

const char* alu_op_name(uint8_t op) {
  static const char* names[] = {"MIN", "MAX", "ADD", "SHR", "MUL"};
  return op < kNumAluOps ? names[op] : "ALU?";
}

const char* module_name(Module m) {
  static const char* names[] = {"load", "compute", "store"};
  return names[size_t(m)];
}

IsaLayout::IsaLayout(const HwConfig& config) {
  for (int f = 0; f < kNumFormats; ++f) {
    formats_[f] = place(Format(f), config, "config");
    max_[f].fill(~0ull);
    for (const FieldDesc& d : formats_[f]) {
      const uint64_t mask = d.width >= 64 ? ~0ull : (1ull << d.width) - 1;
      pos_[f][size_t(d.field)] = {mask, uint8_t(d.lsb >> 6), uint8_t(d.lsb & 63)};
      pack_[f].push_back({mask, uint8_t(d.field), uint8_t(d.lsb >> 6), uint8_t(d.lsb & 63)});
      max_[f][size_t(d.field)] = d.is_signed ? ~0ull : mask;
    }
  }
  const int A = config.log_acc_depth(), I = config.log_inp_depth(), W = config.log_wgt_depth();
  uop_ = {0, A, A, I, A + I, W};
}

void IsaLayout::check_encodable(const HwConfig& c, const std::string& source) {
  for (int f = 0; f < kNumFormats; ++f) place(Format(f), c, source);
  const int A = c.log_acc_depth(), I = c.log_inp_depth(), W = c.log_wgt_depth();
  if (A + I + W > 32) {
    throw Error(fmt::format(
        "{}: config {} cannot be encoded: a GEMM micro-op needs {} + {} + {} = {} bits "
        "(acc, inp, wgt index) but has 32 (reduce a buffer size)",
        source, c.name(), A, I, W, A + I + W));
  }
}

const FieldDesc& IsaLayout::field(Format f, Field id) const {
  for (const FieldDesc& d : formats_[size_t(f)]) {
    if (d.field == id) return d;
  }
  throw InternalError(fmt::format("field {} not in format {}", int(id), format_name(f)));
}

uint64_t IsaLayout::get(const Insn& i, Field f) {
  switch (f) {
    case Field::kOpcode: return uint8_t(i.opcode);
    case Field::kPopPrev: return i.pop_prev;
    case Field::kPopNext: return i.pop_next;
    case Field::kPushPrev: return i.push_prev;
    case Field::kPushNext: return i.push_next;
    case Field::kMemoryType: return i.memory_type;
    case Field::kSramBase: return i.sram_base;
    case Field::kDramBase: return i.dram_base;
    case Field::kYSize: return i.y_size;
    case Field::kXSize: return i.x_size;
    case Field::kXStride: return i.x_stride;
    case Field::kYPad0: return i.y_pad_0;
    case Field::kYPad1: return i.y_pad_1;
    case Field::kXPad0: return i.x_pad_0;
    case Field::kXPad1: return i.x_pad_1;
    case Field::kReset: return i.reset;
    case Field::kUopBgn: return i.uop_bgn;
    case Field::kUopEnd: return i.uop_end;
    case Field::kIterOut: return i.iter_out;
    case Field::kIterIn: return i.iter_in;
    case Field::kDstFactorOut: return i.dst_factor_out;
    case Field::kDstFactorIn: return i.dst_factor_in;
    case Field::kSrcFactorOut: return i.src_factor_out;
    case Field::kSrcFactorIn: return i.src_factor_in;
    case Field::kWgtFactorOut: return i.wgt_factor_out;
    case Field::kWgtFactorIn: return i.wgt_factor_in;
    case Field::kAluOpcode: return i.alu_opcode;
    case Field::kUseImm: return i.use_imm;
    case Field::kImm: return uint64_t(int64_t(i.imm));
    case Field::kCount: break;
  }
  throw InternalError("IsaLayout::get: bad field");
}

void IsaLayout::set(Insn& i, Field f, uint64_t v) {
  switch (f) {
    case Field::kOpcode: i.opcode = Opcode(v); return;
    case Field::kPopPrev: i.pop_prev = v != 0; return;
    case Field::kPopNext: i.pop_next = v != 0; return;
    case Field::kPushPrev: i.push_prev = v != 0; return;
    case Field::kPushNext: i.push_next = v != 0; return;
    case Field::kMemoryType: i.memory_type = uint8_t(v); return;
    case Field::kSramBase: i.sram_base = uint32_t(v); return;
    case Field::kDramBase: i.dram_base = uint32_t(v); return;
    case Field::kYSize: i.y_size = uint32_t(v); return;
    case Field::kXSize: i.x_size = uint32_t(v); return;
    case Field::kXStride: i.x_stride = uint32_t(v); return;
    case Field::kYPad0: i.y_pad_0 = uint8_t(v); return;
    case Field::kYPad1: i.y_pad_1 = uint8_t(v); return;
    case Field::kXPad0: i.x_pad_0 = uint8_t(v); return;
    case Field::kXPad1: i.x_pad_1 = uint8_t(v); return;
    case Field::kReset: i.reset = v != 0; return;
    case Field::kUopBgn: i.uop_bgn = uint32_t(v); return;
    case Field::kUopEnd: i.uop_end = uint32_t(v); return;
    case Field::kIterOut: i.iter_out = uint32_t(v); return;
    case Field::kIterIn: i.iter_in = uint32_t(v); return;
    case Field::kDstFactorOut: i.dst_factor_out = uint32_t(v); return;
    case Field::kDstFactorIn: i.dst_factor_in = uint32_t(v); return;
    case Field::kSrcFactorOut: i.src_factor_out = uint32_t(v); return;
    case Field::kSrcFactorIn: i.src_factor_in = uint32_t(v); return;
    case Field::kWgtFactorOut: i.wgt_factor_out = uint32_t(v); return;
    case Field::kWgtFactorIn: i.wgt_factor_in = uint32_t(v); return;
    case Field::kAluOpcode: i.alu_opcode = uint8_t(v); return;
    case Field::kUseImm: i.use_imm = v != 0; return;
    case Field::kImm: i.imm = int32_t(int16_t(uint16_t(v))); return;
    case Field::kCount: break;
  }
  throw InternalError("IsaLayout::set: bad field");
}

RawInsn IsaLayout::encode(const Insn& insn) const {
  if (uint8_t(insn.opcode) >= kNumOpcodes) {
    throw Error(fmt::format("cannot encode undefined opcode {}", int(insn.opcode)));
  }
  // Every field value gathered straight-line, then the format's fields packed from a compact
  // table (lowering encodes every instruction it emits, so this is on the compiler's and the
  // tuner's path). A value outside its field or a signed immediate out of range takes the table
  // walk below, which says what is wrong.
  const uint64_t v[size_t(Field::kCount)] = {
      uint8_t(insn.opcode), insn.pop_prev, insn.pop_next, insn.push_prev, insn.push_next,
      insn.memory_type, insn.sram_base, insn.dram_base, insn.y_size, insn.x_size, insn.x_stride,
      insn.y_pad_0, insn.y_pad_1, insn.x_pad_0, insn.x_pad_1,
      insn.reset, insn.uop_bgn, insn.uop_end, insn.iter_out, insn.iter_in,
      insn.dst_factor_out, insn.dst_factor_in, insn.src_factor_out, insn.src_factor_in,
      insn.wgt_factor_out, insn.wgt_factor_in,
      insn.alu_opcode, insn.use_imm, uint64_t(uint16_t(int16_t(insn.imm)))};
  uint64_t w[2] = {0, 0}, spill = 0;
  for (const PackField& f : pack_[size_t(format_of(insn.opcode))]) {
    const uint64_t x = v[f.field];
    spill |= x & ~f.mask;
    w[f.word] |= x << f.shift;
  }
  if (spill == 0 && insn.imm >= -32768 && insn.imm <= 32767) return RawInsn{w[0], w[1]};
  return encode_fields(insn);
}

bool IsaLayout::fits(const Insn& insn) const {
  if (uint8_t(insn.opcode) >= kNumOpcodes) return false;
  const Format format = format_of(insn.opcode);
  const auto& mx = max_[size_t(format)];
  auto ok = [&](Field f, uint64_t v) { return v <= mx[size_t(f)]; };
  bool good = ok(Field::kPopPrev, insn.pop_prev) & ok(Field::kPopNext, insn.pop_next) &
              ok(Field::kPushPrev, insn.push_prev) & ok(Field::kPushNext, insn.push_next);
  switch (format) {
    case Format::kMem:
      good &= ok(Field::kMemoryType, insn.memory_type) & ok(Field::kSramBase, insn.sram_base) &
              ok(Field::kDramBase, insn.dram_base) & ok(Field::kYSize, insn.y_size) &
              ok(Field::kXSize, insn.x_size) & ok(Field::kXStride, insn.x_stride) &
              ok(Field::kYPad0, insn.y_pad_0) & ok(Field::kYPad1, insn.y_pad_1) &
              ok(Field::kXPad0, insn.x_pad_0) & ok(Field::kXPad1, insn.x_pad_1);
      break;
    case Format::kGemm:
    case Format::kAlu:
      good &= ok(Field::kReset, insn.reset) & ok(Field::kUopBgn, insn.uop_bgn) & ok(Field::kUopEnd, insn.uop_end) &
              ok(Field::kIterOut, insn.iter_out) & ok(Field::kIterIn, insn.iter_in) &
              ok(Field::kDstFactorOut, insn.dst_factor_out) & ok(Field::kDstFactorIn, insn.dst_factor_in) &
              ok(Field::kSrcFactorOut, insn.src_factor_out) & ok(Field::kSrcFactorIn, insn.src_factor_in) &
              ok(Field::kWgtFactorOut, insn.wgt_factor_out) & ok(Field::kWgtFactorIn, insn.wgt_factor_in) &
              ok(Field::kAluOpcode, insn.alu_opcode) & ok(Field::kUseImm, insn.use_imm);
      if (format == Format::kAlu) good &= insn.imm >= -32768 && insn.imm <= 32767;
      break;
    case Format::kFinish:
      break;
  }
  return good;
}

RawInsn IsaLayout::encode_fields(const Insn& insn) const {
  RawInsn r;
  for (const FieldDesc& d : fields(format_of(insn.opcode))) {
    uint64_t v = get(insn, d.field);
    if (d.is_signed) {
      const int64_t sv = int64_t(v), lo = -(int64_t(1) << (d.width - 1)),
                    hi = (int64_t(1) << (d.width - 1)) - 1;
      if (sv < lo || sv > hi) {
        throw Error(fmt::format("{}: field {} = {} does not fit {} signed bits [{}, {}]",
                                opcode_name(insn.opcode), d.name, sv, d.width, lo, hi));
      }
      v &= (d.width == 64 ? ~0ull : (1ull << d.width) - 1);
    } else if (d.width < 64 && (v >> d.width) != 0) {
      throw Error(fmt::format("{}: field {} = {} does not fit {} bits (max {})",
                              opcode_name(insn.opcode), d.name, v, d.width,
                              (1ull << d.width) - 1));
    }
    deposit(r, d.lsb, d.width, v);
  }
  return r;
}

Insn IsaLayout::decode(const RawInsn& raw, size_t index) const {
  const uint64_t op = raw.lo & 7;
  if (op >= kNumOpcodes) {
    throw Error(fmt::format("instruction {}: undefined opcode {} (raw {:016x}{:016x}); valid are "
                            "LOAD 0, STORE 1, GEMM 2, FINISH 3, ALU 4",
                            index, op, raw.hi, raw.lo));
  }
  const Format format = format_of(Opcode(op));
  const auto& pos = pos_[size_t(format)];
  const uint64_t words[2] = {raw.lo, raw.hi};  // fields never straddle bit 64
  auto get = [&](Field f) -> uint32_t {
    const FieldPos& p = pos[size_t(f)];
    return uint32_t((words[p.word] >> p.shift) & p.mask);
  };
  Insn insn;
  insn.opcode = Opcode(op);
  insn.pop_prev = get(Field::kPopPrev) != 0;
  insn.pop_next = get(Field::kPopNext) != 0;
  insn.push_prev = get(Field::kPushPrev) != 0;
  insn.push_next = get(Field::kPushNext) != 0;
  switch (format) {
    case Format::kMem:
      insn.memory_type = uint8_t(get(Field::kMemoryType));
      insn.sram_base = get(Field::kSramBase);
      insn.dram_base = get(Field::kDramBase);
      insn.y_size = get(Field::kYSize);
      insn.x_size = get(Field::kXSize);
      insn.x_stride = get(Field::kXStride);
      insn.y_pad_0 = uint8_t(get(Field::kYPad0));
      insn.y_pad_1 = uint8_t(get(Field::kYPad1));
      insn.x_pad_0 = uint8_t(get(Field::kXPad0));
      insn.x_pad_1 = uint8_t(get(Field::kXPad1));
      break;
    case Format::kGemm:
    case Format::kAlu:
      insn.reset = get(Field::kReset) != 0;
      insn.uop_bgn = get(Field::kUopBgn);
      insn.uop_end = get(Field::kUopEnd);
      insn.iter_out = get(Field::kIterOut);
      insn.iter_in = get(Field::kIterIn);
      insn.dst_factor_out = get(Field::kDstFactorOut);
      insn.dst_factor_in = get(Field::kDstFactorIn);
      insn.src_factor_out = get(Field::kSrcFactorOut);
      insn.src_factor_in = get(Field::kSrcFactorIn);
      insn.wgt_factor_out = get(Field::kWgtFactorOut);  // 0 for ALU (mask 0)
      insn.wgt_factor_in = get(Field::kWgtFactorIn);
      insn.alu_opcode = uint8_t(get(Field::kAluOpcode));  // 0 for GEMM
      insn.use_imm = get(Field::kUseImm) != 0;
      insn.imm = int32_t(int16_t(uint16_t(get(Field::kImm))));
      break;
    case Format::kFinish:
      break;
  }
  return insn;
}

namespace {
uint64_t check_uop_field(uint32_t v, int width, const char* name) {
  if (width < 32 && (uint64_t(v) >> width) != 0) {
    throw Error(fmt::format("micro-op field {} = {} does not fit {} bits", name, v, width));
  }
  return v;
}
uint32_t uop_bits(uint32_t raw, int lsb, int width) {
  if (width == 0) return 0;
  return uint32_t((uint64_t(raw) >> lsb) & ((1ull << width) - 1));
}
}  // namespace

uint32_t IsaLayout::encode_gemm_uop(const Uop& u) const {
  return uint32_t(check_uop_field(u.dst, uop_.dst_width, "acc_idx") << uop_.dst_lsb |
                  check_uop_field(u.src, uop_.src_width, "inp_idx") << uop_.src_lsb |
                  check_uop_field(u.wgt, uop_.wgt_width, "wgt_idx") << uop_.wgt_lsb);
}

uint32_t IsaLayout::encode_alu_uop(const Uop& u) const {
  return uint32_t(check_uop_field(u.dst, uop_.dst_width, "dst_idx") << uop_.dst_lsb |
                  check_uop_field(u.src, uop_.src_width, "src_idx") << uop_.src_lsb);
}

Uop IsaLayout::decode_gemm_uop(uint32_t raw) const {
  return {uop_bits(raw, uop_.dst_lsb, uop_.dst_width), uop_bits(raw, uop_.src_lsb, uop_.src_width),
          uop_bits(raw, uop_.wgt_lsb, uop_.wgt_width)};
}

Uop IsaLayout::decode_alu_uop(uint32_t raw) const {
  return {uop_bits(raw, uop_.dst_lsb, uop_.dst_width), uop_bits(raw, uop_.src_lsb, uop_.src_width),
          0};
}

}  // namespace tauvta::hw
