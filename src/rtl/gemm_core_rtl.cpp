// The GEMM core as Verilog: BATCH x BLOCK_OUT dot products of BLOCK_IN signed products, a
// pipelined adder tree per output lane and the wrapping accumulate (docs/vta_isa.md section 4, GEMM).
#include <fmt/format.h>

#include "rtl/verilog_emit.h"

namespace tauvta::rtl {

std::string emit_gemm_core(const DatapathShape& s) {
  const int lanes = s.batch * s.block_out;  // output lanes, one tree each
  const int pw = s.product_width, aw = s.acc_width;
  std::string v;
  v += fmt::format(
      "// GEMM core: {} x {} x {} products of int{} x int{} ({}), adder trees of {} levels with\n"
      "// {} pipeline register(s), int{} accumulators. Latency {} cycles (operands, products, tree,\n"
      "// accumulate), one micro-op per cycle.\n"
      "// Lanes: inp[b][ic], wgt[oc][ic], acc[b][oc], packed from bit 0 (docs/vta_isa.md section 1).\n",
      s.batch, s.block_in, s.block_out, s.inp_width, s.wgt_width,
      s.dsp_products == s.products ? "DSP slices"
      : s.dsp_products == 0        ? "LUTs"
                                   : fmt::format("{} DSP slices, the rest LUTs", s.dsp_products),
      s.tree_levels, s.tree_registers, aw,
      s.gemm_latency);
  v += "module tauvta_gemm_core (\n"
       "  input  wire clk,\n"
       "  input  wire in_valid,\n"
       "  input  wire in_reset,\n";
  v += fmt::format("  input  wire [{}:0] inp,\n", s.batch * s.block_in * s.inp_width - 1);
  v += fmt::format("  input  wire [{}:0] wgt,\n", s.block_out * s.block_in * s.wgt_width - 1);
  v += fmt::format("  input  wire [{}:0] acc,\n", lanes * aw - 1);
  v += "  output reg  out_valid,\n";
  v += fmt::format("  output reg  [{}:0] acc_next,\n", lanes * aw - 1);
  v += fmt::format("  output wire [{}:0] out_next\n);\n", lanes * s.out_width - 1);
  v += fmt::format(
      "  localparam B = {}, BI = {}, BO = {}, IW = {}, WW = {}, PW = {}, AW = {}, OW = {};\n",
      s.batch, s.block_in, s.block_out, s.inp_width, s.wgt_width, pw, aw, s.out_width);
  v += "  genvar g, j;\n\n";

  // Stage 0: operands registered as they leave the buffers, so no SRAM read path reaches the
  // multipliers (a DSP slice's A/B registers, or fabric flip-flops).
  v += "  reg in_valid_r, in_reset_r;\n";
  v += fmt::format("  reg [{}:0] inp_r;\n", s.batch * s.block_in * s.inp_width - 1);
  v += fmt::format("  reg [{}:0] wgt_r;\n", s.block_out * s.block_in * s.wgt_width - 1);
  v += fmt::format("  reg [{}:0] acc_r;\n", lanes * aw - 1);
  v += "  always @(posedge clk) begin\n"
       "    in_valid_r <= in_valid;\n"
       "    in_reset_r <= in_reset;\n"
       "    inp_r <= inp;\n"
       "    wgt_r <= wgt;\n"
       "    acc_r <= acc;\n"
       "  end\n\n";
  // Stage 1: every product, registered (a DSP slice's M register, or LUT flip-flops).
  v += fmt::format("  // Stage 1: products{}.\n", s.products_in_dsp ? "" : " (bound to LUTs)");
  v += fmt::format("  wire [{}:0] prod;\n", s.products * pw - 1);
  // The first DSP_PRODUCTS products go to DSP slices, the rest to LUTs (use_dsp is Vivado's
  // attribute; yosys follows its own rule, see docs/rtl.md).
  v += fmt::format("  localparam DSP_PRODUCTS = {};\n", s.dsp_products);
  v += "  generate for (g = 0; g < B*BO; g = g + 1) begin : mul_lane\n"
       "    for (j = 0; j < BI; j = j + 1) begin : mul\n"
       "      if (g * BI + j < DSP_PRODUCTS) begin : dsp\n"
       "        (* use_dsp = \"yes\" *) reg signed [PW-1:0] p;\n"
       "        always @(posedge clk)\n"
       "          p <= $signed(inp_r[((g / BO) * BI + j) * IW +: IW]) *\n"
       "               $signed(wgt_r[((g % BO) * BI + j) * WW +: WW]);\n"
       "        assign prod[(g * BI + j) * PW +: PW] = p;\n"
       "      end else begin : lut\n"
       "        (* use_dsp = \"no\" *) reg signed [PW-1:0] p;\n"
       "        always @(posedge clk)\n"
       "          p <= $signed(inp_r[((g / BO) * BI + j) * IW +: IW]) *\n"
       "               $signed(wgt_r[((g % BO) * BI + j) * WW +: WW]);\n"
       "        assign prod[(g * BI + j) * PW +: PW] = p;\n"
       "      end\n"
       "    end\n"
       "  end endgenerate\n";
  // Control and accumulator operands travel beside the data.
  const int stages_before_acc = 1 + s.tree_registers;
  v += fmt::format("  reg [{}:0] valid_q, reset_q;\n", stages_before_acc - 1);
  v += fmt::format("  reg [{}:0] acc_q [0:{}];\n", lanes * aw - 1, stages_before_acc - 1);
  if (stages_before_acc > 1) v += "  integer k;\n";
  v += "  always @(posedge clk) begin\n"
       "    valid_q[0] <= in_valid_r;\n"
       "    reset_q[0] <= in_reset_r;\n"
       "    acc_q[0] <= acc_r;\n";
  if (stages_before_acc > 1) {
    v += fmt::format(
        "    for (k = 1; k < {}; k = k + 1) begin\n"
        "      valid_q[k] <= valid_q[k-1];\n"
        "      reset_q[k] <= reset_q[k-1];\n"
        "      acc_q[k] <= acc_q[k-1];\n"
        "    end\n",
        stages_before_acc);
  }
  v += "  end\n\n";

  // Adder tree, one level at a time; widths grow by a bit per level up to the accumulator's.
  int n_prev = s.block_in, w_prev = pw;
  std::string prev = "prod";
  for (int level = 1; level <= s.tree_levels; ++level) {
    const int n = (n_prev + 1) / 2, w = std::min(w_prev + 1, aw);
    const bool reg = s.tree_level_registered(level);
    const std::string name = fmt::format("sum{}", level);
    v += fmt::format("  // Tree level {}: {} sums of {} bits{}.\n", level, n, w,
                     reg ? ", registered" : "");
    v += fmt::format("  wire [{}:0] {}_c;\n", lanes * n * w - 1, name);
    v += "  generate for (g = 0; g < B*BO; g = g + 1) begin : " + name + "_lane\n";
    v += fmt::format("    for (j = 0; j < {}; j = j + 1) begin : add\n", n);
    v += fmt::format("      if (2 * j + 1 < {}) begin : pair\n", n_prev);
    v += fmt::format(
        "        assign {0}_c[(g * {1} + j) * {2} +: {2}] =\n"
        "            $signed({3}[(g * {4} + 2 * j) * {5} +: {5}]) +\n"
        "            $signed({3}[(g * {4} + 2 * j + 1) * {5} +: {5}]);\n",
        name, n, w, prev, n_prev, w_prev);
    v += "      end else begin : single\n";
    v += fmt::format(
        "        assign {0}_c[(g * {1} + j) * {2} +: {2}] = $signed({3}[(g * {4} + 2 * j) * {5} "
        "+: {5}]);\n",
        name, n, w, prev, n_prev, w_prev);
    v += "      end\n    end\n  end endgenerate\n";
    if (reg) {
      v += fmt::format("  reg [{0}:0] {1};\n  always @(posedge clk) {1} <= {1}_c;\n\n",
                       lanes * n * w - 1, name);
    } else {
      v += fmt::format("  wire [{0}:0] {1} = {1}_c;\n\n", lanes * n * w - 1, name);
    }
    prev = name;
    n_prev = n;
    w_prev = w;
  }

  // Accumulate: acc' = wrap(acc + dot); acc = reset ? 0 : acc'; out = low OUT bits of acc'.
  v += fmt::format("  // Accumulate (wrapping at {} bits) and register.\n", aw);
  v += fmt::format("  wire [{}:0] dot = {};\n", lanes * w_prev - 1, prev);
  // The accumulator's full width is kept; the output buffer takes its low OUT bits only.
  v += "  /* verilator lint_off UNUSEDSIGNAL */\n";
  v += fmt::format("  reg  [{}:0] sum_q;\n", lanes * aw - 1);
  v += "  /* verilator lint_on UNUSEDSIGNAL */\n";
  v += "  generate for (g = 0; g < B*BO; g = g + 1) begin : acc_lane\n";
  v += fmt::format(
      "    wire [{1}-1:0] d = dot[g * {1} +: {1}];\n"
      "    wire [AW-1:0] s = acc_q[{0}][g * AW +: AW] + {2};  // the dot sign-extended\n"
      "    always @(posedge clk) begin\n"
      "      sum_q[g * AW +: AW] <= s;\n"
      "      acc_next[g * AW +: AW] <= reset_q[{0}] ? {{AW{{1'b0}}}} : s;\n"
      "    end\n"
      "    assign out_next[g * OW +: OW] = sum_q[g * AW +: OW];\n"
      "  end endgenerate\n",
      stages_before_acc - 1, w_prev,
      w_prev < aw ? fmt::format("{{{{{}{{d[{}]}}}}, d}}", aw - w_prev, w_prev - 1) : std::string("d"));
  v += fmt::format("  always @(posedge clk) out_valid <= valid_q[{}];\n", stages_before_acc - 1);
  v += "endmodule\n";
  return v;
}

}  // namespace tauvta::rtl
