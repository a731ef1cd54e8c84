// The fabric clock a generated datapath can close: the delay of each pipeline stage (buffer read,
// multipliers, each reduction-tree stage, accumulate, tensor ALU) added up from the device's
// switching delays and the stage's logic (carry-chain widths, LUT levels, DSP slices, block-RAM
// stacking). The slowest stage sets the clock.
#pragma once

#include "fpga/device.h"
#include "rtl/datapath_shape.h"

namespace tauvta::fpga {

enum class Stage : unsigned char {
  kIssue = 0,       // micro-op to buffer indices; then the hazard check to the buffers' enables
  kBufferRead,  // block RAM out (through its read multiplexer) into the operand registers
  kMultiply,        // operand registers to product registers
  kTree,            // the longest registered reduction-tree stage
  kAccumulate,      // the last tree levels, the accumulator add and the reset multiplexer
  kAlu,             // ALU operand registers to result registers
  kCount
};
inline constexpr int kNumStages = int(Stage::kCount);
const char* stage_name(Stage s);

struct ClockEstimate {
  double stage_ns[kNumStages] = {};
  Stage critical = Stage::kIssue;
  double period_ns = 0;
  double fmax_mhz = 0;
};

// `max_depth_blocks`: the most block RAMs any buffer stacks in depth (bram_mapping.h);
// `read_blocks`: the block RAMs one read enable drives (input, weight and accumulator buffers).
ClockEstimate estimate_clock(const rtl::DatapathShape& shape, const Device& device,
                             int max_depth_blocks, double read_blocks);

}  // namespace tauvta::fpga
