#include "cli/rtl_option_args.h"

namespace tauvta::cli {

void add_rtl_option_args(CLI::App* cmd, RtlOptionArgs& a) {
  cmd->add_option("--binding", a.binding, "Where GEMM products go: auto (yosys's rule), dsp or lut")
      ->capture_default_str();
  cmd->add_option("--tree-levels", a.tree_levels,
                  "Adder levels between pipeline registers in the reduction tree (0: one stage)")
      ->capture_default_str();
  cmd->add_option("--acc-ports", a.acc_ports,
                  "Accumulator read ports: 1 (VTA's HLS, ALU every 2 cycles) or 2")
      ->capture_default_str();
  cmd->add_option("--dsp-limit", a.dsp_limit,
                  "At most this many products in DSP slices, the rest in LUTs (0: no limit)")
      ->capture_default_str();
}

rtl::RtlOptions resolve_rtl_options(const RtlOptionArgs& a, const std::string& source) {
  rtl::RtlOptions o;
  o.binding = rtl::parse_binding(a.binding, "--binding");
  o.tree_levels_per_stage = a.tree_levels;
  o.acc_read_ports = a.acc_ports;
  o.max_dsp_products = a.dsp_limit;
  rtl::validate(o, source);
  return o;
}

}  // namespace tauvta::cli
