#include "fpga/bram_mapping.h"

#include <algorithm>
#include <cmath>

namespace tauvta::fpga {

namespace {

struct Aspect {
  int width, log_depth;
  double blocks;  // in BRAM36 units
};

// Simple dual-port configurations (one write, one read port): RAMB18 and RAMB36, identical in
// 7-series and UltraScale+.
constexpr Aspect kAspects[] = {
    {36, 9, 0.5}, {18, 10, 0.5}, {9, 11, 0.5}, {4, 12, 0.5}, {2, 13, 0.5}, {1, 14, 0.5},
    {72, 9, 1.0}, {36, 10, 1.0}, {18, 11, 1.0}, {9, 12, 1.0}, {4, 13, 1.0}, {2, 14, 1.0},
    {1, 15, 1.0},
};

}  // namespace

MemoryMapping map_memory(Family family, int width, int log_depth) {
  (void)family;
  MemoryMapping m;
  const double depth = std::ldexp(1.0, log_depth);
  double best = 1e300;
  int best_rows = 0;
  for (const Aspect& a : kAspects) {
    const double cols = std::ceil(double(width) / a.width);
    const double rows = std::max(1.0, std::ceil(depth / std::ldexp(1.0, a.log_depth)));
    const double blocks = cols * rows * a.blocks;
    if (blocks < best) {
      best = blocks;
      best_rows = int(rows);
    }
  }
  // Distributed RAM: one LUT per bit per 64 words (RAM64M holds 3 bits x 64 in 4 LUTs).
  const double lutram = std::ceil(double(width) / 3) * 4 * std::ceil(depth / 64);
  if (log_depth <= 6) {
    m.in_luts = true;
    m.resources.lut = lutram;
    m.resources.ff = width;  // the registered read port
    return m;
  }
  m.resources.bram36 = best;
  m.depth_blocks = best_rows;
  // Stacked blocks need a read multiplexer per bit.
  if (best_rows > 1) m.resources.lut = double(width) * std::ceil((best_rows - 1) / 3.0);
  return m;
}

}  // namespace tauvta::fpga
