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
  output reg  out_re,
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
  wire go, wr_idle;
  reg done;
  /* verilator lint_off PINCONNECTEMPTY */
  tauvta_insn_seq seq (.clk(clk), .rst(rst), .enable(enable), .cmd_valid(cmd_valid), .cmd(cmd),
      .cmd_ready(cmd_ready), .insn(insn), .need_pop0(pop_prev), .need_pop1(1'b0),
      .can_pop0(g2s_can_pop), .can_pop1(1'b0), .pop0(g2s_pop), .pop1(),
      .need_push0(push_prev), .need_push1(1'b0), .can_push0(s2g_can_push), .can_push1(1'b0),
      .push0(s2g_push), .push1(), .exec_go(go), .exec_done(done), .busy(busy),
      .wait_token(wait_token), .wait_push(wait_push), .retired(retired));
  /* verilator lint_on PINCONNECTEMPTY */
  localparam S_IDLE = 2'd0, S_NEXT = 2'd1, S_ROW = 2'd2;
  reg [1:0] state;
  reg [31:0] y, row_elem, sram_row, to_read;
  reg [31:0] sram_addr;
  reg row_cmd, started, rd_q;
  reg [2:0] credits;  // free places in the element queue not yet claimed by a read
  wire [31:0] xs = {16'd0, x_size};
  /* verilator lint_off UNUSEDSIGNAL */
  wire [31:0] row_byte = out_base + (row_elem << LOG_EO);
  /* verilator lint_on UNUSEDSIGNAL */
  wire q_valid, q_pop;
  wire [EWO-1:0] q_data;
  wire beat_valid, beat_ready;
  wire take = q_valid && q_pop;
  wire can_read = state == S_ROW && to_read != 0 && (credits != 0 || take);
  always @(posedge clk) begin
    done <= 1'b0;
    row_cmd <= 1'b0;
    out_re <= 1'b0;
    rd_q <= out_re;
    if (rst) begin
      state <= S_IDLE;
      credits <= 3'd4;
    end else begin
      case (state)
        S_IDLE: if (go) begin
          y <= 0;
          row_elem <= dram_base;
          sram_row <= {16'd0, sram_base};
          state <= S_NEXT;
        end
        S_NEXT: if (xs == 0 || y == {16'd0, y_size}) begin
          done <= 1'b1;
          state <= S_IDLE;
        end else begin
          row_cmd <= 1'b1;
          started <= 1'b0;
          to_read <= xs;
          sram_addr <= sram_row;
          state <= S_ROW;
        end
        default: begin  // S_ROW
          started <= 1'b1;
          if (can_read) begin
            out_re <= 1'b1;
            out_raddr <= sram_addr[AO-1:0];
            sram_addr <= sram_addr + 1;
            to_read <= to_read - 1;
          end
          if (started && wr_idle && to_read == 0) begin
            y <= y + 1;
            row_elem <= row_elem + {16'd0, x_stride};
            sram_row <= sram_row + xs;
            state <= S_NEXT;
          end
        end
      endcase
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
      .idle(wr_idle), .awvalid(awvalid), .awready(awready), .awaddr(awaddr), .awlen(awlen),
      .awsize(awsize), .awburst(awburst), .wvalid(wvalid), .wready(wready), .wstrb(wstrb),
      .wlast(wlast), .bvalid(bvalid), .bready(bready), .beat_valid(beat_valid),
      .beat_ready(beat_ready));
endmodule
