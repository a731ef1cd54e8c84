// CommandBuilder: dependency flag placement, no-op insertion, synchronize, automatic flush,
// argument checks and dumps.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "runtime/command_builder.h"
#include "runtime/device.h"
#include "runtime/uop_kernel.h"

namespace tauvta::runtime {
namespace {

using hw::MemId;
using hw::Module;
using hw::Opcode;

constexpr Module L = Module::kLoad, C = Module::kCompute, S = Module::kStore;

bool is_noop(const hw::Insn& i, Module m) {
  return hw::module_of(i) == m && i.is_mem() && i.x_size == 0 && i.y_size == 0;
}

class CommandBuilderTest : public ::testing::Test {
 protected:
  CommandBuilderTest() : dev_(hw::HwConfig{}, 64 << 20) {
    inp_ = dev_.alloc_elems(MemId::kInp, 64);
    out_ = dev_.alloc_elems(MemId::kOut, 64);
  }
  UopKernel one_gemm_uop() { return UopKernelBuilder(UopKind::kGemm).push(0, 0, 0).build(); }

  Device dev_;
  DramBuffer inp_, out_;
};

TEST_F(CommandBuilderTest, PushGoesOnLastInstructionOfModule) {
  CommandBuilder cb(dev_);
  cb.load_2d(MemId::kInp, 0, inp_, 0, 4, 1, 4);  // 0: load
  cb.gemm(one_gemm_uop());                        // 1: LOAD UOP (miss), 2: GEMM
  cb.dep_push(L, C);  // the load is not the last instruction, but it is the load module's last
  ASSERT_EQ(cb.pending().size(), 3u);
  EXPECT_TRUE(cb.pending()[0].push_next);
  EXPECT_EQ(cb.tokens(TokenQueue::kL2G), 1);
  cb.dep_push(L, C);  // flag already taken: a load no-op carries the second token
  ASSERT_EQ(cb.pending().size(), 4u);
  EXPECT_TRUE(is_noop(cb.pending()[3], L));
  EXPECT_TRUE(cb.pending()[3].push_next);
  EXPECT_EQ(cb.tokens(TokenQueue::kL2G), 2);
  cb.dep_push(C, S);  // compute's last instruction is the GEMM
  EXPECT_TRUE(cb.pending()[2].push_next);
  EXPECT_FALSE(cb.pending()[2].push_prev);
  cb.dep_push(C, L);
  EXPECT_TRUE(cb.pending()[2].push_prev);
  EXPECT_EQ(cb.pending().size(), 4u);
}

TEST_F(CommandBuilderTest, PushWithoutInstructionInsertsNoop) {
  CommandBuilder cb(dev_);
  cb.dep_push(S, C);
  cb.dep_push(C, L);
  ASSERT_EQ(cb.pending().size(), 2u);
  EXPECT_TRUE(is_noop(cb.pending()[0], S));
  EXPECT_EQ(cb.pending()[0].opcode, Opcode::kStore);
  EXPECT_TRUE(cb.pending()[0].push_prev);
  EXPECT_TRUE(is_noop(cb.pending()[1], C));
  EXPECT_EQ(cb.pending()[1].opcode, Opcode::kLoad);
  EXPECT_EQ(cb.pending()[1].memory_type, uint8_t(MemId::kUop));
  EXPECT_TRUE(cb.pending()[1].push_prev);
  EXPECT_EQ(cb.tokens(TokenQueue::kS2G), 1);
  EXPECT_EQ(cb.tokens(TokenQueue::kG2L), 1);
  // Take them back so the stream balances.
  cb.dep_pop(S, C);
  cb.dep_pop(C, L);
  EXPECT_TRUE(cb.balanced());
  cb.synchronize();
}

TEST_F(CommandBuilderTest, PopGoesOnNextInstructionOfModule) {
  CommandBuilder cb(dev_);
  cb.load_2d(MemId::kInp, 0, inp_, 0, 4, 1, 4);
  cb.dep_push(L, C);
  cb.dep_pop(L, C);                                // pending on compute
  cb.load_2d(MemId::kInp, 4, inp_, 4, 4, 1, 4);   // a load: does not take it
  cb.store_2d(0, out_, 0, 1, 1, 1);               // a store: does not take it
  cb.gemm(one_gemm_uop());                         // the LOAD UOP (compute) takes it
  const auto p = cb.pending();
  ASSERT_EQ(p.size(), 5u);
  EXPECT_FALSE(p[1].pop_prev || p[1].pop_next);
  EXPECT_FALSE(p[2].pop_prev || p[2].pop_next);
  EXPECT_EQ(p[3].memory_type, uint8_t(MemId::kUop));
  EXPECT_TRUE(p[3].pop_prev);
  EXPECT_FALSE(p[4].pop_prev);
  EXPECT_TRUE(cb.balanced());
  cb.synchronize();
}

TEST_F(CommandBuilderTest, SecondPopOfSameQueueCommitsNoop) {
  CommandBuilder cb(dev_);
  cb.dep_push(C, L);
  cb.dep_push(C, L);
  cb.dep_pop(C, L);
  cb.dep_pop(C, L);  // the first pending pop becomes a load no-op
  cb.load_2d(MemId::kInp, 0, inp_, 0, 4, 1, 4);
  const auto p = cb.pending();
  ASSERT_EQ(p.size(), 4u);  // compute no-op, compute no-op, load no-op, load
  EXPECT_TRUE(is_noop(p[2], L));
  EXPECT_TRUE(p[2].pop_next);
  EXPECT_TRUE(p[3].pop_next);
  EXPECT_EQ(p[3].x_size, 4u);
  EXPECT_TRUE(cb.balanced());
  cb.synchronize();
}

TEST_F(CommandBuilderTest, PushCommitsPendingPopFirst) {
  CommandBuilder cb(dev_);
  cb.gemm(one_gemm_uop());
  cb.dep_push(C, L);
  cb.dep_pop(C, L);  // pending on load
  cb.dep_push(L, C);  // VTA: the pop is committed as a no-op, which then carries the push
  const auto p = cb.pending();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_TRUE(is_noop(p[2], L));
  EXPECT_TRUE(p[2].pop_next);
  EXPECT_TRUE(p[2].push_next);
  cb.dep_pop(L, C);
  cb.synchronize();
}

TEST_F(CommandBuilderTest, SynchronizeClosesStreamVtaStyle) {
  CommandBuilder cb(dev_);
  std::vector<uint8_t> bytes(64 * 16, 3);
  inp_.copy_in(bytes);
  cb.load_2d(MemId::kInp, 0, inp_, 0, 4, 1, 4);
  cb.dep_push(L, C);
  cb.dep_pop(L, C);
  cb.gemm(one_gemm_uop(), true);
  cb.dep_push(C, S);
  cb.dep_pop(C, S);
  cb.store_2d(0, out_, 0, 1, 1, 1);
  const sim::RunReport r = cb.synchronize();
  EXPECT_GT(r.cycles, 0u);
  EXPECT_TRUE(cb.pending().empty());
  const auto& prog = cb.last_program();
  ASSERT_GE(prog.size(), 3u);
  EXPECT_EQ(prog.back().opcode, Opcode::kFinish);
  EXPECT_FALSE(prog.back().pop_prev || prog.back().pop_next);
  // The compute no-op before FINISH takes the store's and the load's final tokens.
  const hw::Insn& last_compute = prog[prog.size() - 2];
  EXPECT_TRUE(is_noop(last_compute, C));
  EXPECT_TRUE(last_compute.pop_prev);
  EXPECT_TRUE(last_compute.pop_next);
  EXPECT_EQ(r.insns, prog.size());
  EXPECT_EQ(cb.runs(), 1u);
  // An empty stream runs nothing.
  EXPECT_EQ(cb.synchronize().cycles, 0u);
  EXPECT_EQ(cb.runs(), 1u);
}

TEST_F(CommandBuilderTest, ComputeOnlyStreamNeedsNoHandBack) {
  CommandBuilder cb(dev_);
  cb.gemm(one_gemm_uop(), true);
  cb.synchronize();
  const auto& prog = cb.last_program();
  ASSERT_EQ(prog.size(), 3u);  // LOAD UOP, GEMM, FINISH
  EXPECT_EQ(prog[1].opcode, Opcode::kGemm);
  EXPECT_EQ(prog[2].opcode, Opcode::kFinish);
}

TEST_F(CommandBuilderTest, UnbalancedStreamIsAnError) {
  CommandBuilder cb(dev_);
  cb.load_2d(MemId::kInp, 0, inp_, 0, 4, 1, 4);
  cb.dep_push(L, C);
  cb.dep_push(L, C);
  cb.dep_pop(L, C);
  try {
    cb.synchronize();
    FAIL() << "expected an unbalanced-token error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("l2g"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(cb.pending().empty());  // the stream was dropped
}

TEST_F(CommandBuilderTest, NonAdjacentModulesRejected) {
  CommandBuilder cb(dev_);
  EXPECT_THROW(cb.dep_push(L, S), Error);
  EXPECT_THROW(cb.dep_pop(S, L), Error);
  EXPECT_THROW(cb.dep_push(C, C), Error);
}

TEST_F(CommandBuilderTest, ArgumentChecks) {
  CommandBuilder cb(dev_);
  // DRAM range past the buffer (64 INP elements).
  EXPECT_THROW(cb.load_2d(MemId::kInp, 0, inp_, 60, 8, 1, 8), Error);
  EXPECT_THROW(cb.load_2d(MemId::kInp, 0, inp_, 0, 8, 9, 8), Error);
  // SRAM range past the INP buffer (2048 elements), padding included.
  EXPECT_THROW(cb.load_2d(MemId::kInp, 2047, inp_, 0, 2, 1, 2), Error);
  EXPECT_THROW(cb.load_2d(MemId::kInp, 2046, inp_, 0, 1, 1, 1, Pad2D{0, 0, 1, 1}), Error);
  EXPECT_NO_THROW(cb.load_2d(MemId::kInp, 2045, inp_, 0, 1, 1, 1, Pad2D{0, 0, 1, 1}));
  // WGT has no padding; OUT cannot be loaded.
  DramBuffer wgt = dev_.alloc_elems(MemId::kWgt, 4);
  EXPECT_THROW(cb.load_2d(MemId::kWgt, 0, wgt, 0, 1, 1, 1, Pad2D{1, 0, 0, 0}), Error);
  EXPECT_THROW(cb.load_2d(MemId::kOut, 0, out_, 0, 1, 1, 1), Error);
  // Stores.
  EXPECT_THROW(cb.store_2d(0, out_, 63, 2, 1, 2), Error);
  EXPECT_THROW(cb.store_2d(2047, out_, 0, 2, 1, 2), Error);
  // Kernels.
  UopKernel alu = UopKernelBuilder(UopKind::kAlu).push(0, 1).build();
  EXPECT_THROW(cb.gemm(alu), Error);
  EXPECT_THROW(cb.alu(one_gemm_uop(), hw::AluOp::kAdd), Error);
  EXPECT_THROW(cb.alu(alu, hw::AluOp::kAdd, true, 40000), Error);
  // A micro-op index too wide for its field (ACC depth 2048 -> 11 bits).
  EXPECT_THROW(cb.gemm(UopKernelBuilder(UopKind::kGemm).push(4096, 0, 0).build()), Error);
}

TEST_F(CommandBuilderTest, OnlyOneBuilderPerDevice) {
  CommandBuilder a(dev_);
  EXPECT_THROW(CommandBuilder b(dev_), Error);
}

TEST_F(CommandBuilderTest, AutoFlushAtBalancedPoints) {
  CommandBuilderOptions o;
  o.max_insns = 10;
  CommandBuilder cb(dev_, o);
  // 12 load->compute hand-offs of 2 instructions each (after the first kernel load).
  for (int i = 0; i < 12; ++i) {
    cb.load_2d(MemId::kInp, 0, inp_, 0, 4, 1, 4);
    cb.dep_push(L, C);
    cb.dep_pop(L, C);
    cb.gemm(one_gemm_uop());
    cb.dep_push(C, L);
    cb.dep_pop(C, L);
  }
  EXPECT_GE(cb.auto_flushes(), 2u);
  EXPECT_LE(cb.pending().size(), 10u);
  cb.synchronize();
  EXPECT_EQ(cb.runs(), cb.auto_flushes() + 1);
  EXPECT_EQ(cb.total_report().insns, cb.insns_run());
}

TEST_F(CommandBuilderTest, AutoFlushWaitsForBalance) {
  CommandBuilderOptions o;
  o.max_insns = 4;
  CommandBuilder cb(dev_, o);
  // Two credits: one stays outstanding in g2l at every point of the loop.
  cb.dep_push(C, L);
  cb.dep_push(C, L);
  for (int i = 0; i < 10; ++i) {
    cb.dep_pop(C, L);
    cb.load_2d(MemId::kInp, 0, inp_, 0, 4, 1, 4);
    cb.dep_push(L, C);
    cb.dep_pop(L, C);
    cb.gemm(one_gemm_uop());
    cb.dep_push(C, L);
  }
  EXPECT_EQ(cb.auto_flushes(), 0u);
  EXPECT_GT(cb.pending().size(), 20u);
  EXPECT_EQ(cb.tokens(TokenQueue::kG2L), 2);
  cb.dep_pop(C, L);
  EXPECT_EQ(cb.auto_flushes(), 0u);
  cb.dep_pop(C, L);  // balanced now, and over the limit: flushes
  EXPECT_EQ(cb.auto_flushes(), 1u);
  EXPECT_TRUE(cb.pending().empty());
  EXPECT_EQ(cb.runs(), 1u);
}

TEST_F(CommandBuilderTest, Dumps) {
  CommandBuilder cb(dev_);
  cb.load_2d(MemId::kInp, 0, inp_, 2, 4, 1, 4);
  cb.gemm(UopKernelBuilder(UopKind::kGemm).loop_begin(2, 1, 1, 1).push(3, 5, 7).loop_end().build());
  const std::string text = CommandBuilder::format_program(cb.pending());
  EXPECT_NE(text.find("0000: LOAD INP"), std::string::npos) << text;
  EXPECT_NE(text.find("0002: GEMM"), std::string::npos) << text;
  const std::string uops = cb.format_uop_loads(cb.pending_uop_loads());
  EXPECT_NE(uops.find("acc=3 inp=5 wgt=7"), std::string::npos) << uops;
  cb.synchronize();
  EXPECT_NE(CommandBuilder::format_program(cb.last_program()).find("FINISH"), std::string::npos);
  EXPECT_EQ(cb.last_uop_loads().size(), 1u);
}

}  // namespace
}  // namespace tauvta::runtime
