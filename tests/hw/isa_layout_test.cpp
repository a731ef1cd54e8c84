// The field table against docs/vta_isa.md section 2 (positions of the default config, raw 128-bit values
// computed by hand from that text), and encode/decode round trips over random configs.
#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "hw/isa_layout.h"
#include "hw_test_util.h"

namespace tauvta::hw {
namespace {

struct Pos {
  const char* name;
  int hi, lo;
};

void expect_layout(const IsaLayout& l, Format f, const std::vector<Pos>& want) {
  const auto fields = l.fields(f);
  ASSERT_EQ(fields.size(), want.size()) << format_name(f);
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_STREQ(fields[k].name, want[k].name) << format_name(f);
    EXPECT_EQ(fields[k].lsb, want[k].lo) << format_name(f) << " " << want[k].name;
    EXPECT_EQ(fields[k].lsb + fields[k].width - 1, want[k].hi)
        << format_name(f) << " " << want[k].name;
  }
}

const std::vector<Pos> kHeader = {{"opcode", 2, 0},
                                  {"pop_prev_dep", 3, 3},
                                  {"pop_next_dep", 4, 4},
                                  {"push_prev_dep", 5, 5},
                                  {"push_next_dep", 6, 6}};

std::vector<Pos> with_header(std::vector<Pos> rest) {
  std::vector<Pos> all = kHeader;
  all.insert(all.end(), rest.begin(), rest.end());
  return all;
}

TEST(IsaLayout, DefaultPositionsMatchIsaMd) {
  const IsaLayout l{HwConfig{}};
  expect_layout(l, Format::kMem,
                with_header({{"memory_type", 9, 7},
                             {"sram_base", 25, 10},
                             {"dram_base", 57, 26},
                             {"y_size", 79, 64},
                             {"x_size", 95, 80},
                             {"x_stride", 111, 96},
                             {"y_pad_0", 115, 112},
                             {"y_pad_1", 119, 116},
                             {"x_pad_0", 123, 120},
                             {"x_pad_1", 127, 124}}));
  const std::vector<Pos> word0 = {{"reset_reg", 7, 7},
                                  {"uop_bgn", 20, 8},
                                  {"uop_end", 34, 21},
                                  {"iter_out", 48, 35},
                                  {"iter_in", 62, 49},
                                  {"dst_factor_out", 74, 64},
                                  {"dst_factor_in", 85, 75}};
  std::vector<Pos> gemm = word0;
  gemm.insert(gemm.end(), {{"src_factor_out", 96, 86},
                           {"src_factor_in", 107, 97},
                           {"wgt_factor_out", 117, 108},
                           {"wgt_factor_in", 127, 118}});
  expect_layout(l, Format::kGemm, with_header(gemm));
  std::vector<Pos> alu = word0;
  alu.insert(alu.end(), {{"src_factor_out", 96, 86},
                         {"src_factor_in", 107, 97},
                         {"alu_opcode", 110, 108},
                         {"use_imm", 111, 111},
                         {"imm", 127, 112}});
  expect_layout(l, Format::kAlu, with_header(alu));
  expect_layout(l, Format::kFinish, kHeader);
  EXPECT_TRUE(l.field(Format::kAlu, Field::kImm).is_signed);

  const UopLayout& u = l.uop();
  EXPECT_EQ(u.dst().lsb, 0);
  EXPECT_EQ(u.dst().width, 11);
  EXPECT_EQ(u.src().lsb, 11);
  EXPECT_EQ(u.src().width, 11);
  EXPECT_EQ(u.wgt().lsb, 22);
  EXPECT_EQ(u.wgt().width, 10);
}

// Raw values written from docs/vta_isa.md's bit positions, independently of the field table.
TEST(IsaLayout, HandComputedLoad) {
  const IsaLayout l{HwConfig{}};
  Insn i;
  i.opcode = Opcode::kLoad;
  i.pop_next = i.push_next = true;
  i.memory_type = uint8_t(MemId::kInp);
  i.sram_base = 4;
  i.dram_base = 73728;
  i.y_size = 2;
  i.x_size = 3;
  i.x_stride = 5;
  i.y_pad_0 = 1;
  i.y_pad_1 = 2;
  i.x_pad_0 = 2;
  i.x_pad_1 = 1;
  const RawInsn want{(uint64_t(73728) << 26) | (4u << 10) | (2u << 7) | (1u << 6) | (1u << 4),
                     2 | (3ull << 16) | (5ull << 32) | (1ull << 48) | (2ull << 52) |
                         (2ull << 56) | (1ull << 60)};
  EXPECT_EQ(want.lo, 0x0000048000001150ull);
  EXPECT_EQ(want.hi, 0x1221000500030002ull);
  EXPECT_EQ(l.encode(i), want);
  EXPECT_EQ(l.decode(want), i);
}

TEST(IsaLayout, HandComputedGemm) {
  const IsaLayout l{HwConfig{}};
  Insn i;
  i.opcode = Opcode::kGemm;
  i.pop_prev = i.push_prev = true;
  i.reset = true;
  i.uop_bgn = 5;
  i.uop_end = 9;
  i.iter_out = 3;
  i.iter_in = 7;
  i.dst_factor_out = 16;
  i.dst_factor_in = 1;
  i.src_factor_out = 2;
  i.src_factor_in = 1;
  i.wgt_factor_out = 4;
  i.wgt_factor_in = 3;
  const RawInsn want{2 | (1u << 3) | (1u << 5) | (1u << 7) | (5u << 8) | (9ull << 21) |
                         (3ull << 35) | (7ull << 49),
                     16 | (1ull << 11) | (2ull << 22) | (1ull << 33) | (4ull << 44) |
                         (3ull << 54)};
  EXPECT_EQ(l.encode(i), want);
  EXPECT_EQ(l.decode(want), i);
}

TEST(IsaLayout, HandComputedAluImmediate) {
  const IsaLayout l{HwConfig{}};
  Insn i;
  i.opcode = Opcode::kAlu;
  i.push_next = true;
  i.uop_bgn = 0;
  i.uop_end = 1;
  i.iter_out = 2;
  i.iter_in = 4;
  i.dst_factor_out = 4;
  i.dst_factor_in = 1;
  i.src_factor_out = 4;
  i.src_factor_in = 1;
  i.alu_opcode = uint8_t(AluOp::kMax);
  i.use_imm = true;
  i.imm = -128;
  const RawInsn want{4 | (1u << 6) | (1ull << 21) | (2ull << 35) | (4ull << 49),
                     4 | (1ull << 11) | (4ull << 22) | (1ull << 33) | (1ull << 44) |
                         (1ull << 47) | (0xff80ull << 48)};
  EXPECT_EQ(l.encode(i), want);
  EXPECT_EQ(l.decode(want), i);
  EXPECT_EQ(l.decode(want).imm, -128);
}

TEST(IsaLayout, HandComputedFinishAndUop) {
  const IsaLayout l{HwConfig{}};
  Insn f;
  f.opcode = Opcode::kFinish;
  f.pop_next = true;
  EXPECT_EQ(l.encode(f), (RawInsn{0x13, 0}));
  EXPECT_EQ(l.encode_gemm_uop({3, 5, 7}), 3u | (5u << 11) | (7u << 22));
  EXPECT_EQ(l.encode_alu_uop({2047, 2047, 0}), 0x3fffffu);
  EXPECT_EQ(l.decode_gemm_uop(0xffffffffu), (Uop{2047, 2047, 1023}));
}

TEST(IsaLayout, FieldThatWouldCrossBit64StartsAt64) {
  // U = 5: word 0 ends at 47, dst_factor_out (11 bits) still fits below 64, dst_factor_in
  // would cross and moves to 64.
  HwConfig c;
  c.log_uop_buff_size = 7;
  const IsaLayout l(c);
  EXPECT_EQ(l.field(Format::kGemm, Field::kDstFactorOut).lsb, 47);
  EXPECT_EQ(l.field(Format::kGemm, Field::kDstFactorIn).lsb, 64);
  EXPECT_EQ(l.field(Format::kAlu, Field::kImm).lsb, 64 + 11 * 3 + 4);
}

TEST(IsaLayout, EncodeRejectsValuesThatDoNotFit) {
  const IsaLayout l{HwConfig{}};
  Insn i;
  i.opcode = Opcode::kLoad;
  i.y_pad_0 = 16;
  try {
    l.encode(i);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "LOAD: field y_pad_0 = 16 does not fit 4 bits (max 15)");
  }
  Insn a;
  a.opcode = Opcode::kAlu;
  a.imm = 40000;
  try {
    l.encode(a);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "ALU: field imm = 40000 does not fit 16 signed bits [-32768, 32767]");
  }
  EXPECT_THROW(l.encode_gemm_uop({2048, 0, 0}), Error);
}

TEST(IsaLayout, DecodeRejectsUndefinedOpcode) {
  const IsaLayout l{HwConfig{}};
  try {
    l.decode(RawInsn{0x7, 0}, 12);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "instruction 12: undefined opcode 7 (raw 00000000000000000000000000000007); "
                 "valid are LOAD 0, STORE 1, GEMM 2, FINISH 3, ALU 4");
  }
}

TEST(IsaLayout, FieldsNeverOverlapOrCross64) {
  for (const HwConfig& c : testing::random_valid_configs(300, 11)) {
    const IsaLayout l(c);
    for (int f = 0; f < kNumFormats; ++f) {
      int next = 0;
      for (const FieldDesc& d : l.fields(Format(f))) {
        EXPECT_GE(d.lsb, next) << c.name() << " " << d.name;
        EXPECT_GE(d.width, 1) << c.name() << " " << d.name;
        EXPECT_TRUE(d.lsb >= 64 || d.lsb + d.width <= 64) << c.name() << " " << d.name;
        EXPECT_LE(d.lsb + d.width, 128) << c.name() << " " << d.name;
        next = d.lsb + d.width;
      }
    }
    const UopLayout& u = l.uop();
    EXPECT_LE(u.wgt().lsb + u.wgt().width, 32) << c.name();
  }
}

TEST(IsaLayout, RandomEncodeDecodeRoundTrip) {
  std::mt19937_64 rng(7);
  for (const HwConfig& c : testing::random_valid_configs(300, 1)) {
    const IsaLayout l(c);
    for (int k = 0; k < 200; ++k) {
      const Insn insn = testing::random_insn(l, testing::random_opcode(rng), rng);
      const RawInsn raw = l.encode(insn);
      ASSERT_EQ(l.decode(raw), insn) << c.name();
      ASSERT_EQ(l.encode(l.decode(raw)), raw) << c.name();
    }
    for (int k = 0; k < 50; ++k) {
      const UopLayout& u = l.uop();
      const Uop g{uint32_t(rng() >> (64 - u.dst().width)), uint32_t(rng() >> (64 - u.src().width)),
                  uint32_t(rng() >> (64 - u.wgt().width))};
      ASSERT_EQ(l.decode_gemm_uop(l.encode_gemm_uop(g)), g) << c.name();
      const Uop a{g.dst, g.src, 0};
      ASSERT_EQ(l.decode_alu_uop(l.encode_alu_uop(a)), a) << c.name();
    }
  }
}

// Any 128 bits with a defined opcode decode to an instruction that re-encodes to those bits with
// everything outside the fields cleared.
TEST(IsaLayout, RandomRawDecodeIsIdempotent) {
  std::mt19937_64 rng(3);
  for (const HwConfig& c : testing::random_valid_configs(50, 2)) {
    const IsaLayout l(c);
    for (int k = 0; k < 200; ++k) {
      RawInsn raw{rng(), rng()};
      raw.lo = (raw.lo & ~7ull) | uint64_t(testing::random_opcode(rng));
      const Insn insn = l.decode(raw);
      const RawInsn again = l.encode(insn);
      ASSERT_EQ(l.decode(again), insn);
      RawInsn mask;
      for (const FieldDesc& d : l.fields(format_of(insn.opcode))) {
        const uint64_t m = d.width == 64 ? ~0ull : (1ull << d.width) - 1;
        (d.lsb >= 64 ? mask.hi : mask.lo) |= m << (d.lsb % 64);
      }
      ASSERT_EQ(again, (RawInsn{raw.lo & mask.lo, raw.hi & mask.hi}));
    }
  }
}

}  // namespace
}  // namespace tauvta::hw
