// The store module: runs STORE instructions in order. Row y takes x_size elements of the output
// buffer from sram_base + y * x_size and writes them to DRAM element dram_base + y * x_stride
// through its own AXI write master; the next row starts when the last write response of this one
// has arrived. Pops g2s (pop_prev), pushes s2g (push_prev).
module tauvta_store #(
  parameter LOG_B = 3,
  parameter MAX_BEATS = 16,
  parameter OUTST = 3,
  parameter OW = 3,
  parameter LOG_EO = 4,   // output element bytes, log2
  parameter EWO = 128,
  parameter AO = 11       // output buffer address bits
) (
  input  wire clk,
  input  wire rst,
  input  wire enable,
  input  wire cmd_valid,
  input  wire [127:0] cmd,
  output wire cmd_ready,
  input  wire g2s_can_pop,
  output wire g2s_pop,
  input  wire s2g_can_push,
  output wire s2g_push,
  input  wire [31:0] out_base,
  output reg  out_re,              // combinational: the read is in this cycle
  output reg  [AO-1:0] out_raddr,
  input  wire [EWO-1:0] out_rdata,   // one cycle after out_re
  output wire awvalid,
  input  wire awready,
  output wire [31:0] awaddr,
  output wire [7:0] awlen,
  output wire [2:0] awsize,
  output wire [1:0] awburst,
  output wire wvalid,
  input  wire wready,
  output wire [(8<<LOG_B)-1:0] wdata,
  output wire [(1<<LOG_B)-1:0] wstrb,
  output wire wlast,
  input  wire bvalid,
  output wire bready,
  output wire busy,
  output wire wait_token,
  output wire wait_push,
  output wire retired
);
  localparam R = LOG_EO >= LOG_B ? 1 : 1 << (LOG_B - LOG_EO);
  localparam [31:0] LANES = R - 1;
  /* verilator lint_off UNUSEDSIGNAL */
  // A STORE has no padding and no memory type; the next-module dependency bits have no queue here.
  wire [127:0] insn;
  wire [2:0] opcode, mem;
  wire pop_prev, pop_next, push_prev, push_next;
  wire [3:0] y_pad_0, y_pad_1, x_pad_0, x_pad_1;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [15:0] sram_base, y_size, x_size, x_stride;
  wire [31:0] dram_base;
  tauvta_insn_fields f (.insn(insn), .opcode(opcode), .pop_prev(pop_prev), .pop_next(pop_next),
      .push_prev(push_prev), .push_next(push_next), .mem(mem), .sram_base(sram_base),
      .dram_base(dram_base), .y_size(y_size), .x_size(x_size), .x_stride(x_stride),
      .y_pad_0(y_pad_0), .y_pad_1(y_pad_1), .x_pad_0(x_pad_0), .x_pad_1(x_pad_1));
  /* verilator lint_off UNUSEDSIGNAL */
  wire wr_idle;  // the row sequencing follows the last response instead
  /* verilator lint_on UNUSEDSIGNAL */
  wire go, done;
  /* verilator lint_off PINCONNECTEMPTY */
  tauvta_insn_seq seq (.clk(clk), .rst(rst), .enable(enable), .cmd_valid(cmd_valid), .cmd(cmd),
      .cmd_ready(cmd_ready), .insn(insn), .need_pop0(pop_prev), .need_pop1(1'b0),
      .can_pop0(g2s_can_pop), .can_pop1(1'b0), .pop0(g2s_pop), .pop1(),
      .need_push0(push_prev), .need_push1(1'b0), .can_push0(s2g_can_push), .can_push1(1'b0),
      .push0(s2g_push), .push1(), .exec_go(go), .exec_done(done), .busy(busy),
      .wait_token(wait_token), .wait_push(wait_push), .retired(retired));
  /* verilator lint_on PINCONNECTEMPTY */
  // Timing, as the timing model charges a STORE: the rows one after the other, each a memcpy whose
  // first burst goes out in the cycle after the previous row's last write response (the first in
  // the cycle after go); `done` is high in the cycle of the last response (combinational). The
  // buffer is read ahead of the bus, across rows (a STORE's buffer elements are consecutive).
  localparam S_IDLE = 2'd0, S_ROW_START = 2'd1, S_ROW = 2'd2;
  reg [1:0] state;
  reg [31:0] y, row_elem;
  reg [31:0] r_addr, r_x, r_y;  // the read side: next element, its place in the block
  reg [2:0] credits;  // free places in the element queue not yet claimed by a read
  wire [31:0] xs = {16'd0, x_size};
  wire [31:0] ys = {16'd0, y_size};
  wire no_data = xs == 0 || ys == 0;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [31:0] row_byte = out_base + (row_elem << LOG_EO);
  /* verilator lint_on UNUSEDSIGNAL */
  wire q_valid, q_pop;
  wire [EWO-1:0] q_data;
  wire beat_valid, beat_ready;
  wire take = q_valid && q_pop;
  reg reading;
  wire can_read = reading && (credits != 0 || take);
  wire b_last;  // the writer's last outstanding response is on the bus this cycle
  wire row_end = state == S_ROW && b_last;
  assign done = (go && state == S_IDLE && no_data) || (row_end && y + 1 == ys);
  wire row_cmd = state == S_ROW_START;
  always @(*) begin
    out_re = can_read;
    out_raddr = r_addr[AO-1:0];
  end
  reg rd_q;
  always @(posedge clk) begin
    rd_q <= out_re;
    if (rst) begin
      state <= S_IDLE;
      credits <= 3'd4;
      reading <= 1'b0;
    end else begin
      case (state)
        S_IDLE: if (go && !no_data) begin
          y <= 0;
          row_elem <= dram_base;
          state <= S_ROW_START;
        end
        S_ROW_START: state <= S_ROW;
        default: if (row_end) begin  // S_ROW
          if (y + 1 == ys) begin
            state <= S_IDLE;
          end else begin
            y <= y + 1;
            row_elem <= row_elem + {16'd0, x_stride};
            state <= S_ROW_START;
          end
        end
      endcase
      // The read side runs ahead: every element of the block, in buffer order.
      if (go && state == S_IDLE && !no_data) begin
        reading <= 1'b1;
        r_addr <= {16'd0, sram_base};
        r_x <= 0;
        r_y <= 0;
      end else if (can_read) begin
        r_addr <= r_addr + 1;
        if (r_x + 1 == xs) begin
          r_x <= 0;
          r_y <= r_y + 1;
          if (r_y + 1 == ys) reading <= 1'b0;
        end else begin
          r_x <= r_x + 1;
        end
      end
      credits <= credits - {2'b0, can_read} + {2'b0, take};
    end
  end
  // Elements read from the buffer wait here for the packer. A read takes three cycles from its
  // claim to the queue, so four places let a row stream one element per cycle.
  /* verilator lint_off PINCONNECTEMPTY */
  tauvta_fifo #(.W(EWO), .DEPTH(4), .PW(2)) q (.clk(clk), .rst(rst), .in_valid(rd_q),
      .in_ready(), .in_data(out_rdata), .out_valid(q_valid), .out_ready(q_pop), .out_data(q_data));
  /* verilator lint_on PINCONNECTEMPTY */
  tauvta_pack #(.LOG_B(LOG_B), .LOG_E(LOG_EO), .EW(EWO)) pack (.clk(clk), .rst(rst),
      .start(row_cmd), .start_lane((row_byte >> LOG_EO) & LANES), .count(xs),
      .elem_valid(q_valid), .elem_ready(q_pop), .elem(q_data), .beat_valid(beat_valid),
      .beat_ready(beat_ready), .beat(wdata));
  tauvta_axi_writer #(.LOG_B(LOG_B), .MAX_BEATS(MAX_BEATS), .OUTST(OUTST), .OW(OW)) writer (
      .clk(clk), .rst(rst), .cmd_valid(row_cmd), .cmd_addr(row_byte), .cmd_bytes(xs << LOG_EO),
      .idle(wr_idle), .last_response(b_last), .awvalid(awvalid), .awready(awready), .awaddr(awaddr), .awlen(awlen),
      .awsize(awsize), .awburst(awburst), .wvalid(wvalid), .wready(wready), .wstrb(wstrb),
      .wlast(wlast), .bvalid(bvalid), .bready(bready), .beat_valid(beat_valid),
      .beat_ready(beat_ready));
endmodule
