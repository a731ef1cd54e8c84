// Whether a config can run as configured on the board its TARGET names: the resource model's
// verdict for its own IMPLEMENTATION at its own clock. Every command that reports cycles, time or
// GOPS (run, op, tune, dse) shows it beside them, so no performance figure stands for a design
// that does not fit or a clock it cannot close.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "fpga/device.h"
#include "hw/hw_config.h"

namespace tauvta::fpga {

struct Feasibility {
  const Device* device = nullptr;  // null: TARGET names no modelled board (nothing is judged)
  bool fits = true;                // every resource within the device
  bool closes_clock = true;        // fmax at or above TIMING.CLOCK_MHZ
  double fmax_mhz = 0;
  std::string verdict;             // the resource model's one line (empty without a device)
  bool ok() const { return fits && closes_clock; }
};

Feasibility feasibility(const hw::HwConfig& config);
nlohmann::json to_json(const Feasibility& f);
// "" when ok (or no device); else one line to print beside the figures: "warning: the figures are
// at 333 MHz, but on the Ultra96 this design closes 290 MHz ...".
std::string feasibility_warning(const hw::HwConfig& config, const Feasibility& f);

}  // namespace tauvta::fpga
