// The instruction fields of isa_fields.def placed for a HwConfig by the C bit-field rule of VTA's
// hw_spec.h structs (docs/vta_isa.md section 2), and the micro-op fields. Encoder, decoder, disassembler,
// assembler, docs and the simulator all read this layout.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "hw/isa_fields.h"

namespace tauvta::hw {

struct FieldDesc {
  Field field;
  const char* name;  // as in docs/vta_isa.md ("sram_base", "uop_bgn", ...)
  int lsb = 0;       // bit position in the 128-bit instruction
  int width = 0;
  bool is_signed = false;
};

// Where each micro-op field (kUopFields) sits in the 32-bit word, by UopField.
struct UopBits {
  int lsb = 0, width = 0;
};
struct UopLayout {
  std::array<UopBits, kNumUopFields> at{};
  int total_width = 0;  // of a GEMM micro-op, which holds every field
#define TAUVTA_UOP_FIELD(Id, member, ...) \
  const UopBits& member() const { return at[size_t(UopField::k##Id)]; }
#include "hw/isa_fields.def"
};

Format format_of(Opcode op);
const char* format_name(Format f);

class IsaLayout {
 public:
  explicit IsaLayout(const HwConfig& config);

  // Throws tauvta::Error naming the format and field when `config` cannot be encoded.
  static void check_encodable(const HwConfig& config, const std::string& source);

  std::span<const FieldDesc> fields(Format f) const { return formats_[size_t(f)]; }
  const FieldDesc& field(Format f, Field id) const;
  const UopLayout& uop() const { return uop_; }

  // Throws tauvta::Error when a value does not fit its field.
  RawInsn encode(const Insn& insn) const;
  // Whether encode() would succeed (every field of the instruction's format holds its value),
  // without packing: the command builder checks every instruction it records.
  bool fits(const Insn& insn) const;
  // Throws tauvta::Error for an undefined opcode; `index` names the instruction in the message.
  Insn decode(const RawInsn& raw, size_t index = 0) const;

  // Throws tauvta::Error naming the field when a value does not fit; fields the kind lacks are
  // not encoded (and decode as 0).
  uint32_t encode_uop(UopFormat f, const Uop& u) const;
  Uop decode_uop(UopFormat f, uint32_t raw) const;
  uint32_t encode_gemm_uop(const Uop& u) const { return encode_uop(UopFormat::kGemm, u); }
  uint32_t encode_alu_uop(const Uop& u) const { return encode_uop(UopFormat::kAlu, u); }
  Uop decode_gemm_uop(uint32_t raw) const { return decode_uop(UopFormat::kGemm, raw); }
  Uop decode_alu_uop(uint32_t raw) const { return decode_uop(UopFormat::kAlu, raw); }

  // Field value of a decoded instruction, as an unsigned bit pattern of the field's width.
  static uint64_t get(const Insn& insn, Field f);
  static void set(Insn& insn, Field f, uint64_t value);  // sign-extends signed fields

 private:
  // Field positions by format and field id, for straight-line decoding (decode is on the
  // simulator's path for every instruction). A field a format lacks has mask 0.
  struct FieldPos {
    uint64_t mask = 0;
    uint8_t word = 0, shift = 0;
  };
  RawInsn encode_fields(const Insn& insn) const;  // the table walk encode falls back to
  struct PackField {
    uint64_t mask = 0;
    uint8_t field = 0, word = 0, shift = 0;
  };
  std::array<std::vector<PackField>, kNumFormats> pack_;  // each format's fields, for encode
  // Largest value of every field per format (fields a format lacks: no limit); signed fields
  // are checked by range.
  std::array<std::array<uint64_t, size_t(Field::kCount)>, kNumFormats> max_{};
  std::array<std::vector<FieldDesc>, kNumFormats> formats_;
  std::array<std::array<FieldPos, size_t(Field::kCount)>, kNumFormats> pos_{};
  UopLayout uop_;
  // Each kind's micro-op fields as mask and shift (mask 0: the kind lacks it), for straight-line
  // decoding: a LOAD UOP decodes every micro-op it moves.
  struct UopPos {
    uint32_t mask = 0;
    uint8_t shift = 0;
  };
  std::array<std::array<UopPos, kNumUopFields>, kNumUopFormats> uop_pos_{};
};

}  // namespace tauvta::hw
