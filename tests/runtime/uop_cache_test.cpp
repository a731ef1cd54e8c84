// UopKernelCache and micro-op kernels: content dedup, ring eviction, statistics, invalidation,
// and oversize kernels split into materialized chunks that give bit-identical results.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/error.h"
#include "runtime/command_builder.h"
#include "runtime/device.h"
#include "runtime/uop_kernel.h"
#include "runtime/uop_kernel_cache.h"

namespace tauvta::runtime {
namespace {

using hw::MemId;
using hw::Module;

hw::HwConfig small_uop_config() {
  hw::HwConfig c;
  c.log_uop_buff_size = 5;  // 8 micro-ops
  c.validate();
  return c;
}

UopKernel gemm_kernel_n(uint32_t n, uint32_t base = 0) {
  UopKernelBuilder kb(UopKind::kGemm);
  for (uint32_t i = 0; i < n; ++i) kb.push(base + i, i, 0);
  return kb.build();
}

TEST(UopKernelBuilder, RecordsLoopsAndRejectsMisuse) {
  const UopKernel k = UopKernelBuilder(UopKind::kGemm)
                          .loop_begin(3, 10, 20, 30)
                          .loop_begin(2, 1, 2, 3)
                          .push(1, 2, 3)
                          .push(4, 5, 6)
                          .loop_end()
                          .loop_end()
                          .build();
  EXPECT_EQ(k.uops.size(), 2u);
  EXPECT_EQ(k.outer().extent, 3u);
  EXPECT_EQ(k.inner().wgt_factor, 3u);
  EXPECT_EQ(k.executions(), 12u);
  EXPECT_THROW(UopKernelBuilder(UopKind::kGemm).push(0, 0, 0).loop_begin(2, 0, 0), Error);
  EXPECT_THROW(UopKernelBuilder(UopKind::kGemm)
                   .loop_begin(2, 0, 0).loop_begin(2, 0, 0).loop_begin(2, 0, 0), Error);
  EXPECT_THROW(UopKernelBuilder(UopKind::kGemm).loop_begin(2, 0, 0).push(0, 0, 0).build(), Error);
  EXPECT_THROW(UopKernelBuilder(UopKind::kGemm).loop_end(), Error);
  EXPECT_THROW(UopKernelBuilder(UopKind::kAlu).build(), Error);
  EXPECT_THROW(UopKernelBuilder(UopKind::kAlu).push(0, 1, 2), Error);

  // Materializing applies the loop offsets in (outer, inner, uop) order.
  const hw::IsaLayout layout{hw::HwConfig{}};
  const UopKernel flat = k.materialize(layout);
  ASSERT_EQ(flat.uops.size(), 12u);
  EXPECT_TRUE(flat.loops.empty());
  EXPECT_EQ(flat.uops[0], (hw::Uop{1, 2, 3}));
  EXPECT_EQ(flat.uops[1], (hw::Uop{4, 5, 6}));
  EXPECT_EQ(flat.uops[2], (hw::Uop{2, 4, 6}));                 // i = 1
  EXPECT_EQ(flat.uops[11], (hw::Uop{4 + 20 + 1, 5 + 40 + 2, 6 + 60 + 3}));  // o = 2, i = 1
  // An index that only works by wrapping (11-bit acc field) cannot be materialized.
  const UopKernel wraps =
      UopKernelBuilder(UopKind::kGemm).loop_begin(10, 1, 0, 0).push(2040, 0, 0).loop_end().build();
  EXPECT_THROW(wraps.materialize(layout), Error);
}

TEST(UopKernelCache, DedupByContent) {
  Device dev(hw::HwConfig{}, 64 << 20);
  UopKernelCache& cache = dev.uop_cache();
  CommandBuilder cb(dev);
  cb.gemm(gemm_kernel_n(4), true);
  cb.gemm(gemm_kernel_n(4), true);  // same content: hit
  cb.gemm(gemm_kernel_n(4, 100), true);
  // Same micro-ops inside a loop: the SRAM copy is shared, the loop lives in the instruction.
  UopKernelBuilder kb(UopKind::kGemm);
  kb.loop_begin(2, 4, 0, 0);
  for (uint32_t i = 0; i < 4; ++i) kb.push(i, i, 0);
  kb.loop_end();
  cb.gemm(kb.build(), true);
  EXPECT_EQ(cache.stats().misses, 2u);
  EXPECT_EQ(cache.stats().hits, 2u);
  EXPECT_EQ(cache.stats().uops_loaded, 8u);
  EXPECT_EQ(cache.stats().kernels, 2u);
  const auto p = cb.pending();
  ASSERT_EQ(p.size(), 6u);  // load, gemm, gemm, load, gemm, gemm
  EXPECT_EQ(p[1].uop_bgn, p[2].uop_bgn);
  EXPECT_EQ(p[5].uop_bgn, p[1].uop_bgn);
  EXPECT_EQ(p[5].iter_out, 2u);
  EXPECT_EQ(p[4].uop_bgn, 4u);
  cb.synchronize();
  // Residency survives synchronize (the SRAM persists between runs).
  cb.gemm(gemm_kernel_n(4), true);
  EXPECT_EQ(cache.stats().hits, 3u);
  cb.synchronize();
}

TEST(UopKernelCache, RingEvictionWhenFull) {
  Device dev(small_uop_config(), 64 << 20);
  UopKernelCache& cache = dev.uop_cache();
  ASSERT_EQ(cache.capacity(), 8u);
  const std::vector<uint32_t> a{1, 2, 3}, b{4, 5, 6}, c{7, 8, 9}, big{1, 1, 1, 1, 1, 1};
  EXPECT_EQ(cache.place(a).bgn, 0u);
  EXPECT_EQ(cache.place(b).bgn, 3u);
  const UopPlacement pc = cache.place(c);  // 6 + 3 > 8: wraps to 0, evicting a
  EXPECT_EQ(pc.bgn, 0u);
  ASSERT_EQ(pc.loads.size(), 1u);
  EXPECT_EQ(pc.loads[0].x_size, 3u);
  EXPECT_EQ(pc.loads[0].memory_type, uint8_t(MemId::kUop));
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_TRUE(cache.place(b).loads.empty());  // still resident
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_FALSE(cache.place(a).loads.empty());  // [3, 6): evicts b
  EXPECT_EQ(cache.stats().evictions, 2u);
  EXPECT_EQ(cache.place(big).bgn, 0u);  // 6 + 6 > 8: wraps, evicting c and a
  EXPECT_EQ(cache.stats().evictions, 4u);
  EXPECT_EQ(cache.resident_kernels(), 1u);
  EXPECT_EQ(cache.stats().misses, 5u);
  EXPECT_EQ(cache.stats().uops_loaded, 18u);
  EXPECT_THROW(cache.place(std::vector<uint32_t>(9, 0)), Error);
  cache.invalidate();
  EXPECT_EQ(cache.resident_kernels(), 0u);
  EXPECT_FALSE(cache.place(big).loads.empty());
}

// Runs an order-sensitive ALU chain and a looped GEMM over ACC data loaded from DRAM, returning
// the OUT bytes; `splits` receives the cache's split count.
std::vector<uint8_t> run_chain(const hw::HwConfig& config, uint64_t* splits,
                               bool timing_first = false) {
  Device dev(config, 64 << 20);
  constexpr uint32_t kElems = 24;
  DramBuffer acc = dev.alloc_elems(MemId::kAcc, kElems);
  DramBuffer inp = dev.alloc_elems(MemId::kInp, 8);
  DramBuffer wgt = dev.alloc_elems(MemId::kWgt, 8);
  DramBuffer out = dev.alloc_elems(MemId::kOut, kElems);
  std::mt19937_64 rng(42);
  auto fill = [&](DramBuffer& b) {
    std::vector<uint8_t> bytes(b.size());
    for (auto& x : bytes) x = uint8_t(rng() & 0x3f);  // small: sums stay readable
    b.copy_in(bytes);
  };
  fill(acc);
  fill(inp);
  fill(wgt);
  // acc[j+1] += acc[j] over j < 10: a prefix sum, which depends on micro-op order; the loops
  // repeat it (outer) and shift it by one element (inner): 40 executions.
  UopKernelBuilder chain(UopKind::kAlu);
  chain.loop_begin(2, 0, 0).loop_begin(2, 1, 1);
  for (uint32_t j = 0; j < 10; ++j) chain.push(j + 1, j);
  chain.loop_end().loop_end();
  // GEMM: acc[12 + o*4 + i*2 + u] += inp[u + o] . wgt[u + i] for 3 micro-ops in a 2x2 loop nest.
  UopKernelBuilder g(UopKind::kGemm);
  g.loop_begin(2, 4, 1, 0).loop_begin(2, 2, 0, 1);
  for (uint32_t u = 0; u < 3; ++u) g.push(12 + u, u, u);
  g.loop_end().loop_end();
  const UopKernel chain_k = chain.build(), gemm_k = g.build();

  CommandBuilder cb(dev);
  auto program = [&] {
    cb.load_2d(MemId::kAcc, 0, acc, 0, kElems, 1, kElems);
    cb.load_2d(MemId::kInp, 0, inp, 0, 8, 1, 8);
    cb.load_2d(MemId::kWgt, 0, wgt, 0, 8, 1, 8);
    cb.dep_push(Module::kLoad, Module::kCompute);
    cb.dep_pop(Module::kLoad, Module::kCompute);
    cb.alu(chain_k, hw::AluOp::kAdd);
    cb.gemm(gemm_k);
    cb.alu(chain_k, hw::AluOp::kAdd);
    cb.dep_push(Module::kCompute, Module::kStore);
    cb.dep_pop(Module::kCompute, Module::kStore);
    cb.store_2d(0, out, 0, kElems, 1, kElems);
  };
  if (timing_first) {
    program();
    sim::RunOptions o;
    o.timing_only = true;
    cb.synchronize(o);
  }
  program();
  cb.synchronize();
  *splits = dev.uop_cache().stats().splits;
  return out.read_all();
}

TEST(UopKernelCache, OversizeKernelSplitIsBitIdentical) {
  uint64_t small_splits = 0, big_splits = 0;
  const std::vector<uint8_t> small = run_chain(small_uop_config(), &small_splits);
  const std::vector<uint8_t> big = run_chain(hw::HwConfig{}, &big_splits);
  EXPECT_EQ(big_splits, 0u);
  EXPECT_EQ(small_splits, 2u);  // the 10-uop ALU chain, twice; the 3-uop GEMM fits
  EXPECT_EQ(small, big);
  // The data changed (the program did something).
  uint64_t small_splits2 = 0;
  EXPECT_EQ(run_chain(small_uop_config(), &small_splits2, /*timing_first=*/true), big);
}

TEST(UopKernelCache, TimingOnlyRunInvalidatesResidency) {
  Device dev(hw::HwConfig{}, 64 << 20);
  CommandBuilder cb(dev);
  cb.gemm(gemm_kernel_n(4), true);
  sim::RunOptions o;
  o.timing_only = true;
  cb.synchronize(o);
  EXPECT_EQ(dev.uop_cache().resident_kernels(), 0u);
  cb.gemm(gemm_kernel_n(4), true);
  EXPECT_EQ(dev.uop_cache().stats().misses, 2u);  // loaded again for real
  cb.synchronize();
  EXPECT_EQ(dev.uop_cache().resident_kernels(), 1u);
}

TEST(UopKernelCache, DiscardedStreamInvalidatesResidency) {
  Device dev(hw::HwConfig{}, 64 << 20);
  {
    CommandBuilder cb(dev);
    cb.gemm(gemm_kernel_n(4), true);
  }  // never synchronized: the micro-op load never ran
  EXPECT_EQ(dev.uop_cache().resident_kernels(), 0u);
}

}  // namespace
TEST(UopKernelCache, StagedKernelsDoNotGrowDramWithoutBound) {
  // Many programs with distinct kernels on one device: the staged copies are dropped between
  // runs once they pass the bound, so DRAM use stays flat.
  hw::HwConfig c;
  Device dev(c, uint64_t(64) << 20);
  auto& driver = static_cast<SimDriver&>(dev.driver());
  uint64_t peak = 0;
  for (uint32_t p = 0; p < 700; ++p) {
    CommandBuilderOptions o;
    o.run_options.timing_only = true;
    CommandBuilder cb(dev, o);
    UopKernelBuilder kb(UopKind::kGemm);
    for (uint32_t i = 0; i < 8000; ++i) kb.push((i + p) % 2048, i % 2048, (i * 7 + p) % 1024);
    cb.gemm(kb.build());
    cb.synchronize();
    peak = std::max(peak, driver.allocator().bytes_in_use());
  }
  EXPECT_GE(dev.uop_cache().stats().trims, 1u);
  EXPECT_LE(peak, UopKernelCache::kDefaultMaxStagedBytes + (uint64_t(1) << 20));
}

}  // namespace tauvta::runtime
