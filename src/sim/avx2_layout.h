// The weight layout the AVX2 GEMM kernel reads: a BLOCK_OUT x BLOCK_IN tile ([oc][ic], int8 or
// int16 lanes) rearranged to [ic/2][oc][2] int16, so each 32-bit lane holds one output channel's
// pair of weights and one vpmaddwd with a broadcast input pair covers 8 output channels.
#pragma once

#include <cstdint>

namespace tauvta::sim {

// Rearranges one tile (block_in even).
void arrange_pair_tile(const int8_t* w, int block_out, int block_in, int16_t* pairs);
void arrange_pair_tile(const int16_t* w, int block_out, int block_in, int16_t* pairs);

}  // namespace tauvta::sim
