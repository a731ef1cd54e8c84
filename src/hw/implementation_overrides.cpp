#include "hw/implementation_overrides.h"

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::hw {

HwConfig with_overrides(const HwConfig& config, const ImplementationOverrides& a) {
  if (!a.any()) return config;
  Implementation impl = config.impl;
  if (a.binding) impl.binding = parse_binding(*a.binding, "--binding");
  if (a.tree_levels) impl.tree_levels_per_stage = *a.tree_levels;
  if (a.acc_ports) impl.acc_read_ports = *a.acc_ports;
  if (a.dsp_limit) {
    if (*a.dsp_limit == "board") {
      impl.dsp_limit = Implementation::kDspLimitBoard;
    } else {
      size_t used = 0;
      int n = -1;
      try {
        n = std::stoi(*a.dsp_limit, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != a.dsp_limit->size() || n < 0) {
        throw Error(fmt::format("--dsp-limit = '{}' is not a number of products (0: no limit) or board", *a.dsp_limit));
      }
      impl.dsp_limit = n;
    }
  }
  if (a.alu_lanes) impl.alu_lanes = *a.alu_lanes;
  if (a.alu_mul) impl.alu_mul = *a.alu_mul;
  try {
    return config.with_implementation(impl, "command line");
  } catch (const Error& e) {
    // Name the options, not the JSON keys they set.
    std::string m = e.what();
    for (auto [key, flag] : {std::pair{"IMPLEMENTATION.TREE_LEVELS_PER_STAGE", "--tree-levels"},
                             std::pair{"IMPLEMENTATION.ACC_READ_PORTS", "--acc-ports"},
                             std::pair{"IMPLEMENTATION.DSP_LIMIT", "--dsp-limit"},
                             std::pair{"IMPLEMENTATION.ALU_LANES", "--alu-lanes"}}) {
      if (const size_t at = m.find(key); at != std::string::npos) m.replace(at, std::string(key).size(), flag);
    }
    throw Error(m);
  }
}

}  // namespace tauvta::hw
