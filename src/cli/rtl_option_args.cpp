#include "cli/rtl_option_args.h"

namespace tauvta::cli {

void add_rtl_option_args(CLI::App* cmd, hw::ImplementationOverrides& a) {
  cmd->add_option("--binding", a.binding,
                  "Where GEMM products go: hls (VTA's HLS flow), auto (yosys's rule), dsp or lut "
                  "(default: the config's IMPLEMENTATION.BINDING)");
  cmd->add_option("--tree-levels", a.tree_levels,
                  "Adder levels between pipeline registers in the reduction tree (0: one stage; "
                  "default: the config's)");
  cmd->add_option("--acc-ports", a.acc_ports,
                  "Accumulator read ports: 1 (VTA's HLS, ALU every 2 cycles) or 2 (default: the config's)");
  cmd->add_option("--dsp-limit", a.dsp_limit,
                  "At most this many products in DSP slices, the rest in LUTs: a number (0: no limit) or "
                  "board (what fits the device; default: the config's)");
  cmd->add_option("--alu-lanes", a.alu_lanes, "ALU lanes built (0: the whole vector; default: the config's)");
  cmd->add_option("--alu-mul", a.alu_mul, "Build the ALU's MUL (true/false; default: the config's)");
}

}  // namespace tauvta::cli
