#include "hw/isa_docs.h"

#include <fmt/format.h>

#include "common/error.h"
#include "hw/isa_fields.h"

namespace tauvta::hw {
namespace {

std::string bit_range(int lsb, int width) {
  if (width == 1) return fmt::format("[{}]", lsb);
  return fmt::format("[{}:{}]", lsb + width - 1, lsb);
}

// Whether a field is in every format (the "Every instruction" table) rather than in some.
bool in_every_format(const FieldInfo& f) {
  for (int fmt = 0; fmt < kNumFormats; ++fmt) {
    if (!f.in(Format(fmt))) return false;
  }
  return true;
}

const FieldInfo& next(const FieldInfo& f) { return kFields[size_t(f.id) + 1]; }

std::string width_text(const WidthRule& w) {
  std::string s = w.constant() ? std::to_string(w.plus)
                  : w.plus == 0 ? std::string(1, w.var)
                                : fmt::format("{}+{}", w.var, w.plus);
  return w.is_signed ? s + ", signed" : s;
}

// "`UOP` `WGT` ..." for a value set.
std::string names_text(const TextForm& t) {
  std::string s;
  for (int k = 0; k < t.num_names; ++k) s += fmt::format("{}`{}`", k == 0 ? "" : " ", t.names[k]);
  return s;
}

// "UOP 0, WGT 1, ..."
std::string values_text(const TextForm& t) {
  std::string s;
  for (int k = 0; k < t.num_names; ++k) s += fmt::format("{}{} {}", k == 0 ? "" : ", ", t.names[k], k);
  return s;
}

// A field's table row: token, field, bits, meaning.
std::string row(const FieldInfo& f, Format format) {
  const TextForm& t = f.text;
  const WidthRule& w = f.width[size_t(format)];
  std::string token, field = fmt::format("`{}`", f.name), meaning = f.meaning;
  switch (t.kind) {
    case TextKind::kMnemonic:
      token = names_text(t);
      meaning += ": " + values_text(t);
      break;
    case TextKind::kDep: token = fmt::format("`{}` in `{}=`", t.word, t.key); break;
    case TextKind::kNamed:
      token = fmt::format("{} or `{}=N`", names_text(t), t.key);
      meaning += fmt::format(": {}; {}..{} have no name and print as `{}=N`", values_text(t),
                             t.num_names, (1 << w.plus) - 1, t.key);
      break;
    case TextKind::kValue: token = fmt::format("`{}={}`", t.key, t.placeholder); break;
    case TextKind::kPairFirst:
      token = fmt::format("`{}={}{}{}`", t.key, t.placeholder, t.sep, next(f).text.placeholder);
      field += fmt::format(" ({})", t.placeholder);
      break;
    case TextKind::kPairSecond: field += fmt::format(" ({})", t.placeholder); break;
    case TextKind::kOperand:
      token = fmt::format("`{}=N` or `{}`", next(f).text.key, t.word);
      break;
    case TextKind::kOperandValue:
      token = fmt::format("`{}=N`; `{}=N` after `{}`", t.key, t.word,
                          kFields[size_t(f.id) - 1].text.word);
      meaning += fmt::format(" (`{}=N`: bits left in a `{}` instruction, printed when not zero)",
                             t.word, kFields[size_t(f.id) - 1].text.word);
      break;
  }
  return fmt::format("| {} | {} | {} | {} |\n", token, field, width_text(w), meaning);
}

// The order a line reads in (disassemble() prints it so): bare words, then key=value tokens.
bool is_bare(TextKind k) { return k == TextKind::kNamed || k == TextKind::kOperand; }

std::string format_block(Format format) {
  // Synopsis: the format's mnemonics, then every token with its placeholders.
  std::string syn;
  for (int op = 0; op < kNumOpcodes; ++op) {
    if (format_of(Opcode(op)) == format) syn += fmt::format("{}{}", syn.empty() ? "" : "|", kOpcodeNames[op]);
  }
  std::string rows, deps_key;
  for (int pass = 0; pass < 2; ++pass) {
    for (const FieldInfo& f : kFields) {
      if (!f.in(format)) continue;
      const TextForm& t = f.text;
      if (t.kind == TextKind::kDep) deps_key = t.key;
      if (in_every_format(f) || (pass == 0) != (is_bare(t.kind) || t.kind == TextKind::kOperandValue)) {
        continue;
      }
      if (is_bare(t.kind)) syn += fmt::format(" {}", t.placeholder);
      if (t.kind == TextKind::kValue) syn += fmt::format(" {}={}", t.key, t.placeholder);
      if (t.kind == TextKind::kPairFirst) {
        syn += fmt::format(" {}={}{}{}", t.key, t.placeholder, t.sep, next(f).text.placeholder);
      }
      rows += row(f, format);
    }
  }
  std::string s = fmt::format("`{} {}=D`\n", syn, deps_key);
  if (!rows.empty()) s += "\n| token | field | bits | meaning |\n|---|---|---|---|\n" + rows;
  return s;
}

std::string every_instruction_block() {
  const HwConfig c;
  std::string flags, deps_key, rows;
  for (const FieldInfo& f : kFields) {
    if (!in_every_format(f)) continue;
    if (f.text.kind == TextKind::kDep) {
      flags += fmt::format("{}{}", flags.empty() ? "" : "+", f.text.word);
      deps_key = f.text.key;
    }
    rows += row(f, Format::kFinish);
  }
  return fmt::format(
      "Widths are in bits; U, A, I and W are the log2 depths of the micro-op, accumulator, input\n"
      "and weight buffers ({}, {}, {} and {} in the default configuration). `{}=` lists the\n"
      "dependency flags that are set, joined by `+`, in the order\n`{}`, or `none`.\n\n"
      "| token | field | bits | meaning |\n|---|---|---|---|\n{}",
      c.log_uop_depth(), c.log_acc_depth(), c.log_inp_depth(), c.log_wgt_depth(), deps_key, flags,
      rows);
}

// "GEMM" for GEMM_UOP.
std::string uop_kind_name(UopFormat f) {
  const std::string_view m = kUopMnemonics[size_t(f)];
  return std::string(m.substr(0, m.find('_')));
}

// The micro-op lines and a row per field: its key and ISA name in each kind, width and meaning.
std::string micro_op_block() {
  std::string syn, rows;
  for (int k = 0; k < kNumUopFormats; ++k) {
    syn += fmt::format("{}`{}", k == 0 ? "" : ", ", kUopMnemonics[k]);
    for (const UopFieldInfo& d : kUopFields) {
      if (d.in(UopFormat(k))) syn += fmt::format(" {}=N", d.key[k]);
    }
    syn += "`";
  }
  std::string header = "|", rule = "|";
  for (int k = 0; k < kNumUopFormats; ++k) {
    header += fmt::format(" `{}` token | field |", kUopMnemonics[k]);
    rule += "---|---|";
  }
  for (const UopFieldInfo& d : kUopFields) {
    rows += "|";
    for (int k = 0; k < kNumUopFormats; ++k) {
      rows += d.in(UopFormat(k)) ? fmt::format(" `{}=N` | `{}` |", d.key[k], d.name[k]) : " | |";
    }
    rows += fmt::format(" {} | {} |\n", width_text(d.width), d.meaning);
  }
  return fmt::format("{}\n\nPlaced from bit 0 in this order.\n\n{} bits | meaning |\n{}---|---|\n{}",
                     syn, header, rule, rows);
}

constexpr std::string_view kBegin = "<!-- isa-table:begin:", kEnd = "<!-- isa-table:end -->";

}  // namespace

std::string layout_text(const IsaLayout& layout) {
  std::string s;
  for (int f = 0; f < kNumFormats; ++f) {
    const Format format = Format(f);
    s += fmt::format("{} instruction fields\n", format_name(format));
    int next_bit = 0;
    for (const FieldDesc& d : layout.fields(format)) {
      if (d.lsb > next_bit) {
        s += fmt::format("  {:<10} {:<16} {:>3} bits  (zero)\n",
                         bit_range(next_bit, d.lsb - next_bit), "unused", d.lsb - next_bit);
      }
      s += fmt::format("  {:<10} {:<16} {:>3} bits{}\n", bit_range(d.lsb, d.width), d.name,
                       d.width, d.is_signed ? "  signed" : "");
      next_bit = d.lsb + d.width;
    }
    if (next_bit < 128) {
      s += fmt::format("  {:<10} {:<16} {:>3} bits  (zero)\n", bit_range(next_bit, 128 - next_bit),
                       "unused", 128 - next_bit);
    }
    s += "\n";
  }
  const UopLayout& u = layout.uop();
  s += "Micro-op fields (32 bits)\n";
  for (int k = 0; k < kNumUopFormats; ++k) {
    const UopFormat f = UopFormat(k);
    std::string line = fmt::format("  {:<6}", uop_kind_name(f));
    for (const UopFieldInfo& d : kUopFields) {
      if (!d.in(f)) continue;
      const UopBits& b = u.at[size_t(d.id)];
      line += fmt::format("{} {:<8} ", d.name[k], bit_range(b.lsb, b.width));
    }
    while (line.back() == ' ') line.pop_back();
    s += line + "\n";
  }
  return s;
}

std::vector<DocBlock> isa_doc_blocks() {
  return {{"every-instruction", every_instruction_block()},
          {"load-store", format_block(Format::kMem)},
          {"gemm", format_block(Format::kGemm)},
          {"alu", format_block(Format::kAlu)},
          {"finish", format_block(Format::kFinish)},
          {"micro-ops", micro_op_block()},
          {"default-layout", "```\n" + layout_text(IsaLayout(HwConfig{})) + "```\n"}};
}

std::string regenerate_isa_doc(std::string_view markdown) {
  std::string out(markdown);
  for (const DocBlock& b : isa_doc_blocks()) {
    const std::string begin = fmt::format("{}{} -->\n", kBegin, b.name);
    const size_t at = out.find(begin);
    const size_t end = at == std::string::npos ? at : out.find(kEnd, at);
    if (end == std::string::npos) {
      throw Error(fmt::format("no block '{}{} -->' ... '{}' in the ISA docs", kBegin, b.name, kEnd));
    }
    out.replace(at + begin.size(), end - at - begin.size(), b.text);
  }
  return out;
}

}  // namespace tauvta::hw
