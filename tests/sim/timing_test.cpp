// Timing model: overlap from virtual threads, DRAM-bound programs following bytes/bandwidth,
// token-queue back-pressure, deadlock detection, and timing-only == full-run cycles.
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

// A tiled load -> GEMM -> store pipeline. With `threads` = 2 the loads of tile t+1 go to the other
// SRAM half and only wait for the GEMM of tile t-1 (double buffering); with 1 every stage waits
// for the previous tile.
std::vector<hw::Insn> pipeline(int tiles, int threads) {
  std::vector<hw::Insn> p;
  hw::Insn uop = mem_insn(Opcode::kLoad, MemId::kUop, 0, 0, 1, 1, 1);
  p.push_back(uop);
  for (int t = 0; t < tiles; ++t) {
    const uint32_t half = uint32_t(t % threads);
    hw::Insn ld = mem_insn(Opcode::kLoad, MemId::kInp, half * 1024, 0, 16, 64, 64);
    ld.pop_next = t >= threads;  // the buffer half is free once GEMM t-threads is done
    p.push_back(ld);
    hw::Insn lw = mem_insn(Opcode::kLoad, MemId::kWgt, half * 512, 0, 1, 16, 16);
    lw.push_next = true;
    p.push_back(lw);
    hw::Insn g = gemm_insn(0, 1, 32, 64);
    g.src_factor_out = 32;
    g.src_factor_in = 1;
    g.dst_factor_in = 1;
    g.pop_prev = true;
    g.push_prev = true;
    g.push_next = true;
    g.pop_next = t >= threads;  // output rows free once store t-threads is done
    p.push_back(g);
    hw::Insn st = mem_insn(Opcode::kStore, MemId::kOut, 0, 4096, 1, 64, 64);
    st.pop_prev = true;
    st.push_prev = true;
    p.push_back(st);
  }
  // Drain the store tokens nobody popped, then finish.
  for (int k = 0; k < threads - 1; ++k) {
    hw::Insn nop = gemm_insn(0, 0, 0, 0);
    nop.pop_next = true;
    p.push_back(nop);
  }
  hw::Insn f = finish_insn();
  f.pop_next = true;
  p.push_back(f);
  return p;
}

sim::RunReport run(const hw::HwConfig& c, const std::vector<hw::Insn>& p, bool timing_only) {
  sim::Dram dram(16 << 20);
  sim::Simulator s(c, dram);
  sim::RunOptions o;
  o.timing_only = timing_only;
  return s.run(encode_all(c, p), o);
}

TEST(Timing, TwoVirtualThreadsOverlapLoadAndCompute) {
  const hw::HwConfig c;
  const sim::RunReport one = run(c, pipeline(8, 1), false);
  const sim::RunReport two = run(c, pipeline(8, 2), false);
  EXPECT_EQ(one.macs, two.macs);
  EXPECT_LT(double(two.cycles), 0.8 * double(one.cycles))
      << "1 thread: " << one.cycles << " cycles, 2 threads: " << two.cycles;
  EXPECT_GT(two.gemm_utilization(), one.gemm_utilization());
}

TEST(Timing, TimingOnlyGivesFullRunCycles) {
  const hw::HwConfig c;
  for (int threads : {1, 2}) {
    const sim::RunReport full = run(c, pipeline(6, threads), false);
    const sim::RunReport timing = run(c, pipeline(6, threads), true);
    EXPECT_EQ(full.cycles, timing.cycles);
    EXPECT_EQ(full.insns, timing.insns);
    EXPECT_EQ(full.bytes_stored, timing.bytes_stored);
    for (int m = 0; m < hw::kNumModules; ++m) {
      EXPECT_EQ(full.modules[m].busy_cycles, timing.modules[m].busy_cycles);
    }
  }
}

// 32 loads of one 16 KiB row each: the cycles are the bytes over the bus width plus latency.
std::vector<hw::Insn> dram_bound(int loads) {
  std::vector<hw::Insn> p;
  for (int k = 0; k < loads; ++k) p.push_back(mem_insn(Opcode::kLoad, MemId::kInp, 0, 0, 1, 1024, 1024));
  p.push_back(finish_insn());
  return p;
}

TEST(Timing, DramBoundProgramFollowsBytesOverBandwidth) {
  // Long rows with enough requests in flight to hide the latency: bytes over the port's rate.
  hw::HwConfig c;
  c.timing.dram_bandwidth_gbps = 100;  // the 64-bit bus limits: 8 bytes per cycle
  c.timing.dram_latency_cycles = 32;
  const sim::RunReport r = run(c, dram_bound(32), false);
  const double bytes = 32.0 * 1024 * 16;
  EXPECT_EQ(r.bytes_loaded[size_t(MemId::kInp)], uint64_t(bytes));
  const double ideal = bytes / c.dram_bytes_per_cycle();
  EXPECT_GE(double(r.cycles), ideal);
  EXPECT_LT(double(r.cycles), 1.03 * ideal) << r.cycles << " cycles for " << ideal << " ideal";
  EXPECT_NEAR(r.achieved_bytes_per_cycle(int(MemId::kInp)), 8.0, 0.25);

  hw::HwConfig wide = c;
  wide.timing.log_bus_width = 7;  // 128-bit bus halves the transfer time
  const sim::RunReport w = run(wide, dram_bound(32), false);
  EXPECT_NEAR(double(w.cycles) / double(r.cycles), 0.5, 0.03);

  hw::HwConfig slow_dram = wide;
  slow_dram.timing.dram_bandwidth_gbps = 0.8;  // 8 bytes per cycle at 100 MHz: DRAM-limited
  const sim::RunReport d = run(slow_dram, dram_bound(32), false);
  EXPECT_NEAR(double(d.cycles) / double(r.cycles), 1.0, 0.03);

  // The calibrated Pynq port sustains 0.4 GB/s: 4 bytes per cycle at 100 MHz.
  const sim::RunReport p = run(hw::HwConfig{}, dram_bound(32), false);
  EXPECT_NEAR(double(p.cycles) / (bytes / 4.0), 1.0, 0.03);
}

TEST(Timing, SharedBusSerializesTransfersOfDifferentModules) {
  const hw::HwConfig c;
  // A load (load module) and an ACC load (compute module), independent: together they take about
  // the sum of their transfer times, not the maximum, because the bus is shared.
  std::vector<hw::Insn> p = {mem_insn(Opcode::kLoad, MemId::kInp, 0, 0, 1, 1024, 1024),
                             mem_insn(Opcode::kLoad, MemId::kAcc, 0, 0, 1, 256, 256), finish_insn()};
  const sim::RunReport r = run(c, p, false);
  const double beats = (1024.0 * 16 + 256.0 * 64) / 8;
  EXPECT_GE(double(r.cycles), beats);
  EXPECT_GT(r.modules[size_t(hw::Module::kCompute)].stall_dram_cycles +
                r.modules[size_t(hw::Module::kLoad)].stall_dram_cycles,
            0u);
}

TEST(Timing, FullTokenQueueStallsThePusher) {
  auto program = [] {
    std::vector<hw::Insn> p;
    p.push_back(mem_insn(Opcode::kLoad, MemId::kUop, 0, 0, 1, 1, 1));
    p.push_back(gemm_insn(0, 1, 64, 64));  // long GEMM before compute pops anything
    for (int k = 0; k < 12; ++k) {
      hw::Insn ld = mem_insn(Opcode::kLoad, MemId::kInp, 0, 0, 1, 1, 1);
      ld.push_next = true;
      p.push_back(ld);
      hw::Insn g = gemm_insn(0, 1, 1, 1);
      g.pop_prev = true;
      p.push_back(g);
    }
    p.push_back(finish_insn());
    return p;
  };
  hw::HwConfig c;
  const sim::RunReport r = run(c, program(), false);
  EXPECT_GT(r.modules[size_t(hw::Module::kLoad)].stall_queue_cycles, 0u);
  c.timing.token_queue_depth = 16;
  const sim::RunReport deep = run(c, program(), false);
  EXPECT_EQ(deep.modules[size_t(hw::Module::kLoad)].stall_queue_cycles, 0u);
}

TEST(Timing, GemmCyclesAreOneMicroOpPerCycle) {
  hw::HwConfig c;
  std::vector<hw::Insn> p = {mem_insn(Opcode::kLoad, MemId::kUop, 0, 0, 1, 4, 4),
                             gemm_insn(0, 4, 10, 25), finish_insn()};
  const sim::RunReport r = run(c, p, false);
  EXPECT_EQ(r.gemm_uops, 1000u);
  EXPECT_EQ(r.macs, 1000u * 256);
  const uint64_t compute = r.modules[size_t(hw::Module::kCompute)].busy_cycles;
  // 1000 micro-ops + pipeline fill + the UOP load and issue overheads.
  EXPECT_GE(compute, 1000u + uint64_t(c.timing.gemm_pipeline_depth));
  EXPECT_LT(compute, 1000u + 100);
}

TEST(Timing, DeadlockNamesTheBlockedInstruction) {
  const hw::HwConfig c;
  hw::Insn g = gemm_insn(0, 0, 0, 0);
  g.pop_prev = true;  // no load ever pushes l2g
  try {
    run(c, {g, finish_insn()}, true);
    FAIL() << "expected a deadlock error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
    EXPECT_NE(m.find("compute instruction 0"), std::string::npos) << m;
    EXPECT_NE(m.find("pops token #1 of l2g (load->compute) but the program pushes only 0"),
              std::string::npos)
        << m;
  }
}

}  // namespace
}  // namespace tauvta
