// What a design point is physically: the HwConfig the compiler and the timing model see (widths,
// blocking, buffers, and the timing parameters its implementation features set: initiation
// intervals, pipeline depths, module overlap, per-instruction overhead, the clock and the memory
// latencies at that clock), the RtlOptions the generator and the resource model take (binding, DSP
// limit, tree pipelining, ACC read ports), and the array partition/reshape of the ACC buffer.
// docs/dse.md tables every mapping. Cheap and allocation-free apart from the config's strings.
#pragma once

#include <string>

#include "dse/design_space.h"
#include "fpga/resource_model.h"
#include "hw/hw_config.h"
#include "rtl/datapath_shape.h"

namespace tauvta::dse {

struct ArrayOption {
  int type = 0;    // 0 none, 1/2 partition cyclic/block, 3/4 reshape cyclic/block
  int dim = 1;     // 1 depth, 2 lanes
  int factor = 1;
};

struct MappedDesign {
  hw::HwConfig config;
  rtl::RtlOptions rtl;
  ArrayOption acc_array;
};

// The design's VTA knobs (widths, BATCH, blocks, buffers) on the built-in timing: what the
// constraints and the analytic filters read before any implementation feature.
hw::HwConfig architecture(const DesignSpace& s, const Design& d);
// Whether the ISA's fields can address `c`'s buffers (HwConfig::validate passes).
bool encodable(const hw::HwConfig& c);

// `board`: the board's memory side at its own clock (latencies in cycles of board.timing.clock_mhz,
// bandwidth in GB/s); the design's latencies are the same nanoseconds at its clock.
MappedDesign map_design(const DesignSpace& s, const Design& d, const hw::HwConfig& board);

// The resource model's answer for the mapped design on the space's device, with the ACC buffer's
// partition or reshape priced by the block-RAM mapping rule.
fpga::ResourceEstimate design_resources(const MappedDesign& m, const fpga::Device& device);

// Adder levels per tree stage HLS schedules to meet `hls_mhz` (the fewest registers whose tree and
// accumulate stages fit the period; one level per stage when none does).
int hls_tree_levels_per_stage(const hw::HwConfig& c, const rtl::RtlOptions& o, const fpga::Device& device,
                              double hls_mhz);

// Products HLS may put in DSP slices under the DSP limit: the device's DSPs less a 5% margin for
// what else the design uses them for.
int dsp_product_limit(const fpga::Device& device);
// The block RAMs' maximum clock for the device's speed grade (data sheets DS187, DS925).
double block_ram_fmax_mhz(const fpga::Device& device);
// Whether design `d`'s ACC partition or reshape needs fewer block RAMs than the plain buffer.
bool array_option_saves(const DesignSpace& s, const Design& d);

// Everything a design's cycle count depends on: its mapped config (knobs and timing parameters;
// not the binding, DSP limit or array options, which are not in it). Designs with equal keys share
// one performance evaluation.
std::string timing_key(const hw::HwConfig& config);

}  // namespace tauvta::dse
