#include "hw/isa_layout.h"

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::hw {
namespace {

// Micro-op fields from bit 0 up, in row order (VTA packs them into one uint32_t the same way).
UopLayout place_uop(const HwConfig& c) {
  UopLayout u;
  for (const UopFieldInfo& f : kUopFields) {
    const int width = f.width.eval(c.log_uop_depth(), c.log_acc_depth(), c.log_inp_depth(),
                                   c.log_wgt_depth());
    u.at[size_t(f.id)] = {u.total_width, width};
    u.total_width += width;
  }
  return u;
}

// The C bit-field rule of hw_spec.h's uint64_t structs: a format's fields (the rows of
// isa_fields.def it holds, in order) are placed from bit 0 up, and a field that would straddle
// bit 64 starts at bit 64.
std::vector<FieldDesc> place(Format f, const HwConfig& c, const std::string& source) {
  const int U = c.log_uop_depth(), A = c.log_acc_depth(), I = c.log_inp_depth(),
            W = c.log_wgt_depth();
  std::vector<FieldDesc> out;
  int pos = 0;
  for (const FieldInfo& s : kFields) {
    if (!s.in(f)) continue;
    const int width = s.width[size_t(f)].eval(U, A, I, W);
    if (width > 64 || width < 0) {
      throw Error(fmt::format("{}: {} field {} would be {} bits wide", source, format_name(f),
                              s.name, width));
    }
    if (pos < 64 && pos + width > 64) pos = 64;
    if (pos + width > 128) {
      throw Error(fmt::format(
          "{}: config {} cannot be encoded: {} instruction field {} ({} bits) ends at bit {}, past "
          "the 128-bit instruction (reduce a buffer size)",
          source, c.name(), format_name(f), s.name, width, pos + width));
    }
    out.push_back({s.id, s.name, pos, width, s.is_signed()});
    pos += width;
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

constexpr uint64_t low_mask(int width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

// Conversions between an Insn member and its field's bits, chosen by the member's type and the
// field's row, so that get, set, encode, fits and decode below are each one line per row of
// isa_fields.def, expanded at compile time (decode and encode stay straight-line code).

// As get() returns it: an unsigned bit pattern, signed values sign-extended to 64 bits.
template <class T>
constexpr uint64_t bits_of(T v) {
  if constexpr (std::is_enum_v<T>) {
    return uint64_t(std::underlying_type_t<T>(v));
  } else if constexpr (std::is_signed_v<T>) {
    return uint64_t(int64_t(v));
  } else {
    return uint64_t(v);
  }
}

// As set() and decode store it: signed fields sign-extend from their (constant) width.
template <Field F, class T>
constexpr T member_of(uint64_t v) {
  if constexpr (field_info(F).is_signed()) {
    constexpr int w = constant_width(F);
    return T(int64_t(v << (64 - w)) >> (64 - w));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else {
    return T(v);
  }
}

// The bits encode packs: signed values cut to their field's width.
template <Field F, class T>
constexpr uint64_t encode_bits(T v) {
  if constexpr (field_info(F).is_signed()) {
    return bits_of(v) & low_mask(constant_width(F));
  } else {
    return bits_of(v);
  }
}

// Whether a signed value is within its field's range (unsigned ones are checked by mask).
template <Field F, class T>
constexpr bool in_signed_range(T v) {
  if constexpr (field_info(F).is_signed()) {
    constexpr int64_t half = int64_t(1) << (constant_width(F) - 1);
    return int64_t(v) >= -half && int64_t(v) < half;
  } else {
    return true;
  }
}

// Every Insn member holds every value its field can have: a variable width (a log2 depth, far
// below 32 for any config HwConfig accepts) needs 32 bits.
template <class T>
constexpr int member_bits() {
  if constexpr (std::is_same_v<T, bool>) {
    return 1;
  } else {
    return int(8 * sizeof(T)) - (std::is_signed_v<T> ? 1 : 0);
  }
}
constexpr bool member_holds(Field f, int bits) {
  for (const WidthRule& w : field_info(f).width) {
    if (w.present() && (w.constant() ? w.plus - (w.is_signed ? 1 : 0) > bits : bits < 32)) {
      return false;
    }
  }
  return true;
}
#define TAUVTA_ISA_FIELD(Id, member, Type, ...)                                    \
  static_assert(member_holds(Field::k##Id, member_bits<decltype(Insn::member)>()), \
                "Insn::" #member " is too narrow for its field");
#include "hw/isa_fields.def"

// Decode and fits handle the fields every format has first, then switch on the format for the
// rest: work done before the switch overlaps a mispredicted branch to it, which measured faster
// than one fully specialised path per format. kShared names that first group.
constexpr int kShared = -1;
constexpr bool in_group(int group, Field f) {
  bool everywhere = true;
  for (int k = 0; k < kNumFormats; ++k) everywhere &= has_field(Format(k), f);
  return group == kShared ? everywhere : !everywhere && has_field(Format(group), f);
}

// The fields of a group from the instruction's two words, one statement per field (`pos` is
// IsaLayout's position table for the instruction's format).
template <int Group, class Pos>
void decode_group(Insn& insn, const uint64_t (&words)[2], const Pos& pos) {
#define TAUVTA_ISA_FIELD(Id, member, ...)                                                     \
  if constexpr (in_group(Group, Field::k##Id)) {                                            \
    const auto& p = pos[size_t(Field::k##Id)];                                              \
    insn.member =                                                                           \
        member_of<Field::k##Id, decltype(insn.member)>((words[p.word] >> p.shift) & p.mask); \
  }
#include "hw/isa_fields.def"
}

// Whether the fields of a group hold their values: unsigned ones up to `max` (the format's
// largest value per field), signed ones by range. '&' rather than '&&' keeps it branch-free.
template <int Group, class Max>
bool group_fits(const Insn& insn, const Max& max) {
  bool good = true;
#define TAUVTA_ISA_FIELD(Id, member, ...)                                 \
  if constexpr (!in_group(Group, Field::k##Id)) {                         \
  } else if constexpr (field_info(Field::k##Id).is_signed()) {            \
    good &= in_signed_range<Field::k##Id>(insn.member);                   \
  } else {                                                                \
    good &= bits_of(insn.member) <= max[size_t(Field::k##Id)];            \
  }
#include "hw/isa_fields.def"
  return good;
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
  return uint8_t(op) < kNumOpcodes ? kOpcodeNames[uint8_t(op)] : "OPCODE?";
}

const char* mem_id_name(uint8_t id) { return id < kNumMemIds ? kMemIdNames[id] : "MEM?"; }

const char* alu_op_name(uint8_t op) { return op < kNumAluOps ? kAluOpNames[op] : "ALU?"; }

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
  uop_ = place_uop(config);
  for (int k = 0; k < kNumUopFormats; ++k) {
    for (const UopFieldInfo& d : kUopFields) {
      const UopBits& b = uop_.at[size_t(d.id)];
      if (!d.in(UopFormat(k)) || b.width == 0) continue;
      uop_pos_[k][size_t(d.id)] = {uint32_t((uint64_t(1) << b.width) - 1), uint8_t(b.lsb)};
    }
  }
}

void IsaLayout::check_encodable(const HwConfig& c, const std::string& source) {
  for (int f = 0; f < kNumFormats; ++f) place(Format(f), c, source);
  const UopLayout u = place_uop(c);
  if (u.total_width > 32) {
    std::string sum, keys;
    for (const UopFieldInfo& f : kUopFields) {
      sum += fmt::format("{}{}", sum.empty() ? "" : " + ", u.at[size_t(f.id)].width);
      keys += fmt::format("{}{}", keys.empty() ? "" : ", ", f.key[size_t(UopFormat::kGemm)]);
    }
    throw Error(fmt::format(
        "{}: config {} cannot be encoded: a GEMM micro-op needs {} = {} bits ({} index) but has 32 "
        "(reduce a buffer size)",
        source, c.name(), sum, u.total_width, keys));
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
#define TAUVTA_ISA_FIELD(Id, member, ...) \
  case Field::k##Id: return bits_of(i.member);
#include "hw/isa_fields.def"
    case Field::kCount: break;
  }
  throw InternalError("IsaLayout::get: bad field");
}

void IsaLayout::set(Insn& i, Field f, uint64_t v) {
  switch (f) {
#define TAUVTA_ISA_FIELD(Id, member, ...)                            \
  case Field::k##Id:                                               \
    i.member = member_of<Field::k##Id, decltype(i.member)>(v); \
    return;
#include "hw/isa_fields.def"
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
  // tuner's path). A value outside its field or a signed value out of range (in any format: the
  // check is cheaper than asking) takes the table walk below, which says what is wrong.
  const uint64_t v[size_t(Field::kCount)] = {
#define TAUVTA_ISA_FIELD(Id, member, ...) encode_bits<Field::k##Id>(insn.member),
#include "hw/isa_fields.def"
  };
  bool in_range = true;
#define TAUVTA_ISA_FIELD(Id, member, ...) in_range &= in_signed_range<Field::k##Id>(insn.member);
#include "hw/isa_fields.def"
  uint64_t w[2] = {0, 0}, spill = 0;
  for (const PackField& f : pack_[size_t(format_of(insn.opcode))]) {
    const uint64_t x = v[f.field];
    spill |= x & ~f.mask;
    w[f.word] |= x << f.shift;
  }
  if (spill == 0 && in_range) return RawInsn{w[0], w[1]};
  return encode_fields(insn);
}

bool IsaLayout::fits(const Insn& insn) const {
  if (uint8_t(insn.opcode) >= kNumOpcodes) return false;
  const Format format = format_of(insn.opcode);
  const auto& mx = max_[size_t(format)];
  bool good = group_fits<kShared>(insn, mx);
  switch (format) {
    case Format::kMem: good &= group_fits<int(Format::kMem)>(insn, mx); break;
    case Format::kGemm: good &= group_fits<int(Format::kGemm)>(insn, mx); break;
    case Format::kAlu: good &= group_fits<int(Format::kAlu)>(insn, mx); break;
    case Format::kFinish: good &= group_fits<int(Format::kFinish)>(insn, mx); break;
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
  const uint64_t words[2] = {raw.lo, raw.hi};  // fields never straddle bit 64
  const Format format = format_of(Opcode(op));
  const auto& pos = pos_[size_t(format)];
  Insn insn;
  decode_group<kShared>(insn, words, pos);
  switch (format) {
    case Format::kMem: decode_group<int(Format::kMem)>(insn, words, pos); break;
    case Format::kGemm: decode_group<int(Format::kGemm)>(insn, words, pos); break;
    case Format::kAlu: decode_group<int(Format::kAlu)>(insn, words, pos); break;
    case Format::kFinish: decode_group<int(Format::kFinish)>(insn, words, pos); break;
  }
  return insn;
}

uint32_t IsaLayout::encode_uop(UopFormat f, const Uop& u) const {
  uint64_t raw = 0;
  for (const UopFieldInfo& d : kUopFields) {
    if (!d.in(f)) continue;
    const UopBits& b = uop_.at[size_t(d.id)];
    const uint32_t v = u.*d.member;
    if (b.width < 32 && (uint64_t(v) >> b.width) != 0) {
      throw Error(fmt::format("micro-op field {} = {} does not fit {} bits", d.name[size_t(f)], v,
                              b.width));
    }
    raw |= uint64_t(v) << b.lsb;
  }
  return uint32_t(raw);
}

Uop IsaLayout::decode_uop(UopFormat f, uint32_t raw) const {
  const auto& pos = uop_pos_[size_t(f)];
  Uop u;
#define TAUVTA_UOP_FIELD(Id, member, ...)                                      \
  u.member = (raw >> pos[size_t(UopField::k##Id)].shift) & pos[size_t(UopField::k##Id)].mask;
#include "hw/isa_fields.def"
  return u;
}

}  // namespace tauvta::hw
