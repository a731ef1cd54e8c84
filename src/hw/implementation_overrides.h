// Implementation choices given on their own (the command line's --binding, --tree-levels,
// --acc-ports, --dsp-limit, --alu-lanes, --alu-mul; the Python module's keywords), each replacing
// the config's IMPLEMENTATION key; each left out keeps the config's, so a file the exploration
// wrote gives its own design. The TIMING keys that follow from the implementation are derived anew.
#pragma once

#include <optional>
#include <string>

#include "hw/hw_config.h"

namespace tauvta::hw {

struct ImplementationOverrides {
  std::optional<std::string> binding;    // hls, auto, dsp, lut
  std::optional<int> tree_levels;
  std::optional<int> acc_ports;
  std::optional<std::string> dsp_limit;  // a number or "board"
  std::optional<int> alu_lanes;
  std::optional<bool> alu_mul;
  bool any() const { return binding || tree_levels || acc_ports || dsp_limit || alu_lanes || alu_mul; }
};

// `config` with the overrides given; throws tauvta::Error naming the option (--dsp-limit, ...).
HwConfig with_overrides(const HwConfig& config, const ImplementationOverrides& a);

}  // namespace tauvta::hw
