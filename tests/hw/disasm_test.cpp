// Disassembler and assembler: exact text for each form, golden disassembly of a small program,
// disasm -> asm round trips over random configs, and the errors the assembler gives.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "hw/disasm.h"
#include "hw_test_util.h"

namespace tauvta::hw {
namespace {

Insn load(MemId mem, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride) {
  Insn i;
  i.opcode = Opcode::kLoad;
  i.memory_type = uint8_t(mem);
  i.sram_base = sram;
  i.dram_base = dram;
  i.y_size = y;
  i.x_size = x;
  i.x_stride = stride;
  return i;
}

Insn loop_insn(Opcode op, uint32_t bgn, uint32_t end, uint32_t iter_out, uint32_t iter_in) {
  Insn i;
  i.opcode = op;
  i.uop_bgn = bgn;
  i.uop_end = end;
  i.iter_out = iter_out;
  i.iter_in = iter_in;
  return i;
}

TEST(Disasm, LoadLine) {
  Insn i = load(MemId::kInp, 4, 73728, 2, 3, 5);
  i.y_pad_0 = 1;
  i.y_pad_1 = 2;
  i.x_pad_0 = 2;
  i.x_pad_1 = 1;
  i.pop_next = i.push_next = true;
  EXPECT_EQ(disassemble(i),
            "LOAD INP sram_base=4 dram_base=73728 y_size=2 x_size=3 x_stride=5 y_pad=1,2 "
            "x_pad=2,1 deps=pop_next+push_next");
  i.opcode = Opcode::kStore;
  i.memory_type = 7;
  i.pop_next = i.push_next = false;
  EXPECT_EQ(disassemble(i),
            "STORE mem=7 sram_base=4 dram_base=73728 y_size=2 x_size=3 x_stride=5 y_pad=1,2 "
            "x_pad=2,1 deps=none");
}

TEST(Disasm, GemmAluFinishLines) {
  Insn g = loop_insn(Opcode::kGemm, 0, 16, 4, 8);
  g.dst_factor_out = 16;
  g.dst_factor_in = 1;
  g.src_factor_in = 1;
  g.pop_prev = true;
  EXPECT_EQ(disassemble(g),
            "GEMM reset=0 uop=0:16 iter=4x8 dst=16,1 src=0,1 wgt=0,0 deps=pop_prev");
  Insn a = loop_insn(Opcode::kAlu, 16, 17, 1, 64);
  a.dst_factor_in = 1;
  a.alu_opcode = uint8_t(AluOp::kMax);
  a.use_imm = true;
  a.imm = -128;
  EXPECT_EQ(disassemble(a),
            "ALU MAX imm=-128 reset=0 uop=16:17 iter=1x64 dst=0,1 src=0,0 deps=none");
  a.use_imm = false;
  a.imm = 0;
  a.alu_opcode = uint8_t(AluOp::kAdd);
  a.src_factor_in = 1;
  EXPECT_EQ(disassemble(a), "ALU ADD tensor reset=0 uop=16:17 iter=1x64 dst=0,1 src=0,1 deps=none");
  a.imm = 5;
  a.alu_opcode = 6;
  EXPECT_EQ(disassemble(a),
            "ALU alu=6 tensor unused_imm=5 reset=0 uop=16:17 iter=1x64 dst=0,1 src=0,1 deps=none");
  Insn f;
  f.opcode = Opcode::kFinish;
  f.pop_prev = f.pop_next = f.push_prev = f.push_next = true;
  EXPECT_EQ(disassemble(f), "FINISH deps=pop_prev+pop_next+push_prev+push_next");
  EXPECT_EQ(disassemble_gemm_uop({3, 5, 7}), "GEMM_UOP acc=3 inp=5 wgt=7");
  EXPECT_EQ(disassemble_alu_uop({3, 5, 0}), "ALU_UOP dst=3 src=5");
}

// A 16x16 matrix-vector product with a ReLU-like clip: the shape of what the runtime emits.
std::vector<Insn> sample_program() {
  std::vector<Insn> p;
  p.push_back(load(MemId::kUop, 0, 4096, 1, 3, 3));
  Insn reset = loop_insn(Opcode::kGemm, 0, 1, 1, 1);
  reset.reset = true;
  p.push_back(reset);
  Insn inp = load(MemId::kInp, 0, 8192, 1, 1, 1);
  inp.y_pad_0 = 0;
  inp.x_pad_1 = 1;
  p.push_back(inp);
  Insn wgt = load(MemId::kWgt, 0, 1024, 1, 1, 1);
  wgt.push_next = true;
  p.push_back(wgt);
  Insn gemm = loop_insn(Opcode::kGemm, 1, 2, 1, 1);
  gemm.pop_prev = true;
  p.push_back(gemm);
  Insn clip_lo = loop_insn(Opcode::kAlu, 2, 3, 1, 1);
  clip_lo.alu_opcode = uint8_t(AluOp::kMax);
  clip_lo.use_imm = true;
  clip_lo.imm = 0;
  p.push_back(clip_lo);
  Insn clip_hi = clip_lo;
  clip_hi.alu_opcode = uint8_t(AluOp::kMin);
  clip_hi.imm = 127;
  p.push_back(clip_hi);
  Insn shr = clip_lo;
  shr.alu_opcode = uint8_t(AluOp::kShr);
  shr.use_imm = false;
  shr.push_next = true;
  p.push_back(shr);
  Insn store = load(MemId::kOut, 0, 16384, 1, 1, 1);
  store.opcode = Opcode::kStore;
  store.pop_prev = store.push_prev = true;
  p.push_back(store);
  Insn finish;
  finish.opcode = Opcode::kFinish;
  finish.pop_next = true;
  p.push_back(finish);
  return p;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Disasm, GoldenDefaultProgram) {
  const IsaLayout l{HwConfig{}};
  std::vector<RawInsn> raw;
  for (const Insn& i : sample_program()) raw.push_back(l.encode(i));
  std::string text = "# sample program for 1x16_i8w8a32_15_15_18_17\n";
  text += disassemble_program(l, raw);
  text += "# micro-ops\n";
  const std::vector<Uop> uops = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  text += "0000: " + disassemble_gemm_uop(uops[0]) + "\n";
  text += "0001: " + disassemble_gemm_uop(uops[1]) + "\n";
  text += "0002: " + disassemble_alu_uop(uops[2]) + "\n";

  const std::string path = std::string(TAUVTA_SOURCE_DIR) + "/tests/hw/golden/default_program.txt";
  if (const char* u = std::getenv("TAUVTA_UPDATE_GOLDEN"); u != nullptr && std::string(u) == "1") {
    std::ofstream(path) << text;
  }
  EXPECT_EQ(text, read_file(path)) << "rerun with TAUVTA_UPDATE_GOLDEN=1 to rewrite " << path;

  const Assembled a = assemble(l, read_file(path), path);
  EXPECT_EQ(a.insns, raw);
  ASSERT_EQ(a.uops.size(), 3u);
  EXPECT_EQ(a.uops[0], l.encode_gemm_uop(uops[0]));
}

TEST(Disasm, ProgramNotesBitsOutsideFields) {
  const IsaLayout l{HwConfig{}};
  const std::vector<RawInsn> p = {RawInsn{0x3 | (1ull << 40), 0}};
  EXPECT_EQ(disassemble_program(l, p),
            "0000: FINISH deps=none  # raw 0x00000000000000000000010000000003: bits outside the "
            "fields are set (ignored)\n");
}

TEST(Disasm, UndefinedOpcodeNamesInstruction) {
  const IsaLayout l{HwConfig{}};
  const std::vector<RawInsn> p = {RawInsn{0x3, 0}, RawInsn{0x5, 0}};
  EXPECT_THROW(
      {
        try {
          disassemble_program(l, p);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("instruction 1: undefined opcode 5"),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      Error);
}

TEST(Assemble, TolerantOfPrefixesCommentsAndBlankLines) {
  const IsaLayout l{HwConfig{}};
  const std::string text =
      "# header\n"
      "\n"
      "   0000:   FINISH   deps=pop_next   # done\r\n"
      "12:GEMM uop=0:1 iter=1x1\n"
      "LOAD UOP x_size=4\n"
      "ALU ADD imm=0x10\n"
      "GEMM_UOP acc=1 wgt=2\n"
      "ALU_UOP src=3\n";
  const Assembled a = assemble(l, text);
  ASSERT_EQ(a.insns.size(), 4u);
  EXPECT_EQ(a.insns[0], (RawInsn{0x13, 0}));
  const Insn g = l.decode(a.insns[1]);
  EXPECT_EQ(g.opcode, Opcode::kGemm);
  EXPECT_EQ(g.uop_end, 1u);
  EXPECT_EQ(g.iter_in, 1u);
  const Insn ld = l.decode(a.insns[2]);
  EXPECT_EQ(ld.memory_type, uint8_t(MemId::kUop));
  EXPECT_EQ(ld.x_size, 4u);
  const Insn alu = l.decode(a.insns[3]);
  EXPECT_TRUE(alu.use_imm);
  EXPECT_EQ(alu.imm, 16);
  EXPECT_EQ(a.uops, (std::vector<uint32_t>{1u | (2u << 22), 3u << 11}));
}

std::string asm_error(const std::string& text) {
  const IsaLayout l{HwConfig{}};
  try {
    assemble(l, text, "prog.txt");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Assemble, ErrorsNameLineTokenAndField) {
  EXPECT_EQ(asm_error("FINISH\n\nLOAF INP"),
            "prog.txt:3: unknown mnemonic; expected LOAD, STORE, GEMM, FINISH, ALU, GEMM_UOP or "
            "ALU_UOP (at 'LOAF')");
  EXPECT_EQ(asm_error("LOAD INP y_pad=16,0"),
            "prog.txt:1: field y_pad_0 = 16 does not fit 4 bits (max 15) (at 'y_pad=16,0')");
  // Would truncate to 0 in a uint8_t: must be caught before it is stored.
  EXPECT_EQ(asm_error("LOAD INP x_pad=0,256"),
            "prog.txt:1: field x_pad_1 = 256 does not fit 4 bits (max 15) (at 'x_pad=0,256')");
  EXPECT_EQ(asm_error("GEMM uop=0:16384"),
            "prog.txt:1: field uop_end = 16384 does not fit 14 bits (max 16383) (at 'uop=0:16384')");
  EXPECT_EQ(asm_error("LOAD sram_base=1"),
            "prog.txt:1: LOAD needs a memory type (UOP, WGT, INP, ACC, OUT, ACC_8BIT or mem=N) "
            "(at 'LOAD')");
  EXPECT_EQ(asm_error("LOAD INP mem=2"), "prog.txt:1: mem given twice (at 'mem=2')");
  EXPECT_EQ(asm_error("LOAD FOO"),
            "prog.txt:1: unknown memory type; expected UOP, WGT, INP, ACC, OUT, ACC_8BIT or mem=N "
            "(at 'FOO')");
  EXPECT_EQ(asm_error("STORE OUT x_size=-1"),
            "prog.txt:1: '-1' is not a non-negative integer (at 'x_size=-1')");
  EXPECT_EQ(asm_error("GEMM iter=4"),
            "prog.txt:1: iter takes two values separated by 'x' (at 'iter=4')");
  EXPECT_EQ(asm_error("GEMM imm=4"),
            "prog.txt:1: unknown key imm for GEMM; it takes reset=, uop=, iter=, dst=, src=, "
            "wgt=, deps= (at 'imm=4')");
  EXPECT_EQ(asm_error("ALU MAX imm=40000"),
            "prog.txt:1: field imm = 40000 does not fit 16 signed bits [-32768, 32767] (at "
            "'imm=40000')");
  EXPECT_EQ(asm_error("ALU MAX"),
            "prog.txt:1: ALU needs an operand: imm=N or tensor (at 'ALU')");
  EXPECT_EQ(asm_error("ALU imm=3"),
            "prog.txt:1: ALU needs an opcode (MIN, MAX, ADD, SHR, MUL or alu=N) (at 'ALU')");
  EXPECT_EQ(asm_error("ALU MIN tensor imm=3"),
            "prog.txt:1: ALU has both 'tensor' and imm=N; an immediate operand is imm=N alone (at "
            "'ALU')");
  EXPECT_EQ(asm_error("ALU MIN unused_imm=3"),
            "prog.txt:1: unused_imm=N only goes with 'tensor' (at 'ALU')");
  EXPECT_EQ(asm_error("FINISH deps=pop_prev+pull"),
            "prog.txt:1: unknown dependency 'pull'; deps= takes none or pop_prev, pop_next, "
            "push_prev, push_next joined by '+' (at 'deps=pop_prev+pull')");
  EXPECT_EQ(asm_error("GEMM_UOP acc=2048"),
            "prog.txt:1: micro-op field acc_idx = 2048 does not fit 11 bits (max 2047) (at "
            "'acc=2048')");
  EXPECT_EQ(asm_error("ALU_UOP wgt=1"),
            "prog.txt:1: unknown key; ALU_UOP takes dst=, src= (at 'wgt=1')");
  EXPECT_EQ(asm_error("GEMM reset="), "prog.txt:1: reset has no value (at 'reset=')");
}

TEST(Assemble, RandomDisasmAsmRoundTrip) {
  std::mt19937_64 rng(5);
  for (const HwConfig& c : testing::random_valid_configs(300, 4)) {
    const IsaLayout l(c);
    std::vector<RawInsn> program;
    for (int k = 0; k < 100; ++k) {
      program.push_back(l.encode(testing::random_insn(l, testing::random_opcode(rng), rng)));
    }
    const std::string text = disassemble_program(l, program);
    const Assembled a = assemble(l, text);
    ASSERT_EQ(a.insns, program) << c.name() << "\n" << text;
    EXPECT_TRUE(a.uops.empty());

    std::string uop_text;
    std::vector<uint32_t> uops;
    const UopLayout& u = l.uop();
    for (int k = 0; k < 20; ++k) {
      const Uop g{uint32_t(rng() >> (64 - u.dst().width)), uint32_t(rng() >> (64 - u.src().width)),
                  uint32_t(rng() >> (64 - u.wgt().width))};
      uops.push_back(l.encode_gemm_uop(g));
      uop_text += disassemble_gemm_uop(g) + "\n";
      uops.push_back(l.encode_alu_uop({g.dst, g.src, 0}));
      uop_text += disassemble_alu_uop({g.dst, g.src, 0}) + "\n";
    }
    ASSERT_EQ(assemble(l, uop_text).uops, uops) << c.name();
  }
}

// Every value at the top of its field (the widest numbers the text must carry).
TEST(Assemble, AllOnesRoundTrip) {
  for (const HwConfig& c : testing::random_valid_configs(100, 9)) {
    const IsaLayout l(c);
    for (int op = 0; op < kNumOpcodes; ++op) {
      Insn insn;
      for (const FieldDesc& d : l.fields(format_of(Opcode(op)))) {
        IsaLayout::set(insn, d.field, d.field == Field::kOpcode ? uint64_t(op) : ~0ull >> (64 - d.width));
      }
      const RawInsn raw = l.encode(insn);
      ASSERT_EQ(assemble(l, disassemble(insn)).insns, std::vector<RawInsn>{raw})
          << c.name() << ": " << disassemble(insn);
    }
  }
}

}  // namespace
}  // namespace tauvta::hw
