#include "fpga/bram_mapping.h"

#include <algorithm>
#include <cmath>

namespace tauvta::fpga {

namespace {

// yosys 0.23's memory_libmap chooses, for each memory, the mapping of least cost from its Xilinx
// libraries (share/yosys/xilinx/brams_xc4v.txt, lutrams_xc5v.txt, lutrams_xcu.txt): a RAMB18
// costs 129, a RAMB36 257, a LUT RAM cell 8 (7-series) or 16 (UltraScale+), and stacking blocks
// in depth adds a read multiplexer. The calibration's table (tools/synth/data, sram rows) is
// reproduced by these costs with a block-RAM read multiplexer priced at one unit per bit per
// row, and a LUT RAM's multiplexer not priced.
struct Aspect {
  int width, log_depth;
  double blocks;  // in BRAM36 units
  double cost;
};

// Port widths per block: the true-dual-port widths 1..36 and the simple-dual-port 72 of RAMB36
// (36 is RAMB18's simple-dual-port width). Parity bits count as data, so a byte lane is 9 wide.
constexpr Aspect kAspects[] = {
    {1, 14, 0.5, 129}, {2, 13, 0.5, 129}, {4, 12, 0.5, 129}, {9, 11, 0.5, 129},
    {18, 10, 0.5, 129}, {36, 9, 0.5, 129},
    {1, 15, 1.0, 257}, {2, 14, 1.0, 257}, {4, 13, 1.0, 257}, {9, 12, 1.0, 257},
    {18, 11, 1.0, 257}, {36, 10, 1.0, 257}, {72, 9, 1.0, 257},
};

// LUT RAM: a quad-port cell of 4 LUTs (7-series RAM32M/RAM64M) or 8 LUTs (UltraScale+
// RAM32M16/RAM64M8) holding `bits` bits of 32 or 64 words; deeper memories stack 64-word cells
// behind a read multiplexer.
struct LutRam {
  int bits32, bits64, luts_per_cell;
  double cost_per_cell;
};
constexpr LutRam kLutRam[] = {{6, 3, 4, 8}, {14, 7, 8, 16}};

}  // namespace

MemoryMapping map_memory(Family family, int width, int log_depth) {
  const double depth = std::ldexp(1.0, log_depth);
  const double w = width;
  MemoryMapping best;
  double best_cost = 1e300;
  for (const Aspect& a : kAspects) {
    const double cols = std::ceil(w / a.width);
    const double rows = std::max(1.0, std::ceil(depth / std::ldexp(1.0, a.log_depth)));
    const double cost = cols * rows * a.cost + (rows > 1 ? w * rows : 0);
    if (cost < best_cost) {
      best_cost = cost;
      best = MemoryMapping{};
      best.resources.bram36 = cols * rows * a.blocks;
      best.depth_blocks = int(rows);
      if (rows > 1) {  // read multiplexer per bit, row decode, the registered row select
        best.resources.lut = w * std::ceil((rows - 1) / 3.0) + rows;
        best.resources.ff = std::ceil(std::log2(rows));
      }
    }
  }
  const LutRam& l = kLutRam[family == Family::kXc7 ? 0 : 1];
  const bool shallow = log_depth <= 5;
  const double rows = shallow ? 1 : std::max(1.0, std::ceil(depth / 64));
  const double cells = std::ceil(w / (shallow ? l.bits32 : l.bits64)) * rows;
  const double mux = rows > 1 ? w * std::ceil((rows - 1) / 3.0) + rows : 0;
  // yosys prices a LUT RAM by its cells alone (its read multiplexer is not in the cost).
  const double cost = cells * l.cost_per_cell;
  if (cost < best_cost) {
    best = MemoryMapping{};
    best.resources.lut = cells * l.luts_per_cell + mux;
    best.resources.ff = w;  // the registered read port
  }
  return best;
}

MemoryMapping map_queue_memory(Family family, int width, int log_depth) {
  MemoryMapping m = map_memory(family, width, log_depth);
  const bool bram = m.resources.bram36 > 0;
  m.resources.ff = bram ? width : 0;
  m.resources.lut += width;  // the head: the word read, or the input passing an empty queue
  return m;
}

}  // namespace tauvta::fpga
