// The weight layout the VNNI GEMM kernel reads: a BLOCK_OUT x BLOCK_IN int8 tile ([oc][ic]) is
// rearranged to [ic/4][oc][4] (one 64-byte vector per group of 4 input channels covers 16 output
// channels), with 128 * sum_ic w[oc][ic] per output channel to undo the +128 input bias.
#pragma once

#include <cstdint>

namespace tauvta::sim {

// Rearranges one tile. Uses AVX-512 for the default 16x16 shape on a CPU that has it.
void arrange_vnni_tile(const int8_t* w, int block_out, int block_in, int8_t* vnni, int32_t* corr);

}  // namespace tauvta::sim
