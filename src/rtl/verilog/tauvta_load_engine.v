// One LOAD instruction's work for one buffer (docs/vta_isa.md section 4): the dense block of
// (y_pad_0 + y_size + y_pad_1) x (x_pad_0 + x_size + x_pad_1) elements from sram_base, its rows
// read from DRAM element dram_base + y * x_stride, the padding written as zeros one element per
// cycle. The block's padding between two rows' data is one contiguous run (the right padding of a
// row and the left padding of the next), so the engine alternates pad runs and row transfers, as
// VTA's HLS load does them: one after the other. PAD = 0 ignores the pad fields (weights);
// ONE_ROW = 1 reads x_size elements from dram_base and ignores the rest (micro-ops).
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
  output reg  done,        // one cycle, when the last element has been written
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
  output reg  rd_cmd,
  output wire [31:0] rd_addr,
  output wire [31:0] rd_bytes,
  input  wire rd_idle,
  input  wire rvalid,
  input  wire [(8<<LOG_B)-1:0] rdata,
  output wire beat_ready,
  // The buffer's write port.
  output reg  we,
  output reg  [AD-1:0] waddr,
  output reg  [EW-1:0] wdata
);
  localparam R = LOG_E >= LOG_B ? 1 : 1 << (LOG_B - LOG_E);  // elements per beat
  localparam [31:0] LANES = R - 1;
  localparam S_IDLE = 3'd0, S_PAD = 3'd1, S_ROW = 3'd2, S_WAIT = 3'd3, S_DONE = 3'd4;
  reg [2:0] state;
  reg [31:0] pad_left;   // zeros still to write in this pad run
  reg [31:0] y;          // data rows started
  reg [31:0] row_elem;   // DRAM element of this row
  reg [31:0] got;        // elements of this row written
  reg [31:0] addr;       // next buffer element (wraps at the buffer's depth)
  reg started;
  // The instruction as this buffer sees it (counts in 32 bits; products of the narrow ones).
  /* verilator lint_off UNUSEDSIGNAL */
  wire [31:0] yp0 = PAD ? {28'd0, y_pad_0} : 32'd0;
  wire [31:0] yp1 = PAD ? {28'd0, y_pad_1} : 32'd0;
  wire [31:0] xp0 = PAD ? {28'd0, x_pad_0} : 32'd0;
  wire [31:0] xp1 = PAD ? {28'd0, x_pad_1} : 32'd0;
  wire [31:0] rows = ONE_ROW ? 32'd1 : {16'd0, y_size};
  wire [31:0] xs = {16'd0, x_size};
  wire [31:0] xtot = xp0 + xs + xp1;
  // The pad run after data row y (y = rows - 1: the last row's right padding and the bottom rows).
  wire [20:0] top_pads = {17'd0, yp0[3:0]} * {4'd0, xtot[16:0]};
  wire [20:0] bottom_pads = {17'd0, yp1[3:0]} * {4'd0, xtot[16:0]};
  wire [16:0] ytot = yp0[16:0] + rows[16:0] + yp1[16:0];
  wire [33:0] all_pads = {17'd0, ytot} * {17'd0, xtot[16:0]};
  /* verilator lint_on UNUSEDSIGNAL */
  wire [31:0] run_after = y + 1 == rows ? xp1 + {11'd0, bottom_pads} : xp1 + xp0;
  /* verilator lint_off UNUSEDSIGNAL */
  // Byte addresses are 32 bits: a row's DRAM element shifted by the element size.
  wire [31:0] row_byte = base + (row_elem << LOG_E);
  /* verilator lint_on UNUSEDSIGNAL */
  assign rd_addr = row_byte;
  assign rd_bytes = xs << LOG_E;
  wire [EW-1:0] elem;
  wire elem_valid;
  /* verilator lint_off PINCONNECTEMPTY */
  tauvta_unpack #(.LOG_B(LOG_B), .LOG_E(LOG_E), .EW(EW)) unpack (
      .clk(clk), .rst(rst), .start(rd_cmd), .start_lane((row_byte >> LOG_E) & LANES),
      .count(xs), .rvalid(rvalid), .rdata(rdata), .beat_ready(beat_ready),
      .elem_valid(elem_valid), .elem(elem));
  /* verilator lint_on PINCONNECTEMPTY */
  always @(posedge clk) begin
    done <= 1'b0;
    rd_cmd <= 1'b0;
    we <= 1'b0;
    if (rst) begin
      state <= S_IDLE;
    end else begin
      case (state)
        S_IDLE: if (go) begin
          addr <= {16'd0, sram_base};
          y <= 0;
          row_elem <= dram_base;
          // No data rows (or no data in them): the whole block is padding.
          pad_left <= rows == 0 || xs == 0 ? all_pads[31:0] : {11'd0, top_pads} + xp0;
          state <= S_PAD;
        end
        S_PAD: if (pad_left != 0) begin
          we <= 1'b1;
          waddr <= addr[AD-1:0];
          wdata <= 0;
          addr <= addr + 1;
          pad_left <= pad_left - 1;
        end else if (rows == 0 || xs == 0 || y == rows) begin
          state <= S_DONE;
        end else begin
          rd_cmd <= 1'b1;   // the reader is idle here: the previous row has been consumed
          got <= 0;
          started <= 1'b0;
          state <= S_ROW;
        end
        S_ROW: begin
          started <= 1'b1;
          if (elem_valid) begin
            we <= 1'b1;
            waddr <= addr[AD-1:0];
            wdata <= elem;
            addr <= addr + 1;
            got <= got + 1;
          end
          if (started && rd_idle && (got == xs || (elem_valid && got + 1 == xs))) state <= S_WAIT;
        end
        S_WAIT: begin
          row_elem <= row_elem + {16'd0, x_stride};
          y <= y + 1;
          pad_left <= run_after;
          state <= S_PAD;
        end
        default: begin  // S_DONE
          done <= 1'b1;
          state <= S_IDLE;
        end
      endcase
    end
  end
endmodule
