// GEMMs with 16-bit lanes (or any lanes the AVX2 layouts hold) on AVX-512 VNNI's vpdpwssd, which
// adds two int16 x int16 products into each int32 lane, over whole-instruction plans
// (gemm_blocking.h): up to 8 vector rows keep their sums in registers over a tile's steps and
// share each step's weight vectors.
//
// Exactness. Accumulators of at most 32 bits wrap, so int32 sums mod 2^32 are the answer. For
// 64-bit accumulators the int32 sums are widened into int64 before they can overflow: a pair sum
// is at most 2 * max|x| * max|w|, so that many pairs fit. 16-bit inputs against 16-bit weights
// (pair sums up to 2^31, not even one fits) take three dot products per 4 input channels:
// vpdpwssd's wrapping sums give the true sum S mod 2^32 (two instructions), and vpdpbusd over the
// high bytes gives H = sum (x >> 8) * (w >> 8) (one instruction, the inputs' high bytes biased by
// 128 as VNNI wants). Over at most 128 products 65536 * H is within 2^31 of S, which fixes S's
// bits above 32: S = 65536 * H + int32(S mod 2^32 - 65536 * H). A byte split of the inputs with
// two vpdpwssd each (x = 256 * hi + lo) took four.
#pragma once

#include "sim/compute_kernels.h"
#include "sim/onchip_memory.h"

namespace tauvta::sim {

// True when this CPU and the config's shape run the kernel on a memory keeping the AVX2 layouts.
bool wide_gemm_supported(const OnChipMemory& m);

// Runs one GEMM instruction (indices in range without wrapping, as the caller checked) when it
// is planned; false, with nothing done, when plan_gemm_blocking gives no plan.
bool run_gemm_wide(OnChipMemory& m, const LoopNest& loop, bool reset);

}  // namespace tauvta::sim
