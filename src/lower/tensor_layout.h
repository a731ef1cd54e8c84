// The accelerator's DRAM layouts for a layer's tensors (docs/vta_isa.md section 1): activations as
// [N/BATCH][C/BLOCK][H][W] elements of BATCH x BLOCK lanes (NCHW{BATCH}n{BLOCK}c, batch and
// channels zero-padded), convolution weights as [CO/BLOCK_OUT][CI_g/BLOCK_IN][KH][KW] tiles, and
// per-channel accumulator vectors (bias plus rounding constant, shift amounts) as ACC elements
// replicated over the batch rows. Packing happens once on the host; the lowering only addresses.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hw/hw_config.h"

namespace tauvta::lower {

struct ActShape {
  int64_t n = 1, c = 1, h = 1, w = 1;
  int64_t elems() const { return n * c * h * w; }
};

int64_t ceil_div(int64_t a, int64_t b);

// Blocked element counts of an activation (INP/OUT elements).
int64_t act_blocks(const hw::HwConfig& c, const ActShape& s);
// Bytes of an activation in DRAM (OUT elements; INP elements have the same size when
// BLOCK_IN == BLOCK_OUT).
uint64_t act_bytes(const hw::HwConfig& c, const ActShape& s, int block);

// NCHW int values (each must fit the input width) -> blocked bytes with `block` channels per
// element (BLOCK_IN for a tensor a layer reads, BLOCK_OUT for one it writes).
std::vector<uint8_t> pack_activation(const hw::HwConfig& c, const ActShape& s, int block,
                                     std::span<const int32_t> values);
std::vector<int32_t> unpack_activation(const hw::HwConfig& c, const ActShape& s, int block,
                                       std::span<const uint8_t> bytes);

// Weight tiles: `w` holds [CO][CI_g][KH][KW] (a grouped convolution's CI_g = CI / groups). The
// output covers `supergroups` block-diagonal parts of cob x cib blocks each; output channel o of
// group g reads input channel (g * CI_g + i) at block column (that channel - sg * cib * BLOCK_IN).
struct WeightPacking {
  int64_t co = 0, ci_g = 0, kh = 1, kw = 1, groups = 1;
  int64_t supergroups = 1, cib = 1, cob = 1;
  // conv2d_transpose: `w` holds [CI][CO][KH][KW] (groups 1) and the taps are stored flipped, so
  // the lowering's loops over taps and input rows both advance forwards.
  bool transposed = false;
};
std::vector<uint8_t> pack_conv_weights(const hw::HwConfig& c, const WeightPacking& p,
                                       std::span<const int32_t> w);

// One accumulator-width value per output channel -> [ceil(channels / BLOCK_OUT)] ACC elements,
// each lane (b, oc) = v[block * BLOCK_OUT + oc] (0 past the end).
std::vector<uint8_t> pack_acc_vector(const hw::HwConfig& c, std::span<const int64_t> v);

}  // namespace tauvta::lower
