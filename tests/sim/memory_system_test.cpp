// The memory system under the timing model: bursts split at the maximum burst length and at
// 4 KiB boundaries, the outstanding-request limit, rows one after another, the shared port's
// read and write channels, and the idle-port row cost the schedule estimators use.
#include "sim/memory_system.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sim/timing_model.h"
#include "sim_test_util.h"

namespace tauvta {
namespace {

using sim::MemorySystem;
using sim::PortChannel;
using sim::TransferResult;

// A port with round numbers: 64-bit bus at 8 bytes per cycle (the DRAM never limits), bursts of
// 16 beats (128 bytes), latency 100 both ways, no per-burst or per-row overhead.
hw::HwConfig port(int outstanding, int latency = 100) {
  hw::HwConfig c;
  c.timing.log_bus_width = 6;
  c.timing.dram_bandwidth_gbps = 100;
  c.timing.dram_latency_cycles = latency;
  c.timing.write_latency_cycles = latency;
  c.timing.max_burst_beats = 16;
  c.timing.master_outstanding = 16;
  c.timing.port_read_acceptance = outstanding;
  c.timing.port_write_acceptance = outstanding;
  c.timing.burst_overhead_cycles = 0;
  c.timing.row_overhead_cycles = 0;
  return c;
}

TEST(MemorySystem, RowsSplitIntoBurstsAtTheMaximumLength) {
  MemorySystem m(port(16));
  const TransferResult r = m.transfer(0, 0, 1, 1000, 1000, false);
  EXPECT_EQ(r.bursts, 8u);  // 7 of 128 bytes and one of 104
  EXPECT_EQ(r.port_cycles, 7u * 16 + 13);
  // All requested back to back: the first data after the latency, then the port streams.
  EXPECT_EQ(r.end, 100u + 7 * 16 + 13);
}

TEST(MemorySystem, BurstsNeverCrossA4KiBBoundary) {
  MemorySystem aligned(port(16)), crossing(port(16));
  EXPECT_EQ(aligned.transfer(0, 0, 1, 256, 256, false).bursts, 2u);
  // 64 bytes up to the boundary, then 128 and 64 after it.
  EXPECT_EQ(crossing.transfer(0, 4096 - 64, 1, 256, 256, false).bursts, 3u);
}

TEST(MemorySystem, UnalignedStartCostsAnExtraBeat) {
  MemorySystem aligned(port(16)), unaligned(port(16));
  EXPECT_EQ(aligned.transfer(0, 0, 1, 64, 64, false).port_cycles, 8u);
  EXPECT_EQ(unaligned.transfer(0, 4, 1, 64, 64, false).port_cycles, 9u);
}

TEST(MemorySystem, OutstandingLimitMakesLongRowsLatencyBound) {
  // 16 bursts of 16 beats. One request in flight: each burst waits for the previous one's data.
  const uint64_t one = MemorySystem(port(1)).transfer(0, 0, 1, 2048, 2048, false).end;
  EXPECT_EQ(one, 16u * (100 + 16));
  // Enough in flight to cover the latency: the port streams after the first latency.
  const uint64_t many = MemorySystem(port(16)).transfer(0, 0, 1, 2048, 2048, false).end;
  EXPECT_EQ(many, 100u + 16 * 16);
  // Four in flight: a window of four bursts per round trip, between the two.
  const uint64_t four = MemorySystem(port(4)).transfer(0, 0, 1, 2048, 2048, false).end;
  EXPECT_GT(four, many);
  EXPECT_LT(four, one);
  EXPECT_EQ(four, 4u * (100 + 16) + 3 * 16);  // the last window's three later bursts stream
}

TEST(MemorySystem, RowsOfOneTransferFollowEachOther) {
  // One memcpy per row: the next row's first request waits for the previous row's last beat.
  MemorySystem m(port(16));
  const TransferResult r = m.transfer(0, 0, 3, 128, 4096, false);
  EXPECT_EQ(r.bursts, 3u);
  EXPECT_EQ(r.end, 3u * (100 + 16));
}

TEST(MemorySystem, WritesCompleteWhenTheirResponseReturns) {
  MemorySystem m(port(16, 40));
  // Data leaves with the request (16 beats), the response comes 40 cycles after the last beat.
  EXPECT_EQ(m.transfer(0, 0, 1, 128, 128, true).end, 16u + 40);
}

TEST(MemorySystem, TransfersOnTheSameChannelShareIt) {
  MemorySystem m(port(16));
  const TransferResult a = m.transfer(0, 0, 1, 4096, 4096, false);
  const TransferResult b = m.transfer(0, 8192, 1, 4096, 4096, false);
  EXPECT_EQ(a.stall, 0u);
  EXPECT_EQ(b.end, a.end + 32 * 16);  // b's 32 bursts wait for a's
  EXPECT_EQ(b.stall, 32u * 16);
  // A write at the same time has its own data channel.
  const TransferResult w = m.transfer(0, 16384, 1, 4096, 4096, true);
  EXPECT_EQ(w.stall, 0u);
  EXPECT_EQ(w.end, 32u * 16 + 100);
}

TEST(MemorySystem, LaterTransfersFillTheGapsOfLatencyBoundOnes) {
  // One request in flight leaves the port idle for the latency after every burst; another
  // master's burst slips into such a gap instead of waiting for the whole row.
  MemorySystem m(port(1));
  const TransferResult slow = m.transfer(0, 0, 1, 2048, 2048, false);
  const TransferResult quick =
      m.transfer(20, 65536, 1, 128, 128, false);  // slow's data: [100, 116)
  EXPECT_EQ(quick.end, 20u + 100 + 16);
  EXPECT_EQ(quick.stall, 0u);
  EXPECT_LT(quick.end, slow.end);
}

TEST(MemorySystem, IdlePortRowCostMatchesATransfer) {
  for (const hw::HwConfig& c : {port(1), port(4), port(16), hw::HwConfig{}}) {
    const sim::MemoryParams p = sim::MemoryParams::from(c);
    for (uint64_t bytes : {16u, 100u, 128u, 1000u, 2304u, 7168u}) {
      for (bool write : {false, true}) {
        MemorySystem m(c);
        EXPECT_EQ(p.row_cycles(bytes, write), m.transfer(0, 0, 1, bytes, bytes, write).end)
            << bytes << " bytes, write " << write;
      }
    }
  }
}

// Rows that share their length, direction and place in a page are costed once and replayed on
// an idle port; the replay must give exactly what booking every burst through the calendar gives.
// Random transfers of both directions, misaligned, crossing pages, contending and not, with
// instruction fetch's single bursts among them, on ports that are latency-, rate- and
// overhead-bound.
TEST(MemorySystem, ReplayedRowsEqualBookingEveryBurst) {
  std::vector<hw::HwConfig> configs = {port(1), port(4), port(16), hw::HwConfig{}};
  hw::HwConfig slow_dram = port(8, 40);
  slow_dram.timing.dram_bandwidth_gbps = 0.3;  // below the bus: fractional bytes per cycle
  slow_dram.timing.burst_overhead_cycles = 3;
  slow_dram.timing.row_overhead_cycles = 5;
  slow_dram.timing.max_burst_beats = 7;
  configs.push_back(slow_dram);
  for (size_t ci = 0; ci < configs.size(); ++ci) {
    MemorySystem fast(configs[ci]), reference(configs[ci]);
    reference.set_reference(true);
    std::mt19937_64 rng(20261127 + ci);
    uint64_t t = 0, unstalled = 0, stalled = 0;
    for (int i = 0; i < 400; ++i) {
      // Now and then long after everything (an idle port), mostly amid the others' rows.
      t += rng() % 4 == 0 ? 300000 : rng() % 2000;
      if (rng() % 8 == 0) {
        const uint64_t addr = (rng() % 4096) * 16, bytes = 16 * (1 + rng() % 40);
        const TransferResult a = fast.read_burst(t, addr, bytes);
        const TransferResult b = reference.read_burst(t, addr, bytes);
        ASSERT_EQ(a.end, b.end) << "config " << ci << " fetch " << i;
        ASSERT_EQ(a.data_start, b.data_start) << "config " << ci << " fetch " << i;
        continue;
      }
      const bool write = rng() % 3 == 0;
      const uint64_t row_bytes = 1 + rng() % 9000;
      const uint64_t stride = row_bytes + (rng() % 2 ? 0 : rng() % 5000);
      const uint64_t rows = 1 + rng() % 8, addr = rng() % (1 << 22);
      const TransferResult a = fast.transfer(t, addr, rows, row_bytes, stride, write);
      const TransferResult b = reference.transfer(t, addr, rows, row_bytes, stride, write);
      ASSERT_EQ(a.end, b.end) << "config " << ci << " transfer " << i;
      ASSERT_EQ(a.stall, b.stall) << "config " << ci << " transfer " << i;
      ASSERT_EQ(a.bursts, b.bursts) << "config " << ci << " transfer " << i;
      ASSERT_EQ(a.port_cycles, b.port_cycles) << "config " << ci << " transfer " << i;
      ++(a.stall == 0 ? unstalled : stalled);
    }
    EXPECT_GT(unstalled, 40u) << "config " << ci;  // both paths were exercised
    EXPECT_GT(stalled, 40u) << "config " << ci;
  }
}

// A row replayed on an idle port is booked as runs of back-to-back bursts; a request that meets
// a run must find what it would find among the run's bursts: no gap inside, and the first burst
// issued after it yields (the run splits there and its tail moves back whole).
TEST(MemorySystem, ARequestSplitsAReplayedRunWhereALaterIssuedBurstYields) {
  MemorySystem fast(port(16)), reference(port(16));
  reference.set_reference(true);
  for (MemorySystem* m : {&fast, &reference}) {
    // 32 bursts of 16 cycles, back to back on the channel from 100 to 612. Bursts 0-15 are
    // issued at 0-15, burst 16 at 116 (when burst 0 completed), burst 17 at 132.
    EXPECT_EQ(m->transfer(0, 0, 1, 4096, 4096, false).end, 612u);
    // Issued at 120, wanting 220: inside the run, behind burst 16 (issued 116), ahead of burst
    // 17 (issued 132, at [372, 388)), which moves back with the rest of the row.
    EXPECT_EQ(m->read_burst(120, 65536, 128).end, 388u);
    // Issued at 130: the row's remaining bursts were issued after it and yield again.
    EXPECT_EQ(m->transfer(130, 1 << 20, 1, 128, 128, false).end, 404u);
    // Issued at 200: behind bursts 17-21 (issued 132-196, now at [404, 484)), ahead of burst 22
    // (issued 212): the run splits inside, not at its first burst.
    EXPECT_EQ(m->transfer(200, 1 << 21, 1, 128, 128, false).end, 500u);
  }
}

TEST(PortChannel, ReservesTheEarliestGapAndMerges) {
  PortChannel ch;
  EXPECT_EQ(ch.reserve(10, 5), 10u);   // [10, 15)
  EXPECT_EQ(ch.reserve(30, 5), 30u);   // [30, 35)
  EXPECT_EQ(ch.reserve(12, 10), 15u);  // no room before 15: [15, 25), merged with [10, 15)
  EXPECT_EQ(ch.reserve(0, 5), 0u);     // fits before everything
  EXPECT_EQ(ch.reserve(20, 6), 35u);   // the gap [25, 30) is too small
  EXPECT_FALSE(ch.free_after(40));
  EXPECT_TRUE(ch.free_after(41));
  ch.forget_before(100);
  EXPECT_TRUE(ch.free_after(0));
}

// The port serves bursts in the order their addresses were issued: a burst booked for later but
// issued after a new request yields to it (and queues behind it); one whose data already flows
// does not.
TEST(PortChannel, ABurstIssuedLaterYieldsUnlessItStarted) {
  PortChannel ch;
  EXPECT_EQ(ch.reserve(100, 10, 50), 100u);  // [100, 110), issued at 50
  EXPECT_EQ(ch.reserve(110, 10, 60), 110u);  // [110, 120), issued at 60
  EXPECT_EQ(ch.reserve(120, 10, 70), 120u);  // [120, 130), issued at 70
  // Issued at 55, wanting 105: behind the burst issued at 50, ahead of the two issued later.
  EXPECT_EQ(ch.reserve(105, 10, 55), 110u);
  // The two it overtook moved back: a request wanting 118 issued at 100 comes after all of them.
  EXPECT_EQ(ch.reserve(118, 5, 100), 140u);
  // Issued at 40 but wanting 145: the burst at [140, 145) has started by then and keeps its place.
  EXPECT_EQ(ch.reserve(142, 4, 40), 145u);
}

TEST(Timing, InstructionFetchStreamsTheProgramThroughThePort) {
  // The first instruction starts only after its bytes came back from DRAM.
  hw::HwConfig c = port(16, 100);
  std::vector<hw::Insn> p = {testing::finish_insn()};
  sim::TimingModel t(c);
  sim::RunReport r;
  t.schedule(p, {}, r);
  EXPECT_GE(r.cycles, 100u + 2);  // latency, then 2 beats of 64 bits
  EXPECT_EQ(r.dram_bursts, 1u);
}

}  // namespace
}  // namespace tauvta
