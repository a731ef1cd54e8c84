// Two buffers' LOADs behind one AXI read master: the load module's inputs and weights, the
// compute module's micro-ops and accumulators. `sel` (stable while a LOAD runs) picks engine B;
// the idle engine sees no read data.
module tauvta_load_pair #(
  parameter LOG_B = 3,
  parameter MAX_BEATS = 16,
  parameter OUTST = 7,
  parameter OW = 4,
  // Engine A.
  parameter LOG_EA = 4,
  parameter EWA = 128,
  parameter ADA = 11,
  parameter PAD_A = 1,
  parameter ONE_ROW_A = 0,
  // Engine B.
  parameter LOG_EB = 8,
  parameter EWB = 2048,
  parameter ADB = 10,
  parameter PAD_B = 0,
  parameter ONE_ROW_B = 0
) (
  input  wire clk,
  input  wire rst,
  input  wire go,          // one cycle: run the LOAD below on engine `sel`
  input  wire sel,         // 0: engine A, 1: engine B
  output wire done,
  input  wire [31:0] base_a,
  input  wire [31:0] base_b,
  input  wire [15:0] sram_base,
  input  wire [31:0] dram_base,
  input  wire [15:0] y_size,
  input  wire [15:0] x_size,
  input  wire [15:0] x_stride,
  input  wire [3:0] y_pad_0,
  input  wire [3:0] y_pad_1,
  input  wire [3:0] x_pad_0,
  input  wire [3:0] x_pad_1,
  output wire we_a,
  output wire [ADA-1:0] waddr_a,
  output wire [EWA-1:0] wdata_a,
  output wire we_b,
  output wire [ADB-1:0] waddr_b,
  output wire [EWB-1:0] wdata_b,
  output wire arvalid,
  input  wire arready,
  output wire [31:0] araddr,
  output wire [7:0] arlen,
  output wire [2:0] arsize,
  output wire [1:0] arburst,
  input  wire rvalid,
  output wire rready,
  input  wire [(8<<LOG_B)-1:0] rdata,
  input  wire rlast
);
  wire done_a, done_b, ready_a, ready_b, cmd_a, cmd_b;
  wire [31:0] addr_a, addr_b, bytes_a, bytes_b;
  assign done = done_a || done_b;
  tauvta_load_engine #(.LOG_B(LOG_B), .LOG_E(LOG_EA), .EW(EWA), .AD(ADA), .PAD(PAD_A), .ONE_ROW(ONE_ROW_A)) a (
      .clk(clk), .rst(rst), .go(go && !sel), .done(done_a), .base(base_a), .sram_base(sram_base),
      .dram_base(dram_base), .y_size(y_size), .x_size(x_size), .x_stride(x_stride),
      .y_pad_0(y_pad_0), .y_pad_1(y_pad_1), .x_pad_0(x_pad_0), .x_pad_1(x_pad_1), .rd_cmd(cmd_a),
      .rd_addr(addr_a), .rd_bytes(bytes_a), .rvalid(rvalid && !sel), .rdata(rdata),
      .beat_ready(ready_a), .we(we_a), .waddr(waddr_a), .wdata(wdata_a));
  tauvta_load_engine #(.LOG_B(LOG_B), .LOG_E(LOG_EB), .EW(EWB), .AD(ADB), .PAD(PAD_B), .ONE_ROW(ONE_ROW_B)) b (
      .clk(clk), .rst(rst), .go(go && sel), .done(done_b), .base(base_b), .sram_base(sram_base),
      .dram_base(dram_base), .y_size(y_size), .x_size(x_size), .x_stride(x_stride),
      .y_pad_0(y_pad_0), .y_pad_1(y_pad_1), .x_pad_0(x_pad_0), .x_pad_1(x_pad_1), .rd_cmd(cmd_b),
      .rd_addr(addr_b), .rd_bytes(bytes_b), .rvalid(rvalid && sel), .rdata(rdata),
      .beat_ready(ready_b), .we(we_b), .waddr(waddr_b), .wdata(wdata_b));
  /* verilator lint_off PINCONNECTEMPTY */
  tauvta_axi_reader #(.LOG_B(LOG_B), .MAX_BEATS(MAX_BEATS), .OUTST(OUTST), .OW(OW)) reader (
      .clk(clk), .rst(rst), .cmd_valid(cmd_a || cmd_b), .cmd_addr(sel ? addr_b : addr_a),
      .cmd_bytes(sel ? bytes_b : bytes_a), .idle(), .ar_hold(1'b0), .arvalid(arvalid),
      .arready(arready), .araddr(araddr), .arlen(arlen), .arsize(arsize), .arburst(arburst),
      .rvalid(rvalid), .rready(rready), .rlast(rlast), .beat_ready(sel ? ready_b : ready_a),
      .ar_fire(), .ar_beats());
  /* verilator lint_on PINCONNECTEMPTY */
endmodule
