// The hazard checker (a token removed is flagged, naming both instructions; the correct program is
// clean) and must-fail programs whose error messages are pinned.
#include <gtest/gtest.h>

#include "common/error.h"
#include "sim/simulator.h"
#include "sim_test_util.h"

namespace tauvta {
namespace {

using hw::MemId;
using hw::Opcode;
using testing::encode_all;
using testing::finish_insn;
using testing::gemm_insn;
using testing::mem_insn;

// LOAD INP -> GEMM -> STORE, synchronized with tokens unless a link is dropped.
std::vector<hw::Insn> load_gemm_store(bool load_token, bool store_token) {
  hw::Insn uop = mem_insn(Opcode::kLoad, MemId::kUop, 0, 0, 1, 1, 1);
  hw::Insn ld = mem_insn(Opcode::kLoad, MemId::kInp, 0, 64, 1, 4, 4);
  ld.push_next = load_token;
  hw::Insn g = gemm_insn(0, 1, 1, 4);
  g.src_factor_in = 1;
  g.dst_factor_in = 1;
  g.pop_prev = load_token;
  g.push_next = store_token;
  hw::Insn st = mem_insn(Opcode::kStore, MemId::kOut, 0, 128, 1, 4, 4);
  st.pop_prev = store_token;
  st.push_prev = true;
  hw::Insn f = finish_insn();
  f.pop_next = true;
  return {uop, ld, g, st, f};
}

sim::RunReport run_checked(const std::vector<hw::Insn>& p) {
  const hw::HwConfig c;
  sim::Dram dram(1 << 20);
  sim::Simulator s(c, dram);
  sim::RunOptions o;
  o.check_hazards = true;
  return s.run(encode_all(c, p), o);
}

TEST(HazardChecker, SynchronizedProgramIsClean) {
  EXPECT_TRUE(run_checked(load_gemm_store(true, true)).hazards.empty());
}

TEST(HazardChecker, MissingLoadTokenIsARawHazard) {
  const sim::RunReport r = run_checked(load_gemm_store(false, true));
  ASSERT_FALSE(r.hazards.empty());
  const sim::Hazard& h = r.hazards.front();
  EXPECT_EQ(h.kind, "RAW");
  EXPECT_EQ(h.memory, "INP");
  EXPECT_EQ(h.first, 1u);
  EXPECT_EQ(h.second, 2u);
  EXPECT_NE(h.message().find("instruction 1 (LOAD"), std::string::npos) << h.message();
  EXPECT_NE(h.message().find("instruction 2 (GEMM"), std::string::npos) << h.message();
}

TEST(HazardChecker, MissingStoreTokenIsARawHazardOnOut) {
  const sim::RunReport r = run_checked(load_gemm_store(true, false));
  ASSERT_FALSE(r.hazards.empty());
  EXPECT_EQ(r.hazards.front().kind, "RAW");
  EXPECT_EQ(r.hazards.front().memory, "OUT");
  EXPECT_EQ(r.hazards.front().second, 3u);
}

TEST(HazardChecker, ReloadWithoutWaitingForComputeIsAWarHazard) {
  std::vector<hw::Insn> p = load_gemm_store(true, true);
  // A second load into the INP rows the GEMM reads, after it in program order but without waiting
  // for a compute->load token: it may overwrite them before the GEMM has read them.
  hw::Insn again = mem_insn(Opcode::kLoad, MemId::kInp, 0, 64, 1, 4, 4);
  p.insert(p.begin() + 3, again);
  const sim::RunReport bad = run_checked(p);
  ASSERT_FALSE(bad.hazards.empty());
  EXPECT_EQ(bad.hazards.front().kind, "WAR");
  EXPECT_EQ(bad.hazards.front().first, 2u);
  EXPECT_EQ(bad.hazards.front().second, 3u);
  // With the token (GEMM pushes g2l, the reload pops it) the program is clean.
  p[2].push_prev = true;
  p[3].pop_next = true;
  EXPECT_TRUE(run_checked(p).hazards.empty());
}

// ------------------------------------------------------------------ must-fail programs
std::string error_of(const hw::HwConfig& c, const std::vector<hw::RawInsn>& program,
                     bool timing_only = false) {
  sim::Dram dram(1 << 20);
  sim::Simulator s(c, dram);
  sim::RunOptions o;
  o.timing_only = timing_only;
  try {
    s.run(program, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string error_of(const std::vector<hw::Insn>& p) {
  const hw::HwConfig c;
  return error_of(c, encode_all(c, p));
}

TEST(SimErrors, ProgramWithoutFinish) {
  EXPECT_EQ(error_of({mem_insn(Opcode::kLoad, MemId::kInp, 0, 0, 1, 1, 1)}),
            "program ends without FINISH: 1 instructions, the last is instruction 0 (LOAD INP "
            "sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1 y_pad=0,0 x_pad=0,0 deps=none)")
      << "disassembly format changed?";
}

TEST(SimErrors, InstructionAfterFinish) {
  const std::string m = error_of({finish_insn(), finish_insn()});
  EXPECT_NE(m.find("instruction 1 (FINISH"), std::string::npos) << m;
  EXPECT_NE(m.find("follows FINISH (instruction 0)"), std::string::npos) << m;
}

TEST(SimErrors, UndefinedOpcode) {
  const hw::HwConfig c;
  std::vector<hw::RawInsn> p = encode_all(c, {finish_insn()});
  p.insert(p.begin(), hw::RawInsn{5, 0});
  EXPECT_EQ(error_of(c, p).rfind("instruction 0: undefined opcode 5", 0), 0u) << error_of(c, p);
}

TEST(SimErrors, SramRangePastTheBuffer) {
  const std::string m = error_of({mem_insn(Opcode::kLoad, MemId::kInp, 2047, 0, 1, 2, 2), finish_insn()});
  EXPECT_NE(m.find("instruction 0 (LOAD INP"), std::string::npos) << m;
  EXPECT_NE(m.find("sram_base = 2047 plus 2 elements reaches element 2048, past the INP buffer "
                   "(depth 2048)"),
            std::string::npos)
      << m;
}

TEST(SimErrors, DramAddressPastTheEnd) {
  const std::string m =
      error_of({mem_insn(Opcode::kLoad, MemId::kWgt, 0, 1u << 20, 1, 1, 1), finish_insn()});
  EXPECT_NE(m.find("instruction 0 (LOAD WGT"), std::string::npos) << m;
  EXPECT_NE(m.find("past the end of DRAM"), std::string::npos) << m;
}

TEST(SimErrors, UopEndPastTheMicroOpBuffer) {
  const std::string m = error_of({gemm_insn(0, 8193, 1, 1), finish_insn()});
  EXPECT_NE(m.find("uop_end = 8193 is past the micro-op buffer (depth 8192)"), std::string::npos)
      << m;
}

TEST(SimErrors, GemmIndexPastTheAccumulator) {
  hw::Insn g = gemm_insn(0, 1, 2, 1);
  g.dst_factor_out = 2047;  // o = 1 reaches accumulator element 2047; fine
  EXPECT_EQ(error_of({mem_insn(Opcode::kLoad, MemId::kUop, 0, 0, 1, 1, 1), g, finish_insn()}),
            "no error");
  g.iter_out = 3;  // o = 2 reaches 4094: past the buffer, inside the 12-bit index register
  const std::string m = error_of({mem_insn(Opcode::kLoad, MemId::kUop, 0, 0, 1, 1, 1), g, finish_insn()});
  EXPECT_NE(m.find("instruction 1 (GEMM"), std::string::npos) << m;
  EXPECT_NE(m.find("dst index 4094 is past the accumulator buffer (depth 2048): micro-op 0 has "
                   "acc_idx = 0, at iter_out 2 x dst_factor_out 2047"),
            std::string::npos)
      << m;
}

TEST(SimErrors, MulSwitchedOff) {
  hw::HwConfig c;
  c.impl.alu_mul = false;
  hw::Insn a;
  a.opcode = Opcode::kAlu;
  a.alu_opcode = uint8_t(hw::AluOp::kMul);
  a.uop_end = 1;
  a.iter_out = a.iter_in = 1;
  const std::string m = error_of(c, encode_all(c, {a, finish_insn()}));
  EXPECT_NE(m.find("alu_opcode = 4 (MUL) is switched off in this config"), std::string::npos) << m;
}

TEST(SimErrors, UndefinedAluOpcode) {
  hw::Insn a;
  a.opcode = Opcode::kAlu;
  a.alu_opcode = 6;
  a.uop_end = 1;
  a.iter_out = a.iter_in = 1;
  const std::string m = error_of({a, finish_insn()});
  EXPECT_NE(m.find("alu_opcode = 6 is undefined (MIN 0, MAX 1, ADD 2, SHR 3, MUL 4)"),
            std::string::npos)
      << m;
}

TEST(SimErrors, HazardCheckNeedsAFullRun) {
  const hw::HwConfig c;
  sim::Dram dram(1 << 20);
  sim::Simulator s(c, dram);
  sim::RunOptions o;
  o.timing_only = true;
  o.check_hazards = true;
  EXPECT_THROW(s.run(encode_all(c, {finish_insn()}), o), Error);
}

TEST(SimErrors, FullTokenQueueNobodyDrainsIsADeadlock) {
  std::vector<hw::Insn> p;
  for (int k = 0; k < 9; ++k) {
    hw::Insn ld = mem_insn(Opcode::kLoad, MemId::kInp, 0, 0, 1, 1, 1);
    ld.push_next = true;
    p.push_back(ld);
  }
  p.push_back(finish_insn());
  const std::string m = error_of(p);
  EXPECT_NE(m.find("load instruction 8"), std::string::npos) << m;
  EXPECT_NE(m.find("cannot push into full token queue l2g (load->compute)"), std::string::npos) << m;
}

}  // namespace
}  // namespace tauvta
