// The implementation choices of a generated datapath as command-line options
// (hw::ImplementationOverrides), shared by `tauvta rtl` and `tauvta hw resources`.
#pragma once

#include <CLI/CLI.hpp>

#include "hw/implementation_overrides.h"

namespace tauvta::cli {

// Adds --binding, --tree-levels, --acc-ports, --dsp-limit, --alu-lanes and --alu-mul to `cmd`.
void add_rtl_option_args(CLI::App* cmd, hw::ImplementationOverrides& args);

}  // namespace tauvta::cli
