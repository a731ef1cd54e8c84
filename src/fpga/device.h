// Device: an FPGA board tauvta can size designs for: the part's resource totals and speed grade,
// the clock VTA's own build uses on that board, the switching delays the clock model adds up, and
// the written-down cost of what the generator does not build (the AXI interconnect to the
// processing system's port, its reset). Three boards: Pynq-Z1, Ultra96, ZCU104.
#pragma once

#include <span>
#include <string>

#include "fpga/resources.h"
#include "rtl/netlist_features.h"

namespace tauvta::fpga {

using rtl::Family;  // 7-series, UltraScale+ (the synthesis calibration's families)
using rtl::family_name;

// Delays in ns for one speed grade (docs/fpga_model.md gives each one's source).
struct SwitchingDelays {
  double ff_clk_to_q;     // flip-flop clock to output
  double ff_setup;        // flip-flop data setup
  double lut;             // one LUT, input to output
  double net;             // a typical routed net between two cells
  double carry_per_bit;   // carry chain, per bit after entry
  double carry_entry;     // into the carry chain (first LUT to carry out)
  double dsp_mult;        // DSP slice: A/B register to M register (multiplier)
  double dsp_cascade;     // one extra DSP slice in a cascaded wide product
  double bram_clk_to_q;   // block RAM clock to data out (no output register)
  double bram_setup;      // block RAM address/enable setup
  double uncertainty;     // clock uncertainty and jitter margin
};

struct Device {
  const char* name;          // "pynq-z1"
  const char* board;         // "Pynq-Z1"
  const char* part;          // "xc7z020clg400-1"
  Family family;
  const char* speed_grade;   // "-1"
  Resources total;
  double target_mhz;         // VTA's clock for this board (tvm-vta config/pkg_config.py)
  SwitchingDelays delays;
};

std::span<const Device> devices();
// Throws tauvta::Error listing the known devices when `name` is not one.
const Device& find_device(const std::string& name);

// What the generator does not build, for a design whose AXI port has `bus_bits` data bits: the
// SmartConnect interconnect from the accelerator's four masters and its control slave to the
// processing system's ports, and the processor reset. Xilinx IP, so an estimate from its published
// resource figures (docs/fpga_model.md shows the sum), not a synthesis result; everything the
// generator writes is priced from synthesis instead.
Resources platform(const Device& device, int bus_bits);

}  // namespace tauvta::fpga
