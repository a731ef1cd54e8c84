// The implementation choices of a generated datapath as command-line options, shared by
// `tauvta rtl` and `tauvta hw resources`. Each one given replaces the config file's
// IMPLEMENTATION key (the TIMING keys that follow from it are derived anew); each one left out keeps
// the file's, so a file the exploration wrote gives its own design.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "hw/hw_config.h"

namespace tauvta::cli {

struct RtlOptionArgs {
  std::optional<std::string> binding;
  std::optional<int> tree_levels;
  std::optional<int> acc_ports;
  std::optional<std::string> dsp_limit;  // a number or "board"
  std::optional<int> alu_lanes;
  std::optional<bool> alu_mul;
  bool any() const { return binding || tree_levels || acc_ports || dsp_limit || alu_lanes || alu_mul; }
};

// Adds --binding, --tree-levels, --acc-ports, --dsp-limit, --alu-lanes and --alu-mul to `cmd`.
void add_rtl_option_args(CLI::App* cmd, RtlOptionArgs& args);
// `config` with the options given replacing its IMPLEMENTATION's; throws tauvta::Error naming the
// option.
hw::HwConfig apply_rtl_option_args(const RtlOptionArgs& args, const hw::HwConfig& config);

}  // namespace tauvta::cli
