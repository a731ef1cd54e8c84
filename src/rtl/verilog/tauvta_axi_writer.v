// An AXI4 write master moving one transfer (a DRAM row) at a time: INCR bursts of at most
// MAX_BEATS beats that never cross a 4 KiB boundary, each address followed by its data beats, at
// most OUTST bursts waiting for their write response. The strobes cover exactly the row's bytes.
// The row is done (idle again) when its last response has arrived, as an HLS memcpy ends.
module tauvta_axi_writer #(
  parameter LOG_B = 3,
  parameter MAX_BEATS = 16,
  parameter OUTST = 3,
  parameter OW = 3
) (
  input  wire clk,
  input  wire rst,
  input  wire cmd_valid,
  input  wire [31:0] cmd_addr,
  input  wire [31:0] cmd_bytes,  // at least 1
  output wire idle,
  output wire last_response,  // the transfer's last write response is on the bus this cycle
  output wire awvalid,
  input  wire awready,
  output wire [31:0] awaddr,
  output wire [7:0] awlen,
  output wire [2:0] awsize,
  output wire [1:0] awburst,
  output wire wvalid,
  input  wire wready,
  output wire [(1<<LOG_B)-1:0] wstrb,
  output wire wlast,
  input  wire bvalid,
  output wire bready,
  input  wire beat_valid,  // the client has the next data beat on wdata
  output wire beat_ready
);
  localparam B = 1 << LOG_B;
  localparam [OW-1:0] OUTST_W = OUTST;
  localparam [2:0] SIZE = LOG_B;
  localparam [31:0] LANE_MASK = B - 1;
  reg [31:0] cur;
  reg [32:0] left;       // beats still to request
  reg [32:0] to_send;    // beats of the row still to send
  reg [8:0] in_burst;    // beats left in the burst being sent
  reg sending, first_beat;
  reg [OW-1:0] outst;
  reg [31:0] lo, hi;     // first byte lane of the row's first beat, last lane of its last beat
  assign idle = left == 0 && !sending && outst == 0;
  // A command's first burst address goes out in the cycle the command arrives.
  wire take = cmd_valid && idle;
  wire [31:0] cur_e, end_byte;
  wire [32:0] left_e;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [32:0] beats;  // at most 256 (awlen's 8 bits)
  /* verilator lint_on UNUSEDSIGNAL */
  tauvta_burst_split #(.LOG_B(LOG_B), .MAX_BEATS(MAX_BEATS)) split (.take(take), .cmd_addr(cmd_addr),
      .cmd_bytes(cmd_bytes), .cur(cur), .left(left), .cur_e(cur_e), .left_e(left_e),
      .beats(beats), .last_byte(end_byte));
  assign awvalid = !sending && left_e != 0 && outst < OUTST_W;
  wire aw_fire = awvalid && awready;
  assign awaddr = cur_e;
  assign awlen = beats[7:0] - 8'd1;
  assign awsize = SIZE;
  assign awburst = 2'b01;
  assign wvalid = sending && beat_valid;
  assign beat_ready = sending && wready;
  wire w_fire = wvalid && wready;
  assign wlast = in_burst == 9'd1;
  assign bready = 1'b1;
  assign last_response = bvalid && outst == 1 && left == 0 && !sending;
  genvar g;
  generate
    for (g = 0; g < B; g = g + 1) begin : strobe
      if (g == 0) begin : lane0
        assign wstrb[g] = !first_beat || lo == 0;
      end else begin : lane
        assign wstrb[g] = (!first_beat || g >= lo) && (to_send != 33'd1 || g <= hi);
      end
    end
  endgenerate
  always @(posedge clk) begin
    if (rst) begin
      cur <= 0;
      left <= 0;
      to_send <= 0;
      in_burst <= 0;
      sending <= 1'b0;
      first_beat <= 1'b0;
      outst <= 0;
      lo <= 0;
      hi <= 0;
    end else begin
      if (take) begin
        to_send <= left_e;
        first_beat <= 1'b1;
        lo <= cmd_addr & LANE_MASK;
        hi <= end_byte & LANE_MASK;
      end
      if (aw_fire) begin
        cur <= cur_e + (beats[31:0] << LOG_B);
        left <= left_e - beats;
        in_burst <= beats[8:0];
        sending <= 1'b1;
      end else if (take) begin
        cur <= cur_e;
        left <= left_e;
      end
      if (w_fire) begin
        in_burst <= in_burst - 1'b1;
        to_send <= to_send - 1'b1;
        first_beat <= 1'b0;
        if (wlast) sending <= 1'b0;
      end
      if (aw_fire && !bvalid) outst <= outst + 1'b1;
      else if (bvalid && !aw_fire) outst <= outst - 1'b1;
    end
  end
endmodule
