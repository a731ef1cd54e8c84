// The implementation options of a generated datapath (rtl::RtlOptions) as command-line options,
// shared by `tauvta rtl` and `tauvta hw resources`.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "rtl/datapath_shape.h"

namespace tauvta::cli {

struct RtlOptionArgs {
  std::string binding = "auto";
  int tree_levels = 1;
  int acc_ports = 1;
  int dsp_limit = 0;
};

// Adds --binding, --tree-levels, --acc-ports and --dsp-limit to `cmd`, bound to `args`.
void add_rtl_option_args(CLI::App* cmd, RtlOptionArgs& args);
// The validated options; throws tauvta::Error naming the option.
rtl::RtlOptions resolve_rtl_options(const RtlOptionArgs& args, const std::string& source);

}  // namespace tauvta::cli
