// The instruction fields of isa_fields.def as compile-time data: the Field enum and the
// descriptor table kFields (widths per format, assembly text, meaning), with the static checks
// that keep a row consistent with itself and with its neighbours. IsaLayout turns the width rules
// into bit positions for a HwConfig; the text forms drive the disassembler, the assembler and
// the docs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hw/insn.h"

namespace tauvta::hw {

enum class Format : uint8_t { kMem, kGemm, kAlu, kFinish };
inline constexpr int kNumFormats = 4;

enum class Field : uint8_t {
#define TAUVTA_ISA_FIELD(Id, ...) k##Id,
#include "hw/isa_fields.def"
  kCount
};
inline constexpr int kNumFields = int(Field::kCount);

// A field's width in one format: absent, a constant, or a buffer's log2 depth plus a constant.
struct WidthRule {
  char var = 0;  // 0: absent; '#': constant `plus`; 'U', 'A', 'I', 'W': that log2 depth + `plus`
  int plus = 0;
  bool is_signed = false;
  constexpr bool present() const { return var != 0; }
  constexpr bool constant() const { return var == '#'; }
  // The width under log2 depths U (uop), A (acc), I (inp), W (wgt).
  constexpr int eval(int u, int a, int i, int w) const {
    switch (var) {
      case 'U': return u + plus;
      case 'A': return a + plus;
      case 'I': return i + plus;
      case 'W': return w + plus;
      default: return plus;
    }
  }
};

// How a field reads in assembly text; isa_fields.def lists the kinds.
enum class TextKind : uint8_t {
  kMnemonic, kDep, kNamed, kValue, kPairFirst, kPairSecond, kOperand, kOperandValue
};

struct TextForm {
  TextKind kind = TextKind::kValue;
  const char* key = "";          // key=, the deps group, the named field's numeric key
  char sep = 0;                  // kPairFirst: between the two values
  const char* placeholder = "";  // the value's name in a synopsis (N, BGN, MEM)
  const char* word = "";         // kDep: the flag; kOperand: the bare word; kOperandValue: unused key
  const char* const* names = nullptr;  // kNamed, kMnemonic: the value names, indexed by value
  int num_names = 0;
  const char* noun = "";   // kNamed: "memory type", for "unknown memory type"
  const char* needs = "";  // kNamed: "a memory type", for "LOAD needs a memory type"
};

struct FieldInfo {
  Field id;
  const char* name;  // as in docs/vta_isa.md ("sram_base", "uop_bgn", ...)
  std::array<WidthRule, kNumFormats> width;  // by Format
  TextForm text;
  const char* meaning;

  constexpr bool in(Format f) const { return width[size_t(f)].present(); }
  constexpr bool is_signed() const {
    for (const WidthRule& w : width) {
      if (w.is_signed) return true;
    }
    return false;
  }
};

// The vocabulary isa_fields.def is written in.
namespace isa_def {
inline constexpr WidthRule no{};
constexpr WidthRule bits(int n) { return {'#', n, false}; }
constexpr WidthRule sbits(int n) { return {'#', n, true}; }
inline constexpr WidthRule U{'U', 0, false}, A{'A', 0, false}, I{'I', 0, false}, W{'W', 0, false};
constexpr WidthRule operator+(WidthRule r, int k) { return {r.var, r.plus + k, r.is_signed}; }

template <size_t N>
constexpr TextForm mnemonic(const char* const (&names)[N]) {
  return {TextKind::kMnemonic, "", 0, "", "", names, int(N)};
}
constexpr TextForm dep(const char* group, const char* flag) {
  return {TextKind::kDep, group, 0, "D", flag};
}
template <size_t N>
constexpr TextForm named(const char* key, const char* placeholder, const char* const (&names)[N],
                         const char* noun, const char* needs) {
  return {TextKind::kNamed, key, 0, placeholder, "", names, int(N), noun, needs};
}
constexpr TextForm value(const char* key, const char* placeholder) {
  return {TextKind::kValue, key, 0, placeholder};
}
constexpr TextForm pair(const char* key, char sep, const char* placeholder) {
  return {TextKind::kPairFirst, key, sep, placeholder};
}
constexpr TextForm second(const char* placeholder) {
  return {TextKind::kPairSecond, "", 0, placeholder};
}
constexpr TextForm operand(const char* word, const char* placeholder) {
  return {TextKind::kOperand, "", 0, placeholder, word};
}
constexpr TextForm operand_value(const char* key, const char* unused_key) {
  return {TextKind::kOperandValue, key, 0, "N", unused_key};
}

inline constexpr FieldInfo kTable[] = {
#define TAUVTA_ISA_FIELD(Id, member, Type, name, mem, gemm, alu, finish, text, meaning) \
  {Field::k##Id, name, {mem, gemm, alu, finish}, text, meaning},
#include "hw/isa_fields.def"
};
static_assert(std::size(kTable) == size_t(Field::kCount), "one row per Field");
}  // namespace isa_def

// Indexed by Field.
inline constexpr const FieldInfo (&kFields)[kNumFields] = isa_def::kTable;

constexpr const FieldInfo& field_info(Field f) { return kFields[size_t(f)]; }
constexpr bool has_field(Format format, Field f) { return field_info(f).in(format); }
// The width of a field whose width is the same constant in every format holding it (signed and
// named fields): what set() sign-extends from without a layout.
constexpr int constant_width(Field f) {
  for (const WidthRule& w : field_info(f).width) {
    if (w.present()) return w.plus;
  }
  return 0;
}

// The largest value a field of one constant width holds (x_size, iter_out, ...): the limit the
// compiler and the runtime split work against. A field whose width follows the configuration (an
// index) has no such constant; asking for one fails to compile.
consteval uint32_t field_max(Field f) {
  int width = -1;
  for (const WidthRule& w : field_info(f).width) {
    if (!w.present()) continue;
    if (!w.constant() || w.is_signed || (width >= 0 && w.plus != width) || w.plus >= 32) {
      throw "field_max: the field's width is not one unsigned constant";
    }
    width = w.plus;
  }
  return uint32_t((uint64_t(1) << width) - 1);
}

// What the code built on the table relies on; a row that breaks it fails to compile here.
namespace isa_def {
constexpr bool same(const char* a, const char* b) { return std::string_view(a) == b; }

constexpr bool rows_consistent() {
  const char* dep_group = nullptr;  // every dependency flag is in one group (deps=)
  for (int k = 0; k < kNumFields; ++k) {
    const FieldInfo& f = kTable[k];
    if (f.id != Field(k)) return false;  // rows in enum order (the table is indexed by Field)
    bool anywhere = false, constant_everywhere = true;
    int constant = -1;
    for (int fmt = 0; fmt < kNumFormats; ++fmt) {
      const WidthRule& w = f.width[fmt];
      anywhere |= w.present();
      if (!w.present()) continue;
      if (!w.constant() || (constant >= 0 && w.plus != constant)) constant_everywhere = false;
      constant = w.plus;
      if (w.is_signed != f.is_signed()) return false;
      // A pair's two values, and the operand and its value, are in the same formats.
      const TextKind kind = f.text.kind;
      if (kind == TextKind::kPairFirst || kind == TextKind::kOperand) {
        if (k + 1 >= kNumFields || !kTable[k + 1].in(Format(fmt))) return false;
      }
      if (kind == TextKind::kPairSecond || kind == TextKind::kOperandValue) {
        if (k == 0 || !kTable[k - 1].in(Format(fmt))) return false;
      }
    }
    if (!anywhere) return false;  // every field is in some format
    if ((f.is_signed() || f.text.kind == TextKind::kNamed) && !constant_everywhere) return false;
    // Second halves follow their first halves; the operand's value follows the operand.
    const TextKind prev = k > 0 ? kTable[k - 1].text.kind : TextKind::kMnemonic;
    if ((f.text.kind == TextKind::kPairSecond) != (prev == TextKind::kPairFirst)) return false;
    if ((f.text.kind == TextKind::kOperandValue) != (prev == TextKind::kOperand)) return false;
    if (f.text.kind == TextKind::kDep) {
      if (dep_group != nullptr && !same(f.text.key, dep_group)) return false;
      dep_group = f.text.key;
    }
  }
  return true;
}

// Per format: at most one named field and one operand (the assembler's bare words), every key
// distinct, a deps= group (every line ends with one), and the opcode first at [2:0] (decode
// reads it before it knows the format).
constexpr bool formats_consistent() {
  for (int fmt = 0; fmt < kNumFormats; ++fmt) {
    int named_count = 0, operands = 0, deps = 0;
    for (const FieldInfo& f : kTable) {
      if (!f.in(Format(fmt))) continue;
      deps += f.text.kind == TextKind::kDep;
      named_count += f.text.kind == TextKind::kNamed;
      operands += f.text.kind == TextKind::kOperand;
      for (const FieldInfo& g : kTable) {
        if (&g != &f && g.in(Format(fmt)) && f.text.kind != TextKind::kDep &&
            g.text.kind != TextKind::kDep && *f.text.key != 0 && same(f.text.key, g.text.key)) {
          return false;
        }
      }
    }
    if (named_count > 1 || operands > 1 || deps == 0) return false;
    const WidthRule op = kTable[0].width[fmt];
    if (!op.constant() || op.plus != 3 || kTable[0].text.kind != TextKind::kMnemonic) return false;
  }
  return true;
}
}  // namespace isa_def

static_assert(isa_def::rows_consistent(), "a row of isa_fields.def breaks a rule stated there");
static_assert(isa_def::formats_consistent(), "a format of isa_fields.def has clashing text");

// The micro-op rows of isa_fields.def: the two kinds of 32-bit micro-op and their fields.
enum class UopFormat : uint8_t { kGemm, kAlu };
inline constexpr int kNumUopFormats = 2;
inline constexpr const char* kUopMnemonics[kNumUopFormats] = {"GEMM_UOP", "ALU_UOP"};

enum class UopField : uint8_t {
#define TAUVTA_UOP_FIELD(Id, ...) k##Id,
#include "hw/isa_fields.def"
  kCount
};
inline constexpr int kNumUopFields = int(UopField::kCount);

struct UopFieldInfo {
  UopField id;
  uint32_t Uop::*member;
  WidthRule width;  // the same in both kinds (an ALU source sits in the input index's place)
  std::array<const char*, kNumUopFormats> name;  // as in docs/vta_isa.md, by UopFormat; nullptr: absent
  std::array<const char*, kNumUopFormats> key;   // the assembly key (acc=, dst=, ...)
  const char* meaning;

  constexpr bool in(UopFormat f) const { return name[size_t(f)] != nullptr; }
};

namespace isa_def {
inline constexpr UopFieldInfo kUopTable[] = {
#define TAUVTA_UOP_FIELD(Id, member, width, gemm_name, gemm_key, alu_name, alu_key, meaning) \
  {UopField::k##Id, &Uop::member, width, {gemm_name, alu_name}, {gemm_key, alu_key}, meaning},
#include "hw/isa_fields.def"
};
static_assert(std::size(kUopTable) == size_t(UopField::kCount), "one row per UopField");

// Rows in enum order; a buffer index for a width (the placement adds them up); a name exactly when
// a key; a GEMM micro-op holds every field (it is the wider kind); keys distinct within a kind.
constexpr bool uop_rows_consistent() {
  for (int k = 0; k < kNumUopFields; ++k) {
    const UopFieldInfo& f = kUopTable[k];
    if (f.id != UopField(k) || !f.width.present() || f.width.constant() || f.width.is_signed) {
      return false;
    }
    if (!f.in(UopFormat::kGemm)) return false;
    for (int u = 0; u < kNumUopFormats; ++u) {
      if ((f.name[u] == nullptr) != (f.key[u] == nullptr)) return false;
      for (int j = 0; j < k && f.key[u] != nullptr; ++j) {
        if (kUopTable[j].key[u] != nullptr && same(kUopTable[j].key[u], f.key[u])) return false;
      }
    }
  }
  return true;
}
}  // namespace isa_def

inline constexpr const UopFieldInfo (&kUopFields)[kNumUopFields] = isa_def::kUopTable;
static_assert(isa_def::uop_rows_consistent(), "a micro-op row of isa_fields.def breaks a rule");

}  // namespace tauvta::hw
