// Bus beats to buffer elements (loads and instruction fetch). Elements are powers of two bytes,
// as the bus is, so a row is element-aligned: an element of at least a beat is whole beats (the
// beats arrive low part first and are gathered), and a smaller one sits at a fixed lane of a
// beat (the beat is held until its last wanted lane has been taken, one element per cycle).
// `start` gives the row's first lane and element count; the element comes out registered, one
// cycle after its last beat.
module tauvta_unpack #(
  parameter LOG_B = 3,  // bus bytes, log2
  parameter LOG_E = 4,  // element bytes, log2
  parameter EW = 128    // element bits (8 << LOG_E)
) (
  input  wire clk,
  input  wire rst,
  input  wire start,
  input  wire [31:0] start_lane,  // element lane of the row's first element in its beat
  input  wire [31:0] count,       // elements in the row
  input  wire rvalid,
  input  wire [(8<<LOG_B)-1:0] rdata,
  output wire beat_ready,
  output reg  elem_valid,
  output reg  [EW-1:0] elem
);
  localparam DW = 8 << LOG_B;
  generate
    if (LOG_E >= LOG_B) begin : gather
      localparam K = 1 << (LOG_E - LOG_B);  // beats per element
      localparam [31:0] LAST = K - 1;
      reg [31:0] k;
      wire [EW-1:0] next;
      if (K == 1) begin : one
        assign next = rdata;
      end else begin : many
        assign next = {rdata, elem[EW-1:DW]};
      end
      /* verilator lint_off UNUSEDSIGNAL */
      // A whole-beat element needs neither the row's lane nor its count.
      wire unused = start || |start_lane || |count;
      /* verilator lint_on UNUSEDSIGNAL */
      assign beat_ready = 1'b1;
      always @(posedge clk) begin
        elem_valid <= 1'b0;
        if (rst) begin
          k <= 0;
        end else if (rvalid) begin
          elem <= next;
          k <= k == LAST ? 0 : k + 1;
          elem_valid <= k == LAST;
        end
      end
    end else begin : split
      localparam R = 1 << (LOG_B - LOG_E);  // elements per beat
      localparam [31:0] LAST = R - 1;
      reg [31:0] lane, left;
      assign beat_ready = lane == LAST || left == 32'd1;
      always @(posedge clk) begin
        elem_valid <= 1'b0;
        if (rst) begin
          lane <= 0;
          left <= 0;
        end else if (start) begin
          lane <= start_lane;
          left <= count;
        end else if (rvalid && left != 0) begin
          elem <= rdata[lane * EW +: EW];
          elem_valid <= 1'b1;
          lane <= lane == LAST ? 0 : lane + 1;
          left <= left - 1;
        end
      end
    end
  endgenerate
endmodule
