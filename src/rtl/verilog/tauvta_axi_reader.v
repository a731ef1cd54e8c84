// An AXI4 read master moving one transfer (a DRAM row) at a time, as an HLS m_axi adapter does
// for a memcpy: the row's bus beats become INCR bursts of at most MAX_BEATS beats that never cross
// a 4 KiB boundary, and at most OUTST bursts are in flight. Bursts are aligned to the bus: a row
// that starts or ends inside a beat reads the whole beat and the client drops the extra bytes.
// The client takes read data straight off the R channel (beat_ready is its RREADY).
module tauvta_axi_reader #(
  parameter LOG_B = 3,      // log2 of the data bus in bytes
  parameter MAX_BEATS = 16,
  parameter OUTST = 7,
  parameter OW = 4          // outstanding-count bits: 2^OW > OUTST
) (
  input  wire clk,
  input  wire rst,
  input  wire cmd_valid,    // start a transfer; taken only when idle, its first burst requested at once
  input  wire [31:0] cmd_addr,
  input  wire [31:0] cmd_bytes,  // at least 1
  output wire idle,         // no transfer in progress
  input  wire ar_hold,      // the client has no room for another burst
  output wire arvalid,
  input  wire arready,
  output wire [31:0] araddr,
  output wire [7:0] arlen,
  output wire [2:0] arsize,
  output wire [1:0] arburst,
  input  wire rvalid,
  output wire rready,
  input  wire rlast,
  input  wire beat_ready,
  output wire ar_fire,      // a burst was requested this cycle, of ar_beats beats
  output wire [8:0] ar_beats
);
  localparam [OW-1:0] OUTST_W = OUTST;
  localparam [2:0] SIZE = LOG_B;
  reg [31:0] cur;   // the next burst's address (beat-aligned)
  reg [32:0] left;  // beats still to request
  reg [OW-1:0] outst;
  assign idle = left == 0 && outst == 0;
  // A command's first burst is requested in the cycle the command arrives.
  wire take = cmd_valid && idle;
  wire [31:0] cur_e;
  wire [32:0] left_e;
  /* verilator lint_off UNUSEDSIGNAL */
  // A burst is at most 256 beats (arlen's 8 bits) and a read needs no byte lanes.
  wire [32:0] beats;
  wire [31:0] last_byte;
  /* verilator lint_on UNUSEDSIGNAL */
  tauvta_burst_split #(.LOG_B(LOG_B), .MAX_BEATS(MAX_BEATS)) split (.take(take), .cmd_addr(cmd_addr),
      .cmd_bytes(cmd_bytes), .cur(cur), .left(left), .cur_e(cur_e), .left_e(left_e),
      .beats(beats), .last_byte(last_byte));
  assign arvalid = left_e != 0 && outst < OUTST_W && !ar_hold;
  assign araddr = cur_e;
  assign arlen = beats[7:0] - 8'd1;
  assign arsize = SIZE;
  assign arburst = 2'b01;
  assign ar_fire = arvalid && arready;
  assign ar_beats = beats[8:0];
  assign rready = beat_ready;
  wire r_done = rvalid && beat_ready && rlast;
  always @(posedge clk) begin
    if (rst) begin
      cur <= 0;
      left <= 0;
      outst <= 0;
    end else begin
      if (ar_fire) begin
        cur <= cur_e + (beats[31:0] << LOG_B);
        left <= left_e - beats;
      end else if (take) begin
        cur <= cur_e;
        left <= left_e;
      end
      if (ar_fire && !r_done) outst <= outst + 1'b1;
      else if (r_done && !ar_fire) outst <= outst - 1'b1;
    end
  end
endmodule
