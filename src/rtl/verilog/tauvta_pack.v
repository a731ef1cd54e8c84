// Buffer elements to bus beats (the store). An element of at least a beat leaves as whole beats,
// low part first; smaller elements are placed at their lanes of a beat, which leaves when its last
// lane is filled or the row ends (the writer's strobes cover only the row's bytes).
module tauvta_pack #(
  parameter LOG_B = 3,
  parameter LOG_E = 4,
  parameter EW = 128
) (
  input  wire clk,
  input  wire rst,
  input  wire start,
  input  wire [31:0] start_lane,
  input  wire [31:0] count,
  input  wire elem_valid,
  output wire elem_ready,
  input  wire [EW-1:0] elem,
  output wire beat_valid,
  input  wire beat_ready,
  output wire [(8<<LOG_B)-1:0] beat
);
  localparam DW = 8 << LOG_B;
  generate
    if (LOG_E >= LOG_B) begin : slice
      localparam K = 1 << (LOG_E - LOG_B);
      localparam [31:0] LAST = K - 1;
      reg [EW-1:0] hold;
      reg have;
      reg [31:0] k;
      /* verilator lint_off UNUSEDSIGNAL */
      wire unused = start || |start_lane || |count;
      /* verilator lint_on UNUSEDSIGNAL */
      wire beat_fire = beat_valid && beat_ready;
      assign beat_valid = have;
      assign beat = hold[k * DW +: DW];
      assign elem_ready = !have || (beat_fire && k == LAST);
      always @(posedge clk) begin
        if (rst) begin
          have <= 1'b0;
          k <= 0;
        end else begin
          if (beat_fire) k <= k == LAST ? 0 : k + 1;
          if (elem_valid && elem_ready) begin
            hold <= elem;
            have <= 1'b1;
          end else if (beat_fire && k == LAST) begin
            have <= 1'b0;
          end
        end
      end
    end else begin : place
      localparam R = 1 << (LOG_B - LOG_E);
      localparam LB = LOG_B - LOG_E;  // lane index bits
      localparam [LB-1:0] LAST = R - 1;
      reg [DW-1:0] hold;
      reg full;
      reg [LB-1:0] lane;
      reg [31:0] left;
      // The row's first lane is within a beat; its high bits are zero.
      /* verilator lint_off UNUSEDSIGNAL */
      wire unused = |start_lane[31:LB];
      /* verilator lint_on UNUSEDSIGNAL */
      wire take = !rst && !start && elem_valid && elem_ready;
      assign beat_valid = full;
      assign beat = hold;
      assign elem_ready = !full && left != 0;
      // Each lane's bits are written from their own block at a constant position (a load enable
      // per lane), not at a lane-dependent position, which yosys builds as shifters over the beat.
      genvar r;
      for (r = 0; r < R; r = r + 1) begin : lane_write
        localparam [LB-1:0] RL = r;
        always @(posedge clk) if (take && lane == RL) hold[r * EW +: EW] <= elem;
      end
      always @(posedge clk) begin
        if (rst) begin
          full <= 1'b0;
          lane <= 0;
          left <= 0;
        end else if (start) begin
          lane <= start_lane[LB-1:0];
          left <= count;
        end else begin
          if (beat_valid && beat_ready) full <= 1'b0;
          if (elem_valid && elem_ready) begin
            lane <= lane == LAST ? 0 : lane + 1'b1;
            left <= left - 1;
            if (lane == LAST || left == 32'd1) full <= 1'b1;
          end
        end
      end
    end
  endgenerate
endmodule
