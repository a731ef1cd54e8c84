// Tiled GEMM on the accelerator: C[M,N] = A[M,K] * B[K,N], the low OUT bits of the int
// accumulator, as a complete runtime program. Output tiles of tile_m x tile_n blocks accumulate
// over k-steps of tile_k blocks; with two virtual threads every SRAM is split in halves so the
// load of step t+1 overlaps the GEMM of step t (load<->compute tokens) and the store of one output
// tile overlaps the compute of the next (compute<->store tokens). One virtual thread gives the
// serialized schedule of the same program.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "runtime/command_builder.h"
#include "runtime/device.h"
#include "runtime/packing.h"
#include "runtime/uop_kernel_cache.h"
#include "sim/report.h"

namespace tauvta::runtime {

struct GemmShape {
  uint32_t m = 0, k = 0, n = 0;
  uint64_t ops() const { return 2ull * m * k * n; }  // multiply + add per MAC
};

// Tile sizes in blocks (BATCH rows for m, BLOCK_IN for k, BLOCK_OUT for n).
struct GemmTiling {
  uint32_t tile_m = 1, tile_n = 1, tile_k = 1;
  int virtual_threads = 2;
  std::string to_string() const;
};

// Picks the tiling with the lowest estimated cycles (a bandwidth/compute model of the timing
// parameters) that fits the SRAMs (halved per virtual thread) and keeps the micro-kernels small
// enough to stay resident. Throws when `virtual_threads` is not 1 or 2.
GemmTiling choose_gemm_tiling(const hw::HwConfig& config, GemmShape shape, int virtual_threads);
// Throws tauvta::Error naming the SRAM or field a tiling overflows.
void check_gemm_tiling(const hw::HwConfig& config, GemmShape shape, const GemmTiling& tiling);

// Emits the whole GEMM into `cb` (no synchronize). `inp`, `wgt` and `out` hold the packed
// matrices of packing.h. The program is built in groups of output tiles, each balanced in
// tokens, so the builder's automatic flush can split a long program between groups.
void emit_tiled_gemm(CommandBuilder& cb, const DramBuffer& inp, const DramBuffer& wgt,
                     const DramBuffer& out, GemmShape shape, const GemmTiling& tiling);

struct GemmRunOptions {
  int virtual_threads = 2;
  std::optional<GemmTiling> tiling;  // default: choose_gemm_tiling
  bool timing_only = false;          // cycles only: nothing is computed or read back
  bool check_hazards = false;
  bool reference_memory = false;     // sim::RunOptions::reference_memory
  size_t max_insns = size_t(1) << 16;
};

struct GemmRun {
  GemmTiling tiling;
  std::vector<int32_t> c;  // row-major M x N (empty when timing-only)
  sim::RunReport report;   // summed over every run of this GEMM
  UopCacheStats uop_stats; // this GEMM's share of the device's micro-op cache statistics
  uint64_t insns = 0;      // instructions run (FINISH included)
  uint64_t runs = 0;       // programs run (automatic flushes + final synchronize)
};

// Packs, runs and reads back one GEMM on `device`. `a` and `b` may be empty when timing-only.
GemmRun run_tiled_gemm(Device& device, std::span<const int32_t> a, std::span<const int32_t> b,
                       GemmShape shape, const GemmRunOptions& options = {});

// Plain CPU GEMM with the hardware's result: the exact sum wrapped to the accumulator, then the
// low OUT bits sign-extended.
std::vector<int32_t> reference_gemm(const hw::HwConfig& config, std::span<const int32_t> a,
                                    std::span<const int32_t> b, GemmShape shape);

struct GemmMismatch {
  uint32_t row = 0, col = 0;
  int32_t expected = 0, got = 0;
  std::string message() const;
};
std::optional<GemmMismatch> first_mismatch(std::span<const int32_t> expected,
                                           std::span<const int32_t> got, GemmShape shape);

// `count` values uniform over the signed range of `width` bits.
std::vector<int32_t> random_operand(int width, size_t count, std::mt19937_64& rng);

}  // namespace tauvta::runtime
