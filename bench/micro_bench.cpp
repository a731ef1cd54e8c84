// Micro-benchmarks of the simulator's hot paths (Google Benchmark): instruction and micro-op
// decode (micro-ops also by hand-written shifts, for the table's cost as a ratio), the timing
// model alone, the memory system's bursts (a weight load alone on the port, and one that shares
// the port with another module's latency-bound rows), and one GEMM instruction on the SIMD and the
// portable kernels (the pair gives the SIMD speed-up as a ratio within one run).
#include <vector>

#include <benchmark/benchmark.h>

#include "hw/isa_layout.h"
#include "sim/memory_system.h"
#include "sim/simulator.h"

namespace {

using namespace tauvta;

hw::Insn mem(hw::Opcode op, hw::MemId m, uint32_t x, uint32_t y) {
  hw::Insn i;
  i.opcode = op;
  i.memory_type = uint8_t(m);
  i.x_size = x;
  i.y_size = y;
  i.x_stride = x;
  return i;
}

// A double-buffered load -> GEMM -> store stream of `tiles` tiles (3 instructions each).
std::vector<hw::RawInsn> pipeline_program(const hw::HwConfig& c, int tiles) {
  hw::IsaLayout l(c);
  std::vector<hw::RawInsn> p;
  for (int t = 0; t < tiles; ++t) {
    hw::Insn ld = mem(hw::Opcode::kLoad, hw::MemId::kInp, 16, 4);
    ld.sram_base = uint32_t(t % 2) * 64;
    ld.push_next = true;
    ld.pop_next = t >= 2;
    p.push_back(l.encode(ld));
    hw::Insn g;
    g.opcode = hw::Opcode::kGemm;
    g.uop_end = 16;
    g.iter_out = g.iter_in = 4;
    g.pop_prev = g.push_prev = g.push_next = true;
    g.pop_next = t >= 2;
    p.push_back(l.encode(g));
    hw::Insn st = mem(hw::Opcode::kStore, hw::MemId::kOut, 16, 1);
    st.pop_prev = st.push_prev = true;
    p.push_back(l.encode(st));
  }
  hw::Insn f;
  f.opcode = hw::Opcode::kFinish;
  p.push_back(l.encode(f));
  return p;
}

void BM_Decode(benchmark::State& state) {
  const hw::HwConfig c;
  const hw::IsaLayout l(c);
  const auto p = pipeline_program(c, 10000);
  for (auto _ : state) {
    for (size_t i = 0; i < p.size(); ++i) benchmark::DoNotOptimize(l.decode(p[i], i));
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(p.size()));
}
BENCHMARK(BM_Decode);

// Micro-op decode (what a LOAD UOP does per micro-op) through the field table, against the same
// three fields taken by hand-written shifts: the cost of declaring the fields once, as a ratio.
std::vector<uint32_t> random_uops(const hw::IsaLayout& l) {
  std::vector<uint32_t> raw;
  uint32_t x = 12345;
  for (int k = 0; k < 4096; ++k) {
    x = x * 1664525u + 1013904223u;
    raw.push_back(x & ((1u << l.uop().total_width) - 1));
  }
  return raw;
}

void BM_DecodeUop(benchmark::State& state) {
  const hw::IsaLayout l{hw::HwConfig{}};
  const std::vector<uint32_t> raw = random_uops(l);
  for (auto _ : state) {
    for (uint32_t r : raw) benchmark::DoNotOptimize(l.decode_gemm_uop(r));
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(raw.size()));
}
BENCHMARK(BM_DecodeUop);

// The fields written out by hand, as decode_gemm_uop was before the table held them, and called
// the same way (not inlined), so the ratio is the table's cost and not inlining's.
[[gnu::noinline]] hw::Uop decode_gemm_uop_by_hand(const hw::UopLayout& u, uint32_t r) {
  const auto bits = [r](const hw::UopBits& b) {
    return b.width == 0 ? 0u : uint32_t((uint64_t(r) >> b.lsb) & ((uint64_t(1) << b.width) - 1));
  };
  return {bits(u.dst()), bits(u.src()), bits(u.wgt())};
}

void BM_DecodeUopByHand(benchmark::State& state) {
  const hw::IsaLayout l{hw::HwConfig{}};
  const std::vector<uint32_t> raw = random_uops(l);
  for (auto _ : state) {
    for (uint32_t r : raw) benchmark::DoNotOptimize(decode_gemm_uop_by_hand(l.uop(), r));
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(raw.size()));
}
BENCHMARK(BM_DecodeUopByHand);

void BM_TimingOnly(benchmark::State& state) {
  const hw::HwConfig c;
  sim::Dram dram(1 << 20);
  sim::Simulator s(c, dram);
  const auto p = pipeline_program(c, 100000);
  sim::RunOptions o;
  o.timing_only = true;
  for (auto _ : state) benchmark::DoNotOptimize(s.run(p, o).cycles);
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(p.size()));
}
BENCHMARK(BM_TimingOnly)->Unit(benchmark::kMillisecond);

// 16 rows of 2304 bytes (a 1x16 3x3 weight tile): 288 bursts on the calibrated Pynq port, alone
// (first arg 0) or after short rows of another master that leave gaps in the calendar (1);
// second arg 1: reference mode, every burst booked through the calendar (the cost before idle
// rows were replayed).
void BM_MemoryTransfer(benchmark::State& state) {
  const hw::HwConfig c;
  sim::MemorySystem m(c);
  m.set_reference(state.range(1) == 1);
  uint64_t t = 0;
  for (auto _ : state) {
    if (state.range(0) == 1) m.transfer(t, 1 << 24, 8, 112, 896, false);
    const sim::TransferResult r = m.transfer(t, 0, 16, 2304, 2304, false);
    benchmark::DoNotOptimize(r.end);
    t = r.end;
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * 16 * 18);  // bursts of the weight load
}
BENCHMARK(BM_MemoryTransfer)->Args({0, 0})->Args({0, 1})->Args({1, 0})->Args({1, 1});

// One GEMM instruction of 16 micro-ops x 64 x 64 iterations (262144 micro-ops).
void gemm_kernel(benchmark::State& state, bool portable) {
  const hw::HwConfig c;
  const hw::IsaLayout l(c);
  sim::Dram dram(1 << 20);
  sim::Simulator s(c, dram);
  std::vector<uint32_t> uops;
  for (uint32_t u = 0; u < 16; ++u) uops.push_back(l.encode_gemm_uop({u, u, u}));
  dram.write(0, {reinterpret_cast<const uint8_t*>(uops.data()), uops.size() * 4});
  hw::Insn ld = mem(hw::Opcode::kLoad, hw::MemId::kUop, 16, 1);
  hw::Insn g;
  g.opcode = hw::Opcode::kGemm;
  g.uop_end = 16;
  g.iter_out = g.iter_in = 64;
  g.dst_factor_out = 16;
  g.src_factor_in = 16;
  g.wgt_factor_in = 8;
  hw::Insn f;
  f.opcode = hw::Opcode::kFinish;
  const std::vector<hw::RawInsn> p = {l.encode(ld), l.encode(g), l.encode(f)};
  sim::RunOptions o;
  o.portable_kernels = portable;
  uint64_t macs = 0;
  for (auto _ : state) macs += s.run(p, o).macs;
  state.counters["GOPS"] = benchmark::Counter(2.0 * double(macs) / 1e9, benchmark::Counter::kIsRate);
}
void BM_GemmSimd(benchmark::State& state) { gemm_kernel(state, false); }
void BM_GemmPortable(benchmark::State& state) { gemm_kernel(state, true); }
BENCHMARK(BM_GemmSimd)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmPortable)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
