// docs/isa.md against the field table: its generated blocks (token tables and the default field
// layout) must be what isa_fields.def produces today, so a field added or changed in the table
// cannot leave the docs behind. Run with TAUVTA_UPDATE_GOLDEN=1 to rewrite the blocks, then
// review the diff. Also checks that the table reaches every form the text and the layout print.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/disasm.h"
#include "hw/isa_docs.h"
#include "hw/isa_fields.h"

namespace tauvta::hw {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(IsaDocs, TablesMatchTheTable) {
  const std::string path = std::string(TAUVTA_SOURCE_DIR) + "/docs/isa.md";
  const std::string doc = read_file(path);
  ASSERT_FALSE(doc.empty()) << path;
  const std::string generated = regenerate_isa_doc(doc);
  if (const char* u = std::getenv("TAUVTA_UPDATE_GOLDEN"); u != nullptr && std::string(u) == "1") {
    std::ofstream(path) << generated;
  }
  EXPECT_EQ(doc, generated) << "docs/isa.md's generated blocks differ from src/hw/isa_fields.def; "
                               "rerun with TAUVTA_UPDATE_GOLDEN=1 to rewrite them in "
                            << path;
}

TEST(IsaDocs, MissingBlockIsAnError) {
  std::string doc = "<!-- isa-table:begin:every-instruction -->\nold\n<!-- isa-table:end -->\n";
  try {
    regenerate_isa_doc(doc);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("isa-table:begin:load-store"), std::string::npos)
        << e.what();
  }
  // Every block present: each is replaced, the text around them kept.
  std::string all = "intro\n";
  for (const DocBlock& b : isa_doc_blocks()) {
    all += "<!-- isa-table:begin:" + b.name + " -->\nstale\n<!-- isa-table:end -->\ntext\n";
  }
  const std::string out = regenerate_isa_doc(all);
  EXPECT_EQ(out.find("stale"), std::string::npos);
  EXPECT_EQ(out.rfind("intro\n", 0), 0u);
  EXPECT_EQ(regenerate_isa_doc(out), out);
}

// The layout `tauvta config show` prints is the docs' default-layout block, fenced.
TEST(IsaDocs, DefaultLayoutIsConfigShow) {
  for (const DocBlock& b : isa_doc_blocks()) {
    if (b.name == "default-layout") {
      EXPECT_EQ(b.text, "```\n" + layout_text(IsaLayout(HwConfig{})) + "```\n");
    }
  }
}

// Every row of the table is placed in some format under the default config, under its ISA name,
// and every text key a format's lines use is in that format's docs block.
TEST(IsaFields, EveryRowIsPlacedAndDocumented) {
  const IsaLayout l{HwConfig{}};
  std::set<Field> placed;
  for (int f = 0; f < kNumFormats; ++f) {
    for (const FieldDesc& d : l.fields(Format(f))) {
      EXPECT_STREQ(d.name, field_info(d.field).name);
      EXPECT_EQ(d.is_signed, field_info(d.field).is_signed()) << d.name;
      placed.insert(d.field);
    }
  }
  EXPECT_EQ(placed.size(), size_t(kNumFields));
  std::string docs;
  for (const DocBlock& b : isa_doc_blocks()) docs += b.text;
  for (const FieldInfo& f : kFields) {
    EXPECT_NE(docs.find(std::string("`") + f.name + "`"), std::string::npos) << f.name;
    EXPECT_NE(docs.find(f.meaning), std::string::npos) << f.name;
    if (*f.text.key != 0) {
      EXPECT_NE(docs.find(std::string("`") + f.text.key), std::string::npos) << f.text.key;
    }
  }
}

// Each key of a format's disassembly is a key the table gives that format (so the text cannot
// carry a field the table does not declare).
TEST(IsaFields, DisassemblyKeysComeFromTheTable) {
  for (int op = 0; op < kNumOpcodes; ++op) {
    Insn insn;
    insn.opcode = Opcode(op);
    const Format format = format_of(insn.opcode);
    std::istringstream words(disassemble(insn));
    std::string word;
    words >> word;
    EXPECT_EQ(word, opcode_name(insn.opcode));
    while (words >> word) {
      const std::string key = word.substr(0, word.find('='));
      bool known = false;
      for (const FieldInfo& f : kFields) {
        if (!f.in(format)) continue;
        const TextForm& t = f.text;
        known |= key == t.key || key == t.word ||
                 (t.kind == TextKind::kNamed && t.num_names > 0 && key == t.names[0]);
      }
      EXPECT_TRUE(known) << opcode_name(insn.opcode) << ": " << word;
    }
  }
}

// A micro-op line reads and writes exactly the table's micro-op rows: the kind's mnemonic, then
// each of its fields by key; every field holds its widest value and round-trips through the text;
// a key of the other kind is refused naming the kind's keys.
TEST(IsaFields, MicroOpLinesComeFromTheTable) {
  const IsaLayout l{HwConfig{}};
  for (int k = 0; k < kNumUopFormats; ++k) {
    const UopFormat f = UopFormat(k);
    Uop u;
    std::string expected = kUopMnemonics[k], keys;
    for (const UopFieldInfo& d : kUopFields) {
      if (!d.in(f)) continue;
      const UopBits& b = l.uop().at[size_t(d.id)];
      u.*d.member = uint32_t((uint64_t(1) << b.width) - 1);
      expected += fmt::format(" {}={}", d.key[k], u.*d.member);
      keys += fmt::format("{}{}=", keys.empty() ? "" : ", ", d.key[k]);
    }
    const std::string line = disassemble_uop(f, u);
    EXPECT_EQ(line, expected);
    const Assembled a = assemble(l, line, "u.txt");
    ASSERT_EQ(a.uops.size(), 1u);
    EXPECT_EQ(a.uops[0], l.encode_uop(f, u));
    EXPECT_EQ(l.decode_uop(f, a.uops[0]), u) << line;
    for (const UopFieldInfo& d : kUopFields) {
      if (d.in(f)) continue;
      const std::string bad = fmt::format("{} {}=1", kUopMnemonics[k], d.key[0]);
      const std::string refusal = fmt::format("{} takes {}", kUopMnemonics[k], keys);
      try {
        (void)assemble(l, bad, "u.txt");
        ADD_FAILURE() << bad << " assembled";
      } catch (const Error& e) {
        EXPECT_NE(std::string_view(e.what()).find(refusal), std::string_view::npos) << e.what();
      }
    }
  }
  // The fields fill a GEMM micro-op from bit 0 without a gap.
  int next = 0;
  for (const UopFieldInfo& d : kUopFields) {
    EXPECT_EQ(l.uop().at[size_t(d.id)].lsb, next) << d.name[0];
    next += l.uop().at[size_t(d.id)].width;
  }
  EXPECT_EQ(next, l.uop().total_width);
}

// The limits lowering splits work against are the table's widths (docs/vta_isa.md: x_size 16 bits,
// iter_out 14).
TEST(IsaFields, ConstantFieldLimitsFollowTheTable) {
  EXPECT_EQ(field_max(Field::kXSize), 0xffffu);
  EXPECT_EQ(field_max(Field::kIterOut), (1u << 14) - 1);
  EXPECT_EQ(field_max(Field::kMemoryType), 7u);
}

}  // namespace
}  // namespace tauvta::hw
