// What a design point is physically: one HwConfig holding everything (widths, blocking, buffers,
// the clock and the memory latencies at that clock, and its IMPLEMENTATION: binding, DSP limit,
// tree pipelining, ACC read ports, ALU lanes and MUL, pipeline, dataflow, inline, HLS clock, the
// ACC buffer's partition or reshape, the Vivado strategies), whose TIMING keys that follow from the
// implementation are derived as every config file's are (hw::datapath_timing). The config is the
// vta_config.json the exploration writes; `hw resources`, `rtl` and `run` read it back to the same
// design. docs/dse.md tables every mapping. Cheap and allocation-free apart from the config's strings.
#pragma once

#include <string>

#include "dse/design_space.h"
#include "fpga/design_options.h"
#include "fpga/resource_model.h"
#include "hw/hw_config.h"
#include "rtl/datapath_shape.h"

namespace tauvta::dse {

struct MappedDesign {
  hw::HwConfig config;
  rtl::RtlOptions rtl;  // fpga::rtl_options(config, the space's device)
};

// The design's VTA knobs (widths, BATCH, blocks, buffers) on the built-in timing: what the
// constraints and the analytic filters read before any implementation feature.
hw::HwConfig architecture(const DesignSpace& s, const Design& d);
// Whether the ISA's fields can address `c`'s buffers (HwConfig::validate passes).
bool encodable(const hw::HwConfig& c);

// `board`: the board's memory side at its own clock (latencies in cycles of board.timing.clock_mhz,
// bandwidth in GB/s); the design's latencies are the same nanoseconds at its clock.
MappedDesign map_design(const DesignSpace& s, const Design& d, const hw::HwConfig& board);

// The resource model's answer for the mapped design on the space's device.
fpga::ResourceEstimate design_resources(const MappedDesign& m, const fpga::Device& device);

// Adder levels per tree stage HLS schedules to meet `hls_mhz` (the fewest registers whose tree and
// accumulate stages fit the period; one level per stage when none does).
int hls_tree_levels_per_stage(const hw::HwConfig& c, const rtl::RtlOptions& o, const fpga::Device& device,
                              double hls_mhz);

using fpga::dsp_product_limit;
using fpga::block_ram_fmax_mhz;
// Whether design `d`'s ACC partition or reshape needs fewer block RAMs than the plain buffer.
bool array_option_saves(const DesignSpace& s, const Design& d);

// Everything a design's cycle count depends on: its mapped config's knobs and timing parameters
// (not the implementation choices that change no cycle: binding, DSP limit, array options,
// strategies). Designs with equal keys share one performance evaluation.
std::string timing_key(const hw::HwConfig& config);

}  // namespace tauvta::dse
