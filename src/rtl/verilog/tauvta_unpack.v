// Bus beats to buffer elements (loads and instruction fetch). Elements are powers of two bytes,
// as the bus is, so a row is element-aligned: an element of at least a beat is whole beats (the
// beats arrive low part first and are gathered), and a smaller one sits at a fixed lane of a
// beat (the beat is held until its last wanted lane has been taken, one element per cycle).
// `start` gives the row's first lane and element count. An element comes out in the cycle its
// last beat is on the bus (combinationally), so a row's last element is there when its memcpy
// completes.
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
  output wire elem_valid,
  output wire [EW-1:0] elem
);
  localparam DW = 8 << LOG_B;
  generate
    if (LOG_E >= LOG_B) begin : gather
      localparam K = 1 << (LOG_E - LOG_B);  // beats per element
      localparam [31:0] LAST = K - 1;
      reg [31:0] k;
      /* verilator lint_off UNUSEDSIGNAL */
      // A whole-beat element needs neither the row's lane nor its count.
      wire unused = start || |start_lane || |count;
      /* verilator lint_on UNUSEDSIGNAL */
      assign beat_ready = 1'b1;
      assign elem_valid = rvalid && k == LAST;
      if (K == 1) begin : one
        assign elem = rdata;
      end else begin : many
        // The element's earlier beats, the first at the low end.
        reg [EW-DW-1:0] held;
        assign elem = {rdata, held};
        if (K == 2) begin : two
          always @(posedge clk) if (rvalid) held <= rdata;
        end else begin : more
          always @(posedge clk) if (rvalid) held <= {rdata, held[EW-DW-1:DW]};
        end
      end
      always @(posedge clk) begin
        if (rst) k <= 0;
        else if (rvalid) k <= k == LAST ? 0 : k + 1;
      end
    end else begin : split
      localparam R = 1 << (LOG_B - LOG_E);  // elements per beat
      localparam [31:0] LAST = R - 1;
      reg [31:0] lane, left;
      assign beat_ready = lane == LAST || left == 32'd1;
      assign elem_valid = rvalid && left != 0;
      assign elem = rdata[lane * EW +: EW];
      always @(posedge clk) begin
        if (rst) begin
          lane <= 0;
          left <= 0;
        end else if (start) begin
          lane <= start_lane;
          left <= count;
        end else if (elem_valid) begin
          lane <= lane == LAST ? 0 : lane + 1;
          left <= left - 1;
        end
      end
    end
  endgenerate
endmodule
