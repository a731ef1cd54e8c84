// A config as the user names it: a vta_config.json file, VTA's configuration name
// ("1x16_i8w8a32_15_15_18_17"), or nothing (the built-in Pynq-Z1 design); and the `--timing`
// override (a file or an inline JSON object of TIMING keys).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "hw/hw_config.h"

namespace tauvta::hw {

// Throws tauvta::Error naming the value; a preset's bare name ("pynq") gets the preset's path as
// a hint.
HwConfig load_config(const std::string& path);
// null for an empty text; else the TIMING object (a whole config's TIMING section is taken).
nlohmann::json load_timing_override(const std::string& text);
// The roofline a report page draws for a config: peak GOPS, DRAM GB/s and the clock.
nlohmann::json roofline_json(const HwConfig& c);

}  // namespace tauvta::hw
