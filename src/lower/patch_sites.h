// Where a lowered layer's format-dependent values sit in its Program: the ALU immediates of each
// requantization (by role and piece: rounding ADDs, SHR pieces, the clip's MIN and MAX, a fused
// add's left shift) and the constant bytes it reads (per-channel bias/shift vectors, the scaled
// identity tile of a fused add). Lowering records them; the precision tools rewrite them in place
// when a layer's binary point moves, so the instructions themselves are never generated again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "lower/requant_alu.h"

namespace tauvta::lower {

struct Program;

// kWeights: the packed weights of a layer whose bias rides in them (ConvLayerSpec::bias_in_weights).
enum class ConstRole : uint8_t { kVectors = 0, kScaleTile = 1, kWeights = 2 };

struct ImmSite {
  uint32_t stream = 0, insn = 0;  // Program::streams index, instruction in it
  uint8_t requant = 0;            // 0: the layer's own requantization, 1: its fused add's
  ImmRole role = ImmRole::kAdd;
  uint8_t piece = 0;              // which of a split value's immediates
};

struct ConstSite {
  uint64_t offset = 0, bytes = 0;  // image byte range
  uint8_t requant = 0;
  ConstRole role = ConstRole::kVectors;
};

struct LayerPatchSites {
  std::vector<ImmSite> imms;
  std::vector<ConstSite> consts;
  bool empty() const { return imms.empty() && consts.empty(); }
};

// What one requantization's sites must hold (computed from the layer's new parameters).
struct RequantValues {
  RequantVectors rv;
  bool bias_add = false;           // the sequence starts with an ADD (emit_requant's bias_add)
  int64_t clip_min = 0, clip_max = 0;
  std::vector<int64_t> shl;        // a fused add's left-shift SHR pieces (negative amounts)
  std::vector<uint8_t> scale_tile; // a fused add's identity tile (empty: none)
  std::vector<uint8_t> weights;    // packed weights holding the bias (empty: the bias is the ALU's)
  bool operator==(const RequantValues&) const = default;
};

// Rewrites layer `layer`'s immediates and constants to `values` (indexed by requant). Throws
// tauvta::Error naming the layer and what differs when the new values need another instruction
// sequence (a shift or rounding constant split into more pieces, per-channel vectors appearing
// or disappearing): such a change needs the layer lowered again.
void patch_layer(Program& p, size_t layer, const std::vector<RequantValues>& values);

}  // namespace tauvta::lower
