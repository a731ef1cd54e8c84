// A first-in first-out queue of DEPTH entries of W bits (the command queues, fetch's instruction
// buffer, the store's element queue). The head is read combinationally; push and pop may happen
// in the same cycle.
module tauvta_fifo #(
  parameter W = 128,
  parameter DEPTH = 8,
  parameter PW = 3  // pointer bits: 2^PW >= DEPTH
) (
  input  wire clk,
  input  wire rst,
  input  wire in_valid,
  output wire in_ready,
  input  wire [W-1:0] in_data,
  output wire out_valid,
  input  wire out_ready,
  output wire [W-1:0] out_data
);
  localparam integer LAST_I = DEPTH - 1;
  localparam integer FULL_I = DEPTH;
  localparam [PW-1:0] LAST = LAST_I[PW-1:0];
  localparam [PW:0] FULL = FULL_I[PW:0];
  reg [W-1:0] mem [0:DEPTH-1];
  reg [PW-1:0] rd, wr;
  reg [PW:0] count;
  wire push = in_valid && in_ready;
  wire pop = out_valid && out_ready;
  assign in_ready = count != FULL;
  assign out_valid = count != 0;
  assign out_data = mem[rd];
  always @(posedge clk) begin
    if (push) mem[wr] <= in_data;
    if (rst) begin
      rd <= 0;
      wr <= 0;
      count <= 0;
    end else begin
      if (push) wr <= wr == LAST ? 0 : wr + 1'b1;
      if (pop) rd <= rd == LAST ? 0 : rd + 1'b1;
      if (push && !pop) count <= count + 1'b1;
      else if (pop && !push) count <= count - 1'b1;
    end
  end
endmodule
