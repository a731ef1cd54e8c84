// A first-in first-out queue of DEPTH entries of W bits (the command queues, fetch's instruction
// buffer, the store's element queue). The head is read combinationally; push and pop may happen
// in the same cycle. With FWFT, an entry pushed into an empty queue is at the head in the same
// cycle (and leaves at once if taken): fetch hands an instruction to its module in the cycle its
// last byte arrives, as the timing model's fetch does.
module tauvta_fifo #(
  parameter W = 128,
  parameter DEPTH = 8,
  parameter PW = 3,  // pointer bits: 2^PW >= DEPTH
  parameter FWFT = 0
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
  wire empty = count == 0;
  wire through = FWFT != 0 && empty && in_valid && out_ready;  // straight from input to output
  wire push = in_valid && in_ready && !through;
  wire pop = !empty && out_ready;
  assign in_ready = count != FULL;
  assign out_valid = !empty || (FWFT != 0 && in_valid);
  assign out_data = empty ? in_data : mem[rd];
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
