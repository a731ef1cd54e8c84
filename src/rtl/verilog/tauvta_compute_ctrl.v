// The compute module's control: runs its queue in order (docs/vta_isa.md section 3). LOADs of
// micro-ops and accumulators go through its own AXI read master into the datapath's buffers;
// GEMM and ALU start the datapath (tauvta_compute) and wait for it; FINISH raises `finished`.
// Pops l2g (pop_prev) and s2g (pop_next), pushes g2l (push_prev) and g2s (push_next).
module tauvta_compute_ctrl #(
  parameter LOG_B = 3,
  parameter MAX_BEATS = 16,
  parameter OUTST = 7,
  parameter OW = 4,
  parameter U = 13,       // micro-op buffer address bits
  parameter LOG_EA = 6,   // accumulator element bytes, log2
  parameter EWA = 512,
  parameter A = 11,
  parameter HW = 2048     // the datapath's host port width
) (
  input  wire clk,
  input  wire rst,
  input  wire enable,
  input  wire cmd_valid,
  input  wire [127:0] cmd,
  output wire cmd_ready,
  input  wire l2g_can_pop,
  output wire l2g_pop,
  input  wire s2g_can_pop,
  output wire s2g_pop,
  input  wire g2l_can_push,
  output wire g2l_push,
  input  wire g2s_can_push,
  output wire g2s_push,
  input  wire [31:0] uop_base,
  input  wire [31:0] acc_base,
  // The datapath.
  output wire dp_start,
  output wire [127:0] dp_insn,
  input  wire dp_finishing,  // the datapath's last cycle of the instruction
  output wire host_we,
  output wire [2:0] host_mem,
  output wire [31:0] host_addr,
  output wire [HW-1:0] host_wdata,
  output wire finished,   // FINISH retires in this cycle
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
  wire [127:0] insn;
  wire [2:0] opcode, mem;
  wire pop_prev, pop_next, push_prev, push_next;
  wire [15:0] sram_base, y_size, x_size, x_stride;
  wire [31:0] dram_base;
  wire [3:0] y_pad_0, y_pad_1, x_pad_0, x_pad_1;
  tauvta_insn_fields f (.insn(insn), .opcode(opcode), .pop_prev(pop_prev), .pop_next(pop_next),
      .push_prev(push_prev), .push_next(push_next), .mem(mem), .sram_base(sram_base),
      .dram_base(dram_base), .y_size(y_size), .x_size(x_size), .x_stride(x_stride),
      .y_pad_0(y_pad_0), .y_pad_1(y_pad_1), .x_pad_0(x_pad_0), .x_pad_1(x_pad_1));
  wire go, done_load;
  reg dp_running;
  // The datapath's instruction is done in the cycle of its last accumulator write.
  wire dp_done = dp_running && dp_finishing;
  // FINISH and LOADs of other buffers do nothing: done in their issue cycle.
  wire quick_done;
  /* verilator lint_off PINCONNECTEMPTY */
  tauvta_insn_seq seq (.clk(clk), .rst(rst), .enable(enable), .cmd_valid(cmd_valid), .cmd(cmd),
      .cmd_ready(cmd_ready), .insn(insn), .need_pop0(pop_prev), .need_pop1(pop_next),
      .can_pop0(l2g_can_pop), .can_pop1(s2g_can_pop), .pop0(l2g_pop), .pop1(s2g_pop),
      .need_push0(push_prev), .need_push1(push_next), .can_push0(g2l_can_push),
      .can_push1(g2s_can_push), .push0(g2l_push), .push1(g2s_push), .exec_go(go),
      .exec_done(done_load || dp_done || quick_done), .busy(busy),
      .wait_token(wait_token), .wait_push(wait_push), .retired(retired));
  /* verilator lint_on PINCONNECTEMPTY */
  wire is_load = opcode == 3'd0;
  wire is_uop = is_load && mem == 3'd0;
  wire is_acc = is_load && mem == 3'd3;
  wire is_dp = opcode == 3'd2 || opcode == 3'd4;
  assign dp_start = go && is_dp;
  assign dp_insn = insn;
  assign quick_done = go && !is_uop && !is_acc && !is_dp;
  assign finished = retired && opcode == 3'd3;
  always @(posedge clk) begin
    if (rst) dp_running <= 1'b0;
    else if (dp_start) dp_running <= 1'b1;
    else if (dp_done) dp_running <= 1'b0;
  end
  wire we_u, we_a;
  wire [U-1:0] waddr_u;
  wire [A-1:0] waddr_a;
  wire [31:0] wdata_u;
  wire [EWA-1:0] wdata_a;
  // Engine A: micro-ops (one row of x_size); engine B: accumulators (padded).
  tauvta_load_pair #(.LOG_B(LOG_B), .MAX_BEATS(MAX_BEATS), .OUTST(OUTST), .OW(OW),
      .LOG_EA(2), .EWA(32), .ADA(U), .PAD_A(0), .ONE_ROW_A(1),
      .LOG_EB(LOG_EA), .EWB(EWA), .ADB(A), .PAD_B(1), .ONE_ROW_B(0)) engines (
      .clk(clk), .rst(rst), .go(go && (is_uop || is_acc)), .sel(is_acc), .done(done_load),
      .base_a(uop_base), .base_b(acc_base), .sram_base(sram_base), .dram_base(dram_base),
      .y_size(y_size), .x_size(x_size), .x_stride(x_stride), .y_pad_0(y_pad_0),
      .y_pad_1(y_pad_1), .x_pad_0(x_pad_0), .x_pad_1(x_pad_1), .we_a(we_u), .waddr_a(waddr_u),
      .wdata_a(wdata_u), .we_b(we_a), .waddr_b(waddr_a), .wdata_b(wdata_a), .arvalid(arvalid),
      .arready(arready), .araddr(araddr), .arlen(arlen), .arsize(arsize), .arburst(arburst),
      .rvalid(rvalid), .rready(rready), .rdata(rdata), .rlast(rlast));
  assign host_we = we_u || we_a;
  assign host_mem = we_u ? 3'd0 : 3'd3;
  // Zero-extended to the host port (an always block: the widths may be equal).
  reg [31:0] haddr;
  reg [HW-1:0] hdata;
  always @(*) begin
    haddr = 0;
    hdata = 0;
    if (we_u) begin
      haddr[U-1:0] = waddr_u;
      hdata[31:0] = wdata_u;
    end else begin
      haddr[A-1:0] = waddr_a;
      hdata[EWA-1:0] = wdata_a;
    end
  end
  assign host_addr = haddr;
  assign host_wdata = hdata;
endmodule
