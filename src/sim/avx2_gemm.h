// The AVX2 GEMM kernels: vpmaddwd on int16 lanes (narrower inputs and weights are kept widened),
// BLOCK_IN even and BLOCK_OUT a multiple of 8, accumulators of any width. Same bytes as the
// portable kernel; chosen by run_gemm when the CPU has AVX2 and VNNI does not apply.
#pragma once

#include "sim/compute_kernels.h"
#include "sim/onchip_memory.h"

namespace tauvta::sim {

// One GEMM instruction whose indices are all in range without wrapping (checked by the caller).
// `m` must keep the AVX2 layouts (m.has_pair_weights()).
void run_gemm_avx2(OnChipMemory& m, const LoopNest& loop, bool reset);

}  // namespace tauvta::sim
