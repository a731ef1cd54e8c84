// Schedule: how one workload is tiled on the accelerator, with the knobs, names and meaning of
// TVM's VTA templates so AutoTVM/TopHub logs apply unchanged. Each tile_* knob is an
// [outer, inner] split of a blocked axis (batch blocks of BATCH, output rows, output columns,
// input-channel blocks, output-channel blocks); the inner factor is the tile, the outer the
// number of tiles (-1: whatever covers the axis). oc_nthread and h_nthread are virtual threads:
// the SRAMs are split between them and their instructions interleave with dependency tokens so
// that load, compute and store overlap.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "lower/workload.h"

namespace tauvta::lower {

struct Split {
  int64_t outer = -1;  // -1: derived from the axis extent
  int64_t inner = 1;
  friend bool operator==(const Split&, const Split&) = default;
  friend auto operator<=>(const Split&, const Split&) = default;
};

struct Schedule {
  Split tile_b, tile_h, tile_w, tile_ci, tile_co;
  int oc_nthread = 1;
  int h_nthread = 1;

  int virtual_threads() const { return oc_nthread * h_nthread; }
  // "tile_b=1x1,tile_h=1x14,tile_w=2x7,tile_ci=4x1,tile_co=2x4,oc_nthread=2,h_nthread=1"
  // (dense omits tile_h, tile_w and h_nthread).
  std::string to_string(OpKind kind = OpKind::kConv2d) const;
  // Parses the to_string() form; knobs not given keep their defaults. Throws tauvta::Error naming
  // the knob or the malformed part.
  static Schedule parse(const std::string& text);
  // AutoTVM's config entity: [["tile_b", "sp", [1, 1]], ..., ["oc_nthread", "ot", 2], ...].
  nlohmann::json to_entity(OpKind kind) const;
  static Schedule from_entity(const nlohmann::json& entity);
  friend bool operator==(const Schedule&, const Schedule&) = default;
  friend auto operator<=>(const Schedule&, const Schedule&) = default;
};

}  // namespace tauvta::lower
