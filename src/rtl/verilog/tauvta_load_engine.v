// One LOAD instruction's work for one buffer (docs/vta_isa.md section 4): the dense block of
// (y_pad_0 + y_size + y_pad_1) x (x_pad_0 + x_size + x_pad_1) elements from sram_base, its rows
// read from DRAM element dram_base + y * x_stride, the padding written as zeros one element per
// cycle. PAD = 0 ignores the pad fields (weights); ONE_ROW = 1 reads x_size elements from
// dram_base and ignores the rest (micro-ops).
//
// Timing, as the timing model charges a LOAD: the rows one after the other, each a memcpy whose
// first burst is requested in the cycle after the previous row completed (the first in the cycle
// after go), then the padding. The block's padding is at most three kinds of contiguous runs: the
// top rows with the first row's left padding, between two data rows the right padding of one and
// the left of the next, and the last row's right padding with the bottom rows. `done` is
// combinational: high in the last cycle of the work (the go cycle itself when there is none).
module tauvta_load_engine #(
  parameter LOG_B = 3,
  parameter LOG_E = 4,
  parameter EW = 128,
  parameter AD = 11,      // buffer address bits
  parameter PAD = 1,
  parameter ONE_ROW = 0
) (
  input  wire clk,
  input  wire rst,
  input  wire go,          // one cycle: start the instruction below (stable until done)
  output wire done,
  input  wire [31:0] base, // byte address the DRAM element addresses are relative to
  input  wire [15:0] sram_base,
  input  wire [31:0] dram_base,
  input  wire [15:0] y_size,
  input  wire [15:0] x_size,
  input  wire [15:0] x_stride,
  input  wire [3:0] y_pad_0,
  input  wire [3:0] y_pad_1,
  input  wire [3:0] x_pad_0,
  input  wire [3:0] x_pad_1,
  // The module's read master (tauvta_axi_reader) and the row's beats.
  output wire rd_cmd,
  output wire [31:0] rd_addr,
  output wire [31:0] rd_bytes,
  input  wire rvalid,
  input  wire [(8<<LOG_B)-1:0] rdata,
  output wire beat_ready,
  // The buffer's write port (registered: the write lands the cycle after its element arrived).
  output reg  we,
  output reg  [AD-1:0] waddr,
  output reg  [EW-1:0] wdata
);
  localparam R = LOG_E >= LOG_B ? 1 : 1 << (LOG_B - LOG_E);  // elements per beat
  localparam [31:0] LANES = R - 1;
  localparam S_IDLE = 2'd0, S_ROW_START = 2'd1, S_ROW = 2'd2, S_PAD = 2'd3;
  localparam RUN_TOP = 2'd0, RUN_MID = 2'd1, RUN_BOTTOM = 2'd2;
  reg [1:0] state, run;
  reg [31:0] y;          // data row being read
  reg [31:0] row_elem;   // its DRAM element
  reg [31:0] got;        // its elements written
  reg [31:0] addr;       // the next data element's buffer address
  reg [31:0] pad_addr, pad_left, mid_addr, bottom_addr;
  reg [31:0] mids_left;  // between-row runs still to write
  // The instruction as this buffer sees it (counts in 32 bits; products of the narrow ones).
  /* verilator lint_off UNUSEDSIGNAL */
  wire [31:0] yp0 = PAD ? {28'd0, y_pad_0} : 32'd0;
  wire [31:0] yp1 = PAD ? {28'd0, y_pad_1} : 32'd0;
  wire [31:0] xp0 = PAD ? {28'd0, x_pad_0} : 32'd0;
  wire [31:0] xp1 = PAD ? {28'd0, x_pad_1} : 32'd0;
  wire [31:0] rows = ONE_ROW ? 32'd1 : {16'd0, y_size};
  wire [31:0] xs = {16'd0, x_size};
  wire [31:0] xtot = xp0 + xs + xp1;
  wire [20:0] top_rows = {17'd0, yp0[3:0]} * {4'd0, xtot[16:0]};
  wire [20:0] bottom_rows = {17'd0, yp1[3:0]} * {4'd0, xtot[16:0]};
  wire [16:0] ytot = yp0[16:0] + rows[16:0] + yp1[16:0];
  wire [33:0] all_pads = {17'd0, ytot} * {17'd0, xtot[16:0]};
  // Byte addresses are 32 bits: a row's DRAM element shifted by the element size.
  wire [31:0] row_byte = base + (row_elem << LOG_E);
  /* verilator lint_on UNUSEDSIGNAL */
  wire [31:0] top = {11'd0, top_rows} + xp0;     // the first run
  wire [31:0] mid = xp1 + xp0;                   // each run between two data rows
  wire [31:0] bottom = xp1 + {11'd0, bottom_rows};  // the last run
  wire no_data = rows == 0 || xs == 0;
  wire [31:0] sram0 = {16'd0, sram_base};
  assign rd_cmd = state == S_ROW_START;
  assign rd_addr = row_byte;
  assign rd_bytes = xs << LOG_E;
  wire [EW-1:0] elem;
  wire elem_valid;
  tauvta_unpack #(.LOG_B(LOG_B), .LOG_E(LOG_E), .EW(EW)) unpack (
      .clk(clk), .rst(rst), .start(rd_cmd), .start_lane((row_byte >> LOG_E) & LANES),
      .count(xs), .rvalid(rvalid), .rdata(rdata), .beat_ready(beat_ready),
      .elem_valid(elem_valid), .elem(elem));
  wire row_last = state == S_ROW && elem_valid && got + 1 == xs;
  wire rows_done = row_last && y + 1 == rows;
  // The runs after the data, in order; `after` picks the first non-empty one from a point.
  wire first_run_top = top != 0;
  wire mids = mid != 0 && rows > 1;
  wire pad_last = state == S_PAD && pad_left == 1 &&
                  (run == RUN_BOTTOM || (run == RUN_MID && mids_left == 1 && bottom == 0) ||
                   (run == RUN_TOP && !mids && bottom == 0));
  wire go_nothing = go && state == S_IDLE && (no_data ? all_pads == 0 : 1'b0);
  assign done = go_nothing || (rows_done && top == 0 && !mids && bottom == 0) || pad_last;
  always @(posedge clk) begin
    we <= 1'b0;
    if (rst) begin
      state <= S_IDLE;
    end else begin
      case (state)
        S_IDLE: if (go) begin
          if (no_data) begin
            // The whole block is padding: one run.
            pad_addr <= sram0;
            pad_left <= all_pads[31:0];
            run <= RUN_BOTTOM;
            if (all_pads != 0) state <= S_PAD;
          end else begin
            y <= 0;
            row_elem <= dram_base;
            addr <= sram0 + top;
            mid_addr <= sram0 + top + xs;
            state <= S_ROW_START;
          end
        end
        S_ROW_START: begin
          got <= 0;
          state <= S_ROW;
        end
        S_ROW: if (elem_valid) begin
          we <= 1'b1;
          waddr <= addr[AD-1:0];
          wdata <= elem;
          got <= got + 1;
          if (got + 1 == xs) begin
            // The row is complete: the next row's memcpy, or the padding.
            addr <= addr + 1 + mid;
            if (y + 1 != rows) begin
              y <= y + 1;
              row_elem <= row_elem + {16'd0, x_stride};
              state <= S_ROW_START;
            end else begin
              bottom_addr <= addr + 1;
              mids_left <= rows - 1;
              if (first_run_top) begin
                run <= RUN_TOP;
                pad_addr <= sram0;
                pad_left <= top;
                state <= S_PAD;
              end else if (mids) begin
                run <= RUN_MID;
                pad_addr <= mid_addr;
                pad_left <= mid;
                state <= S_PAD;
              end else if (bottom != 0) begin
                run <= RUN_BOTTOM;
                pad_addr <= addr + 1;
                pad_left <= bottom;
                state <= S_PAD;
              end else begin
                state <= S_IDLE;
              end
            end
          end else begin
            addr <= addr + 1;
          end
        end
        default: begin  // S_PAD: one zero a cycle; the next non-empty run follows at once
          we <= 1'b1;
          waddr <= pad_addr[AD-1:0];
          wdata <= 0;
          pad_addr <= pad_addr + 1;
          pad_left <= pad_left - 1;
          if (pad_left == 1) begin
            if (pad_last) begin
              state <= S_IDLE;
            end else if ((run == RUN_TOP && mids) || (run == RUN_MID && mids_left != 1)) begin
              if (run == RUN_MID) mid_addr <= mid_addr + xtot;
              pad_addr <= run == RUN_MID ? mid_addr + xtot : mid_addr;
              pad_left <= mid;
              mids_left <= run == RUN_MID ? mids_left - 1 : mids_left;
              run <= RUN_MID;
            end else begin
              run <= RUN_BOTTOM;
              pad_addr <= bottom_addr;
              pad_left <= bottom;
            end
          end
        end
      endcase
    end
  end
endmodule
