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
  wire go, done_u, done_a, beat_ready_u, beat_ready_a, cmd_u, cmd_a;
  wire [31:0] addr_u, addr_a, bytes_u, bytes_a;
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
      .exec_done(done_u || done_a || dp_done || quick_done), .busy(busy),
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
  tauvta_load_engine #(.LOG_B(LOG_B), .LOG_E(2), .EW(32), .AD(U), .PAD(0), .ONE_ROW(1)) uop (
      .clk(clk), .rst(rst), .go(go && is_uop), .done(done_u), .base(uop_base),
      .sram_base(sram_base), .dram_base(dram_base), .y_size(y_size), .x_size(x_size),
      .x_stride(x_stride), .y_pad_0(y_pad_0), .y_pad_1(y_pad_1), .x_pad_0(x_pad_0),
      .x_pad_1(x_pad_1), .rd_cmd(cmd_u), .rd_addr(addr_u), .rd_bytes(bytes_u),
      .rvalid(rvalid && is_uop), .rdata(rdata), .beat_ready(beat_ready_u), .we(we_u),
      .waddr(waddr_u), .wdata(wdata_u));
  tauvta_load_engine #(.LOG_B(LOG_B), .LOG_E(LOG_EA), .EW(EWA), .AD(A), .PAD(1), .ONE_ROW(0)) acc (
      .clk(clk), .rst(rst), .go(go && is_acc), .done(done_a), .base(acc_base),
      .sram_base(sram_base), .dram_base(dram_base), .y_size(y_size), .x_size(x_size),
      .x_stride(x_stride), .y_pad_0(y_pad_0), .y_pad_1(y_pad_1), .x_pad_0(x_pad_0),
      .x_pad_1(x_pad_1), .rd_cmd(cmd_a), .rd_addr(addr_a), .rd_bytes(bytes_a),
      .rvalid(rvalid && is_acc), .rdata(rdata), .beat_ready(beat_ready_a), .we(we_a),
      .waddr(waddr_a), .wdata(wdata_a));
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
  /* verilator lint_off PINCONNECTEMPTY */
  tauvta_axi_reader #(.LOG_B(LOG_B), .MAX_BEATS(MAX_BEATS), .OUTST(OUTST), .OW(OW)) reader (
      .clk(clk), .rst(rst), .cmd_valid(cmd_u || cmd_a), .cmd_addr(is_uop ? addr_u : addr_a),
      .cmd_bytes(is_uop ? bytes_u : bytes_a), .idle(), .ar_hold(1'b0), .arvalid(arvalid),
      .arready(arready), .araddr(araddr), .arlen(arlen), .arsize(arsize), .arburst(arburst),
      .rvalid(rvalid), .rready(rready), .rlast(rlast),
      .beat_ready(is_uop ? beat_ready_u : beat_ready_a), .ar_fire(), .ar_beats());
  /* verilator lint_on PINCONNECTEMPTY */
endmodule
