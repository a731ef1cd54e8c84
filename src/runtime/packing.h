// Packing host matrices into VTA's DRAM layouts (docs/vta_isa.md section 1): lanes are two's-complement
// integers packed densely from bit 0 of byte 0, little-endian; sub-byte lanes share bytes (with
// 4-bit data lane 2k is the low nibble of byte k). A GEMM input A[M,K] becomes [M/BATCH][K/BLOCK_IN]
// INP elements of BATCH x BLOCK_IN lanes, a weight B[K,N] becomes [N/BLOCK_OUT][K/BLOCK_IN] WGT
// elements of BLOCK_OUT x BLOCK_IN lanes (a row is an output channel), and C[M,N] comes back as
// [M/BATCH][N/BLOCK_OUT] OUT elements; ragged edges are zero-padded.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hw/hw_config.h"
#include "hw/lanes.h"

namespace tauvta::runtime {

// Lane packing itself (pack_lane, unpack_lane, sign_extend) is the ISA's: hw/lanes.h.
using hw::pack_lane;
using hw::sign_extend;
using hw::unpack_lane;

// Block counts of a GEMM C[M,N] = A[M,K] * B[K,N] under a config (rounded up).
struct GemmBlocks {
  uint32_t m = 0, k = 0, n = 0;  // BATCH rows, BLOCK_IN columns, BLOCK_OUT columns
};
GemmBlocks gemm_blocks(const hw::HwConfig& config, uint32_t m, uint32_t k, uint32_t n);

// Row-major int matrices; each value must fit the config's input / weight width.
std::vector<uint8_t> pack_input_matrix(const hw::HwConfig& config, std::span<const int32_t> a,
                                       uint32_t m, uint32_t k);
std::vector<uint8_t> pack_weight_matrix(const hw::HwConfig& config, std::span<const int32_t> b,
                                        uint32_t k, uint32_t n);
// Reads C[M,N] (output width, sign-extended) out of packed OUT elements ([Mb][Nb] layout).
std::vector<int32_t> unpack_output_matrix(const hw::HwConfig& config,
                                          std::span<const uint8_t> packed, uint32_t m, uint32_t n);

}  // namespace tauvta::runtime
