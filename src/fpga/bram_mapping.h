// How one buffer of `width` bits x 2^log_depth words maps onto a family's memories, following the
// rule yosys's memory mapping uses for that family (tools/synth/README.md shows the synthesized
// table this reproduces): small memories in LUTs (distributed RAM), the rest in block RAMs of the
// aspect ratio that needs the fewest blocks.
#pragma once

#include "fpga/device.h"
#include "fpga/resources.h"

namespace tauvta::fpga {

struct MemoryMapping {
  Resources resources;   // LUTs (distributed RAM and read multiplexers), FFs, BRAM36 (18 Kb = 0.5)
  int depth_blocks = 0;  // block RAMs stacked in depth (read multiplexer inputs); 0 for LUT RAM
};

MemoryMapping map_memory(Family family, int width, int log_depth);

// A queue's memory (tauvta_fifo: written at the tail, its head read combinationally at a
// registered pointer, or the input itself while the queue is empty, so a `width`-bit multiplexer
// in front of the head either way). yosys maps it by the same costs; in block RAM the pointer
// register becomes the read address and the head is kept in `width` flip-flops; in LUT RAM the
// read is asynchronous and needs none.
MemoryMapping map_queue_memory(Family family, int width, int log_depth);

}  // namespace tauvta::fpga
