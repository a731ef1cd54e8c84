// A dependency-token queue (docs/vta_isa.md section 3): tokens carry no data, so the queue is a
// count from 0 to DEPTH. Modules push only when can_push and pop only when can_pop; a push and a
// pop in the same cycle leave the count unchanged.
module tauvta_token_queue #(
  parameter DEPTH = 8,
  parameter CW = 4  // count bits: 2^CW > DEPTH
) (
  input  wire clk,
  input  wire rst,
  input  wire push,
  input  wire pop,
  output wire can_push,
  output wire can_pop
);
  localparam integer FULL_I = DEPTH;
  localparam [CW-1:0] FULL = FULL_I[CW-1:0];
  reg [CW-1:0] count;
  assign can_push = count != FULL;
  assign can_pop = count != 0;
  always @(posedge clk) begin
    if (rst) count <= 0;
    else if (push && !pop) count <= count + 1'b1;
    else if (pop && !push) count <= count - 1'b1;
  end
endmodule
