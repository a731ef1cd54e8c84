// The tensor ALU as Verilog: MIN, MAX, ADD, SHR (and MUL when the config has it) over the lanes
// of one accumulator vector, with an immediate or a second vector (docs/vta_isa.md section 4, ALU). With
// fewer lanes than the vector has, the vector goes through the lanes in passes.
#include <fmt/format.h>

#include "rtl/verilog_emit.h"

namespace tauvta::rtl {

namespace {

// One lane's operation on signed x and y (declared by the caller), result in `f`.
std::string lane_function(const DatapathShape& s) {
  std::string v;
  v += "      wire [LAW-1:0] sh = y[LAW-1:0];  // signed shift: negative shifts left\n"
       "      wire [LAW-1:0] sh_mag = sh[LAW-1] ? (~sh + 1'b1) : sh;\n"
       "      wire signed [AW-1:0] shifted = sh[LAW-1] ? (x <<< sh_mag) : (x >>> sh_mag);\n";
  if (s.alu_mul) v += "      wire signed [AW-1:0] product = x * y;\n";
  v += "      reg signed [AW-1:0] f;\n"
       "      always @(*) begin\n"
       "        case (op_x)\n"
       "          3'd0: f = (x < y) ? x : y;\n"
       "          3'd1: f = (x > y) ? x : y;\n"
       "          3'd2: f = x + y;\n"
       "          3'd3: f = shifted;\n";
  if (s.alu_mul) v += "          3'd4: f = product;\n";
  v += "          default: f = x;\n"
       "        endcase\n"
       "      end\n";
  return v;
}

}  // namespace

std::string emit_alu(const DatapathShape& s) {
  const int aw = s.acc_width, V = s.alu_vector, L = s.alu_lanes, P = s.alu_passes;
  int law = 0;
  while ((1 << law) < aw) ++law;
  std::string v;
  v += fmt::format(
      "// Tensor ALU: {} lane(s) of int{} over a {}-lane vector in {} pass(es); MIN MAX ADD SHR{}.\n"
      "// Latency {} cycle(s); a new vector every {} cycle(s).\n",
      L, aw, V, P, s.alu_mul ? " MUL" : "", s.alu_latency, P);
  v += "module tauvta_alu (\n"
       "  input  wire clk,\n"
       "  input  wire in_valid,\n"
       "  input  wire [2:0] op,\n"
       "  input  wire use_imm,\n"
       "  input  wire [15:0] imm,\n";
  v += fmt::format("  input  wire [{}:0] a,\n", V * aw - 1);
  v += fmt::format("  input  wire [{}:0] b,\n", V * aw - 1);
  v += "  output reg  out_valid,\n";
  v += fmt::format("  output wire [{}:0] r,\n", V * aw - 1);
  v += fmt::format("  output wire [{}:0] o\n);\n", V * s.out_width - 1);
  v += fmt::format("  localparam AW = {}, LAW = {}, OW = {}, V = {};\n", aw, law, s.out_width, V);
  if (P > 1) v += fmt::format("  localparam L = {}, P = {};  // lanes, passes per vector\n", L, P);
  v += "  genvar j;\n";
  // The 16-bit immediate sign-extended to the accumulator's width (explicitly: lint-clean).
  v += fmt::format("  wire [AW-1:0] imm_ext = {};\n",
                   aw > 16 ? fmt::format("{{{{{}{{imm[15]}}}}, imm}}", aw - 16) : std::string("imm"));
  if (P == 1) {
    // Three stages: operands (the immediate chosen on the way in), each operation's result
    // (a DSP slice's M register for MUL), the operation select.
    v += "  reg valid_r, valid_2;\n"
         "  reg [2:0] op_r, op_2;\n"
         "  reg [V*AW-1:0] a_r, y_r;\n"
         "  wire signed [AW-1:0] imm_x = imm_ext;\n"
         "  always @(posedge clk) begin\n"
         "    valid_r <= in_valid;\n"
         "    op_r <= op;\n"
         "    a_r <= a;\n"
         "    valid_2 <= valid_r;\n"
         "    op_2 <= op_r;\n"
         "    out_valid <= valid_2;\n"
         "  end\n"
         "  reg [V*AW-1:0] r_q;\n"
         "  generate for (j = 0; j < V; j = j + 1) begin : lane\n"
         "      always @(posedge clk) y_r[j*AW +: AW] <= use_imm ? imm_x : b[j*AW +: AW];\n"
         "      wire signed [AW-1:0] x = a_r[j*AW +: AW];\n"
         "      wire signed [AW-1:0] y = y_r[j*AW +: AW];\n"
         "      wire [LAW-1:0] sh = y[LAW-1:0];  // signed shift: negative shifts left\n"
         "      wire [LAW-1:0] sh_mag = sh[LAW-1] ? (~sh + 1'b1) : sh;\n"
         "      reg signed [AW-1:0] min_q, max_q, add_q, shr_q;\n";
    if (s.alu_mul) v += "      (* use_dsp = \"yes\" *) reg signed [AW-1:0] mul_q;\n";
    v += "      reg signed [AW-1:0] x_q;\n"
         "      always @(posedge clk) begin\n"
         "        min_q <= (x < y) ? x : y;\n"
         "        max_q <= (x > y) ? x : y;\n"
         "        add_q <= x + y;\n"
         "        shr_q <= sh[LAW-1] ? (x <<< sh_mag) : (x >>> sh_mag);\n"
         "        x_q <= x;\n";
    if (s.alu_mul) v += "        mul_q <= x * y;\n";
    v += "      end\n"
         "      always @(posedge clk)\n"
         "        case (op_2)\n"
         "          3'd0: r_q[j*AW +: AW] <= min_q;\n"
         "          3'd1: r_q[j*AW +: AW] <= max_q;\n"
         "          3'd2: r_q[j*AW +: AW] <= add_q;\n"
         "          3'd3: r_q[j*AW +: AW] <= shr_q;\n";
    if (s.alu_mul) v += "          3'd4: r_q[j*AW +: AW] <= mul_q;\n";
    v += "          default: r_q[j*AW +: AW] <= x_q;\n"
         "        endcase\n"
         "  end endgenerate\n";
  } else {
    int pass_bits = 0;
    while ((1 << pass_bits) < P) ++pass_bits;
    v += fmt::format("  reg [{}:0] pass;\n", pass_bits - 1);
    v += fmt::format("  localparam [{}:0] LAST_PASS = {};\n", pass_bits - 1, P - 1);
    v += "  reg running;\n"
         "  reg [2:0] op_x;\n"
         "  reg use_imm_q;\n"
         "  reg signed [AW-1:0] imm_x;\n"
         "  reg [P*L*AW-1:0] va, vb;\n"
         // A partial last pass computes lanes past the vector's end; r and o never read them.
         "  /* verilator lint_off UNUSEDSIGNAL */\n"
         "  reg [P*L*AW-1:0] r_q;\n"
         "  /* verilator lint_on UNUSEDSIGNAL */\n"
         "  always @(posedge clk) begin\n"
         "    if (in_valid) begin\n"
         + std::string(P * L == V ? "      va <= a;\n      vb <= b;\n"
                                   : "      va <= {{(P*L-V)*AW{1'b0}}, a};\n"
                                     "      vb <= {{(P*L-V)*AW{1'b0}}, b};\n") +
         "      op_x <= op;\n"
         "      use_imm_q <= use_imm;\n"
         "      imm_x <= imm_ext;\n"
         "      pass <= 0;\n"
         "      running <= 1'b1;\n"
         "    end else if (running) begin\n"
         "      if (pass == LAST_PASS) running <= 1'b0;\n"
         "      else pass <= pass + 1'b1;\n"
         "    end\n"
         "    out_valid <= running && pass == LAST_PASS;\n"
         "  end\n"
         "  initial running = 1'b0;\n"
         "  wire [L*AW-1:0] f_lanes;  // this pass's results, lane by lane\n"
         "  generate for (j = 0; j < L; j = j + 1) begin : lane\n"
         "      wire signed [AW-1:0] x = va[(pass * L + j) * AW +: AW];\n"
         "      wire signed [AW-1:0] y = use_imm_q ? imm_x : $signed(vb[(pass * L + j) * AW +: AW]);\n";
    v += lane_function(s);
    // Each pass's results go to a slice of r_q at a constant position, one always block per
    // pass: a lane writing r_q at a pass-dependent position from its own always block gives
    // every bit of r_q a driver per lane (yosys: "multiple conflicting drivers"), which
    // simulates but does not synthesize to the same hardware.
    v += "      assign f_lanes[j*AW +: AW] = f;\n"
         "  end endgenerate\n"
         "  genvar q;\n"
         "  generate for (q = 0; q < P; q = q + 1) begin : pass_write\n";
    v += fmt::format("    localparam [{}:0] Q = q;\n", pass_bits - 1);
    v += "    always @(posedge clk) if (running && pass == Q) r_q[q*L*AW +: L*AW] <= f_lanes;\n"
         "  end endgenerate\n";
  }
  v += "  assign r = r_q[V*AW-1:0];\n"
       "  generate for (j = 0; j < V; j = j + 1) begin : narrow\n"
       "    assign o[j*OW +: OW] = r_q[j*AW +: OW];\n"
       "  end endgenerate\n"
       "endmodule\n";
  return v;
}

}  // namespace tauvta::rtl
