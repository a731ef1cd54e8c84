// `tauvta hw resources` as a call (also tauvta.resources in Python): what a config takes on each
// FPGA asked for, the clock it closes and whether it fits.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli/rtl_option_args.h"
#include "hw/hw_config.h"

namespace tauvta::cli {

struct HwResourcesArgs {
  hw::HwConfig config;
  std::string device;  // pynq-z1, ultra96, zcu104, all; empty: the config's TARGET board
  RtlOptionArgs rtl;
  double max_util = 1.0;
  std::string reports;  // implementation reports CSV (optional)
};

// The JSON `--json` prints; the terminal table goes to `text` when given.
nlohmann::json hw_resources(const HwResourcesArgs& a, std::string* text);

}  // namespace tauvta::cli
