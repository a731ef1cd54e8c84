// The load module: runs LOAD instructions of the input and weight buffers, in order, through its
// own AXI read master. Pops g2l when pop_next is set, pushes l2g when push_next is set (the
// other dependency bits have no queue here and are ignored).
module tauvta_load #(
  parameter LOG_B = 3,
  parameter MAX_BEATS = 16,
  parameter OUTST = 7,
  parameter OW = 4,
  parameter LOG_EI = 4,   // input element bytes, log2
  parameter EWI = 128,
  parameter AI = 11,      // input buffer address bits
  parameter LOG_EW = 8,   // weight element bytes, log2
  parameter EWW = 2048,
  parameter AW = 10
) (
  input  wire clk,
  input  wire rst,
  input  wire enable,
  input  wire cmd_valid,
  input  wire [127:0] cmd,
  output wire cmd_ready,
  input  wire g2l_can_pop,
  output wire g2l_pop,
  input  wire l2g_can_push,
  output wire l2g_push,
  input  wire [31:0] inp_base,
  input  wire [31:0] wgt_base,
  output wire inp_we,
  output wire [AI-1:0] inp_waddr,
  output wire [EWI-1:0] inp_wdata,
  output wire wgt_we,
  output wire [AW-1:0] wgt_waddr,
  output wire [EWW-1:0] wgt_wdata,
  output wire arvalid,
  input  wire arready,
  output wire [31:0] araddr,
  output wire [7:0] arlen,
  output wire [2:0] arsize,
  output wire [1:0] arburst,
  input  wire rvalid,
  output wire rready,
  input  wire [(8<<LOG_B)-1:0] rdata,
  input  wire rlast,
  output wire busy,
  output wire wait_token,
  output wire wait_push,
  output wire retired
);
  /* verilator lint_off UNUSEDSIGNAL */
  // A LOAD uses neither the prev dependency bits nor the opcode here (fetch routed it).
  wire [127:0] insn;
  wire [2:0] opcode, mem;
  wire pop_prev, pop_next, push_prev, push_next;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [15:0] sram_base, y_size, x_size, x_stride;
  wire [31:0] dram_base;
  wire [3:0] y_pad_0, y_pad_1, x_pad_0, x_pad_1;
  tauvta_insn_fields f (.insn(insn), .opcode(opcode), .pop_prev(pop_prev), .pop_next(pop_next),
      .push_prev(push_prev), .push_next(push_next), .mem(mem), .sram_base(sram_base),
      .dram_base(dram_base), .y_size(y_size), .x_size(x_size), .x_stride(x_stride),
      .y_pad_0(y_pad_0), .y_pad_1(y_pad_1), .x_pad_0(x_pad_0), .x_pad_1(x_pad_1));
  wire go, done;
  /* verilator lint_off PINCONNECTEMPTY */
  tauvta_insn_seq seq (.clk(clk), .rst(rst), .enable(enable), .cmd_valid(cmd_valid), .cmd(cmd),
      .cmd_ready(cmd_ready), .insn(insn), .need_pop0(pop_next), .need_pop1(1'b0),
      .can_pop0(g2l_can_pop), .can_pop1(1'b0), .pop0(g2l_pop), .pop1(),
      .need_push0(push_next), .need_push1(1'b0), .can_push0(l2g_can_push), .can_push1(1'b0),
      .push0(l2g_push), .push1(), .exec_go(go), .exec_done(done), .busy(busy),
      .wait_token(wait_token), .wait_push(wait_push), .retired(retired));
  /* verilator lint_on PINCONNECTEMPTY */
  // Engine A: inputs (padded); engine B: weights (pads ignored). Fetch routes only these here.
  tauvta_load_pair #(.LOG_B(LOG_B), .MAX_BEATS(MAX_BEATS), .OUTST(OUTST), .OW(OW),
      .LOG_EA(LOG_EI), .EWA(EWI), .ADA(AI), .PAD_A(1), .ONE_ROW_A(0),
      .LOG_EB(LOG_EW), .EWB(EWW), .ADB(AW), .PAD_B(0), .ONE_ROW_B(0)) engines (
      .clk(clk), .rst(rst), .go(go), .sel(mem != 3'd2), .done(done), .base_a(inp_base),
      .base_b(wgt_base), .sram_base(sram_base), .dram_base(dram_base), .y_size(y_size),
      .x_size(x_size), .x_stride(x_stride), .y_pad_0(y_pad_0), .y_pad_1(y_pad_1),
      .x_pad_0(x_pad_0), .x_pad_1(x_pad_1), .we_a(inp_we), .waddr_a(inp_waddr),
      .wdata_a(inp_wdata), .we_b(wgt_we), .waddr_b(wgt_waddr), .wdata_b(wgt_wdata),
      .arvalid(arvalid), .arready(arready), .araddr(araddr), .arlen(arlen), .arsize(arsize),
      .arburst(arburst), .rvalid(rvalid), .rready(rready), .rdata(rdata), .rlast(rlast));
endmodule
