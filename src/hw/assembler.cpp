// The assembler half of disasm.h: the text disassemble() writes, back to bits. Every value is
// range-checked against its field in the IsaLayout before it is stored, so an error names the
// line, the token and the field instead of silently truncating.
#include <algorithm>
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/disasm.h"

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

// A key=value token that sets one field, or two separated by `sep` (uop=B:E, iter=OxI, dst=O,I).
struct KeySpec {
  std::string_view key;
  char sep;  // 0: a single value
  Field first;
  Field second = Field::kCount;
};

const std::vector<KeySpec>& key_specs(Format f) {
  static const std::vector<KeySpec> mem = {
      {"mem", 0, Field::kMemoryType},       {"sram_base", 0, Field::kSramBase},
      {"dram_base", 0, Field::kDramBase},   {"y_size", 0, Field::kYSize},
      {"x_size", 0, Field::kXSize},         {"x_stride", 0, Field::kXStride},
      {"y_pad", ',', Field::kYPad0, Field::kYPad1},
      {"x_pad", ',', Field::kXPad0, Field::kXPad1}};
  static const std::vector<KeySpec> loop = {
      {"reset", 0, Field::kReset},
      {"uop", ':', Field::kUopBgn, Field::kUopEnd},
      {"iter", 'x', Field::kIterOut, Field::kIterIn},
      {"dst", ',', Field::kDstFactorOut, Field::kDstFactorIn},
      {"src", ',', Field::kSrcFactorOut, Field::kSrcFactorIn}};
  static const std::vector<KeySpec> gemm = [] {
    std::vector<KeySpec> s = loop;
    s.push_back({"wgt", ',', Field::kWgtFactorOut, Field::kWgtFactorIn});
    return s;
  }();
  static const std::vector<KeySpec> alu = [] {
    std::vector<KeySpec> s = loop;
    s.push_back({"alu", 0, Field::kAluOpcode});
    return s;
  }();
  static const std::vector<KeySpec> none;
  switch (f) {
    case Format::kMem: return mem;
    case Format::kGemm: return gemm;
    case Format::kAlu: return alu;
    case Format::kFinish: return none;
  }
  return none;
}

std::string key_list(Format f) {
  std::string s;
  for (const KeySpec& k : key_specs(f)) s += fmt::format("{}=, ", k.key);
  s += "deps=";
  if (f == Format::kAlu) s += ", imm=, unused_imm=";
  return s;
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
    Insn insn;
    IsaLayout::set(insn, Field::kOpcode, uint64_t(op));
    bool has_mem = false, has_alu = false, has_tensor = false, has_imm = false,
         has_unused_imm = false;
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
        // Bare words: a memory type, an ALU opcode, or the tensor operand.
        if (format == Format::kMem) {
          const std::optional<uint8_t> id = mem_id(tok);
          if (!id) {
            fail(tok, "unknown memory type; expected UOP, WGT, INP, ACC, OUT, ACC_8BIT or mem=N");
          }
          mark("mem", tok);
          has_mem = true;
          set_field(insn, format, Field::kMemoryType, *id, tok);
          continue;
        }
        if (format == Format::kAlu && tok == "tensor") {
          mark("tensor", tok);
          has_tensor = true;
          continue;
        }
        if (format == Format::kAlu) {
          const std::optional<uint8_t> alu = alu_op(tok);
          if (!alu) fail(tok, "unknown ALU opcode; expected MIN, MAX, ADD, SHR, MUL or alu=N");
          mark("alu", tok);
          has_alu = true;
          set_field(insn, format, Field::kAluOpcode, *alu, tok);
          continue;
        }
        fail(tok, fmt::format("expected key=value; {} takes {}", opcode_name(op), key_list(format)));
      }
      const std::string_view key = tok.substr(0, eq), value = tok.substr(eq + 1);
      if (value.empty()) fail(tok, fmt::format("{} has no value", key));
      if (key == "deps") {
        mark(key, tok);
        set_deps(insn, value, tok);
        continue;
      }
      if (format == Format::kAlu && (key == "imm" || key == "unused_imm")) {
        mark("imm", tok);
        (key == "imm" ? has_imm : has_unused_imm) = true;
        const std::optional<int64_t> v = parse_int(value);
        if (!v) fail(tok, fmt::format("{} must be an integer", key));
        const FieldDesc& d = layout_.field(format, Field::kImm);
        const int64_t lo = -(int64_t(1) << (d.width - 1)), hi = (int64_t(1) << (d.width - 1)) - 1;
        if (*v < lo || *v > hi) {
          fail(tok, fmt::format("field imm = {} does not fit {} signed bits [{}, {}]", *v, d.width,
                                lo, hi));
        }
        IsaLayout::set(insn, Field::kImm, uint64_t(*v));
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
      has_mem |= key == "mem";
      has_alu |= key == "alu";
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
    if (format == Format::kMem && !has_mem) {
      fail(mnemonic, fmt::format("{} needs a memory type (UOP, WGT, INP, ACC, OUT, ACC_8BIT or "
                                 "mem=N)",
                                 mnemonic));
    }
    if (format == Format::kAlu) {
      if (!has_alu) fail(mnemonic, "ALU needs an opcode (MIN, MAX, ADD, SHR, MUL or alu=N)");
      if (has_tensor && has_imm) {
        fail(mnemonic, "ALU has both 'tensor' and imm=N; an immediate operand is imm=N alone");
      }
      if (has_unused_imm && !has_tensor) fail(mnemonic, "unused_imm=N only goes with 'tensor'");
      if (!has_tensor && !has_imm) fail(mnemonic, "ALU needs an operand: imm=N or tensor");
      IsaLayout::set(insn, Field::kUseImm, has_imm ? 1 : 0);
    }
    try {
      return layout_.encode(insn);
    } catch (const Error& e) {
      fail(mnemonic, e.what());
    }
  }

  uint32_t uop(bool gemm, const std::vector<std::string_view>& tokens) {
    const UopLayout& l = layout_.uop();
    Uop u;
    std::vector<std::string_view> seen;
    for (size_t t = 1; t < tokens.size(); ++t) {
      const std::string_view tok = tokens[t];
      const size_t eq = tok.find('=');
      if (eq == std::string_view::npos) {
        fail(tok, gemm ? "expected acc=, inp= or wgt=" : "expected dst= or src=");
      }
      const std::string_view key = tok.substr(0, eq);
      uint32_t* target = nullptr;
      int width = 0;
      const char* name = "";
      if (gemm && key == "acc") target = &u.dst, width = l.dst_width, name = "acc_idx";
      if (gemm && key == "inp") target = &u.src, width = l.src_width, name = "inp_idx";
      if (gemm && key == "wgt") target = &u.wgt, width = l.wgt_width, name = "wgt_idx";
      if (!gemm && key == "dst") target = &u.dst, width = l.dst_width, name = "dst_idx";
      if (!gemm && key == "src") target = &u.src, width = l.src_width, name = "src_idx";
      if (target == nullptr) {
        fail(tok, gemm ? "unknown key; GEMM_UOP takes acc=, inp=, wgt="
                       : "unknown key; ALU_UOP takes dst=, src=");
      }
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        fail(tok, fmt::format("{} given twice", key));
      }
      seen.push_back(key);
      const uint64_t v = number(tok.substr(eq + 1), tok);
      if ((v >> width) != 0) {
        fail(tok, fmt::format("micro-op field {} = {} does not fit {} bits (max {})", name, v,
                              width, (uint64_t(1) << width) - 1));
      }
      *target = uint32_t(v);
    }
    return gemm ? layout_.encode_gemm_uop(u) : layout_.encode_alu_uop(u);
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

  void set_deps(Insn& insn, std::string_view value, std::string_view tok) const {
    if (value == "none") return;
    for (std::string_view dep : split(value, '+')) {
      if (dep == "pop_prev") {
        insn.pop_prev = true;
      } else if (dep == "pop_next") {
        insn.pop_next = true;
      } else if (dep == "push_prev") {
        insn.push_prev = true;
      } else if (dep == "push_next") {
        insn.push_next = true;
      } else {
        fail(tok, fmt::format("unknown dependency '{}'; deps= takes none or pop_prev, pop_next, "
                              "push_prev, push_next joined by '+'",
                              dep));
      }
    }
  }

  static std::optional<uint8_t> mem_id(std::string_view s) {
    for (uint8_t id = 0; id < kNumMemIds; ++id) {
      if (s == mem_id_name(id)) return id;
    }
    return std::nullopt;
  }

  static std::optional<uint8_t> alu_op(std::string_view s) {
    for (uint8_t op = 0; op < kNumAluOps; ++op) {
      if (s == alu_op_name(op)) return op;
    }
    return std::nullopt;
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
    if (m == "LOAD") {
      out.insns.push_back(a.instruction(Opcode::kLoad, tokens));
    } else if (m == "STORE") {
      out.insns.push_back(a.instruction(Opcode::kStore, tokens));
    } else if (m == "GEMM") {
      out.insns.push_back(a.instruction(Opcode::kGemm, tokens));
    } else if (m == "ALU") {
      out.insns.push_back(a.instruction(Opcode::kAlu, tokens));
    } else if (m == "FINISH") {
      out.insns.push_back(a.instruction(Opcode::kFinish, tokens));
    } else if (m == "GEMM_UOP" || m == "ALU_UOP") {
      out.uops.push_back(a.uop(m == "GEMM_UOP", tokens));
    } else {
      a.fail(m, "unknown mnemonic; expected LOAD, STORE, GEMM, ALU, FINISH, GEMM_UOP or ALU_UOP");
    }
  }
  return out;
}

}  // namespace tauvta::hw
