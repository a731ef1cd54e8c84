// The AVX-512 VNNI GEMM kernels: int8-or-narrower inputs and weights, accumulators of at most 32
// bits, BLOCK_IN a multiple of 4 and BLOCK_OUT a multiple of 8 (16-lane zmm or 8-lane ymm
// vectors). Same bytes as the portable kernel; chosen by run_gemm when the CPU has VNNI.
#pragma once

#include "sim/compute_kernels.h"
#include "sim/onchip_memory.h"

namespace tauvta::sim {

// One GEMM instruction whose indices are all in range without wrapping (checked by the caller).
// `m` must keep the VNNI layouts (m.has_vnni_weights()).
void run_gemm_vnni(OnChipMemory& m, const LoopNest& loop, bool reset);

}  // namespace tauvta::sim
