// The assembler half of disasm.h: the text disassemble() writes, back to bits. Every value is
// range-checked against its field in the IsaLayout before it is stored, so an error names the
// line, the token and the field instead of silently truncating.
#include <algorithm>
#include <array>
#include <charconv>
#include <iterator>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.h"
#include "hw/disasm.h"
#include "hw/isa_fields.h"

namespace tauvta::hw {
namespace {

std::optional<uint64_t> parse_uint(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> parse_int(std::string_view s) {
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  const std::optional<uint64_t> mag = parse_uint(s);
  if (!mag || *mag > (uint64_t(1) << 62)) return std::nullopt;
  return negative ? -int64_t(*mag) : int64_t(*mag);
}

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

std::vector<std::string_view> tokenize(std::string_view s) {
  std::vector<std::string_view> tokens;
  size_t k = 0;
  while (k < s.size()) {
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    const size_t start = k;
    while (k < s.size() && s[k] != ' ' && s[k] != '\t') ++k;
    if (k > start) tokens.push_back(s.substr(start, k - start));
  }
  return tokens;
}

// A key=value token that sets one field, or two separated by `sep` (uop=B:E, iter=OxI, dst=O,I);
// a named field's numeric form (mem=N) is one too.
struct KeySpec {
  std::string_view key;
  char sep;  // 0: a single value
  Field first;
  Field second = Field::kCount;
};

// The keys of a format, in the order of isa_fields.def's rows.
const std::vector<KeySpec>& key_specs(Format f) {
  static const std::array<std::vector<KeySpec>, kNumFormats> specs = [] {
    std::array<std::vector<KeySpec>, kNumFormats> all;
    for (int format = 0; format < kNumFormats; ++format) {
      for (const FieldInfo& d : kFields) {
        if (!d.in(Format(format))) continue;
        const TextForm& t = d.text;
        if (t.kind == TextKind::kValue || t.kind == TextKind::kNamed) {
          all[format].push_back({t.key, 0, d.id});
        } else if (t.kind == TextKind::kPairFirst) {
          all[format].push_back({t.key, t.sep, d.id, Field(size_t(d.id) + 1)});
        }
      }
    }
    return all;
  }();
  return specs[size_t(f)];
}

// The field of `format` whose text is of `kind` (the format has at most one named field and one
// operand: isa_fields.h checks it), or null.
const FieldInfo* text_field(Format format, TextKind kind) {
  for (const FieldInfo& d : kFields) {
    if (d.in(format) && d.text.kind == kind) return &d;
  }
  return nullptr;
}

// "UOP, WGT, INP, ACC, OUT, ACC_8BIT or mem=N"
std::string name_list(const TextForm& t) {
  std::string s;
  for (int k = 0; k < t.num_names; ++k) s += fmt::format("{}{}", k == 0 ? "" : ", ", t.names[k]);
  return fmt::format("{} or {}=N", s, t.key);
}

std::string key_list(Format f) {
  std::string s;
  for (const KeySpec& k : key_specs(f)) s += fmt::format("{}=, ", k.key);
  s += fmt::format("{}=", text_field(f, TextKind::kDep)->text.key);
  if (const FieldInfo* value = text_field(f, TextKind::kOperandValue)) {
    s += fmt::format(", {}=, {}=", value->text.key, value->text.word);
  }
  return s;
}

// "a, b or c"
std::string one_of(const std::vector<std::string>& words) {
  std::string s;
  for (size_t k = 0; k < words.size(); ++k) {
    s += fmt::format("{}{}", k == 0 ? "" : k + 1 == words.size() ? " or " : ", ", words[k]);
  }
  return s;
}

// A micro-op kind's keys, as "acc=", "inp=", ...
std::vector<std::string> uop_keys(UopFormat f) {
  std::vector<std::string> keys;
  for (const UopFieldInfo& d : kUopFields) {
    if (d.in(f)) keys.push_back(fmt::format("{}=", d.key[size_t(f)]));
  }
  return keys;
}

// Assembles one line; `fail` throws with the source, line number and offending token.
class LineAssembler {
 public:
  LineAssembler(const IsaLayout& layout, std::string_view source, size_t line)
      : layout_(layout), source_(source), line_(line) {}

  [[noreturn]] void fail(std::string_view token, const std::string& message) const {
    throw Error(fmt::format("{}:{}: {} (at '{}')", source_, line_, message, token));
  }

  RawInsn instruction(Opcode op, const std::vector<std::string_view>& tokens) {
    const Format format = format_of(op);
    // The format's special text: a named field (memory type, ALU opcode), an operand choice and
    // its value (ALU imm=N / tensor), and the dependency flags' group key (deps=).
    const FieldInfo* named = text_field(format, TextKind::kNamed);
    const FieldInfo* operand = text_field(format, TextKind::kOperand);
    const FieldInfo* operand_value = text_field(format, TextKind::kOperandValue);
    const std::string_view deps_key = text_field(format, TextKind::kDep)->text.key;
    Insn insn;
    IsaLayout::set(insn, Field::kOpcode, uint64_t(op));
    bool has_named = false, has_word = false, has_value = false, has_unused_value = false;
    std::vector<std::string_view> seen;
    auto mark = [&](std::string_view key, std::string_view token) {
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        fail(token, fmt::format("{} given twice", key));
      }
      seen.push_back(key);
    };
    for (size_t t = 1; t < tokens.size(); ++t) {
      const std::string_view tok = tokens[t];
      const size_t eq = tok.find('=');
      if (eq == std::string_view::npos) {
        // Bare words: the operand's word (tensor), or a name of the named field.
        if (operand != nullptr && tok == operand->text.word) {
          mark(tok, tok);
          has_word = true;
          continue;
        }
        if (named != nullptr) {
          const TextForm& nt = named->text;
          const auto name = std::find(nt.names, nt.names + nt.num_names, tok);
          if (name == nt.names + nt.num_names) {
            fail(tok, fmt::format("unknown {}; expected {}", nt.noun, name_list(nt)));
          }
          mark(nt.key, tok);
          has_named = true;
          set_field(insn, format, named->id, uint64_t(name - nt.names), tok);
          continue;
        }
        fail(tok, fmt::format("expected key=value; {} takes {}", opcode_name(op), key_list(format)));
      }
      const std::string_view key = tok.substr(0, eq), value = tok.substr(eq + 1);
      if (value.empty()) fail(tok, fmt::format("{} has no value", key));
      if (key == deps_key) {
        mark(key, tok);
        set_deps(insn, format, deps_key, value, tok);
        continue;
      }
      if (operand_value != nullptr &&
          (key == operand_value->text.key || key == operand_value->text.word)) {
        mark(operand_value->text.key, tok);
        (key == operand_value->text.key ? has_value : has_unused_value) = true;
        set_signed_field(insn, format, operand_value->id, value, key, tok);
        continue;
      }
      const auto& specs = key_specs(format);
      const auto spec = std::find_if(specs.begin(), specs.end(),
                                     [&](const KeySpec& s) { return s.key == key; });
      if (spec == specs.end()) {
        fail(tok, fmt::format("unknown key {} for {}; it takes {}", key, opcode_name(op),
                              key_list(format)));
      }
      mark(key, tok);
      has_named |= named != nullptr && spec->first == named->id;
      if (spec->sep == 0) {
        set_field(insn, format, spec->first, number(value, tok), tok);
      } else {
        const std::vector<std::string_view> parts = split(value, spec->sep);
        if (parts.size() != 2) {
          fail(tok, fmt::format("{} takes two values separated by '{}'", key, spec->sep));
        }
        set_field(insn, format, spec->first, number(parts[0], tok), tok);
        set_field(insn, format, spec->second, number(parts[1], tok), tok);
      }
    }
    const std::string_view mnemonic = tokens[0];
    if (named != nullptr && !has_named) {
      fail(mnemonic, fmt::format("{} needs {} ({})", mnemonic, named->text.needs,
                                 name_list(named->text)));
    }
    if (operand != nullptr) {
      const std::string_view word = operand->text.word, vkey = operand_value->text.key;
      if (has_word && has_value) {
        fail(mnemonic, fmt::format("{} has both '{}' and {}=N; an immediate operand is {}=N alone",
                                   mnemonic, word, vkey, vkey));
      }
      if (has_unused_value && !has_word) {
        fail(mnemonic, fmt::format("{}=N only goes with '{}'", operand_value->text.word, word));
      }
      if (!has_word && !has_value) {
        fail(mnemonic, fmt::format("{} needs an operand: {}=N or {}", mnemonic, vkey, word));
      }
      IsaLayout::set(insn, operand->id, has_value ? 1 : 0);
    }
    try {
      return layout_.encode(insn);
    } catch (const Error& e) {
      fail(mnemonic, e.what());
    }
  }

  uint32_t uop(UopFormat f, const std::vector<std::string_view>& tokens) {
    const UopLayout& l = layout_.uop();
    const size_t k = size_t(f);
    Uop u;
    std::vector<std::string_view> seen;
    for (size_t t = 1; t < tokens.size(); ++t) {
      const std::string_view tok = tokens[t];
      const size_t eq = tok.find('=');
      if (eq == std::string_view::npos) fail(tok, "expected " + one_of(uop_keys(f)));
      const std::string_view key = tok.substr(0, eq);
      const UopFieldInfo* field = nullptr;
      for (const UopFieldInfo& d : kUopFields) {
        if (d.in(f) && key == d.key[k]) field = &d;
      }
      if (field == nullptr) {
        fail(tok, fmt::format("unknown key; {} takes {}", kUopMnemonics[k],
                              fmt::join(uop_keys(f), ", ")));
      }
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        fail(tok, fmt::format("{} given twice", key));
      }
      seen.push_back(key);
      const int width = l.at[size_t(field->id)].width;
      const uint64_t v = number(tok.substr(eq + 1), tok);
      if ((v >> width) != 0) {
        fail(tok, fmt::format("micro-op field {} = {} does not fit {} bits (max {})",
                              field->name[k], v, width, (uint64_t(1) << width) - 1));
      }
      u.*field->member = uint32_t(v);
    }
    return layout_.encode_uop(f, u);
  }

 private:
  uint64_t number(std::string_view value, std::string_view tok) const {
    const std::optional<uint64_t> v = parse_uint(value);
    if (!v) fail(tok, fmt::format("'{}' is not a non-negative integer", value));
    return *v;
  }

  void set_field(Insn& insn, Format format, Field f, uint64_t v, std::string_view tok) const {
    const FieldDesc& d = layout_.field(format, f);
    if (d.width < 64 && (v >> d.width) != 0) {
      fail(tok, fmt::format("field {} = {} does not fit {} bits (max {})", d.name, v, d.width,
                            (uint64_t(1) << d.width) - 1));
    }
    IsaLayout::set(insn, f, v);
  }

  // A signed field's value (imm=N), range-checked against its width.
  void set_signed_field(Insn& insn, Format format, Field f, std::string_view value,
                        std::string_view key, std::string_view tok) const {
    const std::optional<int64_t> v = parse_int(value);
    if (!v) fail(tok, fmt::format("{} must be an integer", key));
    const FieldDesc& d = layout_.field(format, f);
    const int64_t lo = -(int64_t(1) << (d.width - 1)), hi = (int64_t(1) << (d.width - 1)) - 1;
    if (*v < lo || *v > hi) {
      fail(tok, fmt::format("field {} = {} does not fit {} signed bits [{}, {}]", d.name, *v,
                            d.width, lo, hi));
    }
    IsaLayout::set(insn, f, uint64_t(*v));
  }

  // deps=none or flags joined by '+'.
  void set_deps(Insn& insn, Format format, std::string_view key, std::string_view value,
                std::string_view tok) const {
    if (value == "none") return;
    for (std::string_view dep : split(value, '+')) {
      const FieldInfo* flag = nullptr;
      std::string flags;
      for (const FieldInfo& d : kFields) {
        if (!d.in(format) || d.text.kind != TextKind::kDep) continue;
        if (dep == d.text.word) flag = &d;
        flags += fmt::format("{}{}", flags.empty() ? "" : ", ", d.text.word);
      }
      if (flag == nullptr) {
        fail(tok, fmt::format("unknown dependency '{}'; {}= takes none or {} joined by '+'", dep,
                              key, flags));
      }
      IsaLayout::set(insn, flag->id, 1);
    }
  }

  const IsaLayout& layout_;
  std::string_view source_;
  size_t line_;
};

// "0012:" as written by disassemble_program.
std::string_view strip_index(std::string_view s) {
  size_t k = 0;
  while (k < s.size() && s[k] >= '0' && s[k] <= '9') ++k;
  if (k > 0 && k < s.size() && s[k] == ':') return trim(s.substr(k + 1));
  return s;
}

}  // namespace

Assembled assemble(const IsaLayout& layout, std::string_view text, std::string_view source) {
  Assembled out;
  size_t line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = strip_index(trim(line));
    if (line.empty()) continue;
    const std::vector<std::string_view> tokens = tokenize(line);
    const std::string_view m = tokens[0];
    LineAssembler a(layout, source, line_no);
    const auto opcode = std::find(std::begin(kOpcodeNames), std::end(kOpcodeNames), m);
    if (opcode != std::end(kOpcodeNames)) {
      out.insns.push_back(a.instruction(Opcode(opcode - std::begin(kOpcodeNames)), tokens));
    } else if (const auto uop = std::find(std::begin(kUopMnemonics), std::end(kUopMnemonics), m);
               uop != std::end(kUopMnemonics)) {
      out.uops.push_back(a.uop(UopFormat(uop - std::begin(kUopMnemonics)), tokens));
    } else {
      std::vector<std::string> names(std::begin(kOpcodeNames), std::end(kOpcodeNames));
      names.insert(names.end(), std::begin(kUopMnemonics), std::end(kUopMnemonics));
      a.fail(m, "unknown mnemonic; expected " + one_of(names));
    }
  }
  return out;
}

}  // namespace tauvta::hw
