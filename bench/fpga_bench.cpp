// The resource and clock model's cost per query, the price of asking "does this design fit, at
// what clock" inside an exploration loop. Every preset on every device, plus allocations counted
// per query (global operator new is counted in this binary). The reference in the same run is
// the shape alone (what the model derives its inputs from).
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <vector>

#include <benchmark/benchmark.h>

#include "fpga/resource_model.h"
#include "hw/hw_config.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// The replacements pair malloc with free; GCC cannot see that they replace each other.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace tauvta;

std::vector<hw::HwConfig> presets() {
  std::vector<hw::HwConfig> v;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(TAUVTA_SOURCE_DIR) / "configs")) {
    if (e.path().extension() == ".json") v.push_back(hw::HwConfig::load(e.path()));
  }
  return v;
}

void BM_ResourceEstimate(benchmark::State& state) {
  const std::vector<hw::HwConfig> configs = presets();
  const rtl::RtlOptions options;
  size_t i = 0;
  long queries = 0;
  const long before = g_allocations.load();
  for (auto _ : state) {
    const hw::HwConfig& c = configs[i % configs.size()];
    const fpga::Device& d = fpga::devices()[i % fpga::devices().size()];
    benchmark::DoNotOptimize(fpga::estimate_resources(c, options, d));
    ++i;
    ++queries;
  }
  state.counters["allocs_per_query"] = double(g_allocations.load() - before) / double(queries);
}
BENCHMARK(BM_ResourceEstimate);

void BM_ShapeOnly(benchmark::State& state) {
  const std::vector<hw::HwConfig> configs = presets();
  const rtl::RtlOptions options;
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(rtl::shape_of(configs[i++ % configs.size()], options));
}
BENCHMARK(BM_ShapeOnly);

}  // namespace

BENCHMARK_MAIN();
