// The next AXI burst of a transfer, for the read and the write master alike: the transfer as a
// new command gives it in the cycle it arrives (`take`), then the master's registers do. A burst
// is at most MAX_BEATS beats, never crosses a 4 KiB boundary, and starts on a beat.
module tauvta_burst_split #(
  parameter LOG_B = 3,
  parameter MAX_BEATS = 16
) (
  input  wire take,             // a new transfer arrives this cycle
  input  wire [31:0] cmd_addr,
  input  wire [31:0] cmd_bytes, // at least 1
  input  wire [31:0] cur,       // the master's next burst address
  input  wire [32:0] left,      // and beats still to request
  output wire [31:0] cur_e,     // the burst's address
  output wire [32:0] left_e,    // beats to request, this burst's included
  output wire [32:0] beats,     // this burst's beats
  output wire [31:0] last_byte  // the new transfer's last byte address
);
  localparam [12:0] PAGE_BEATS = 13'd4096 >> LOG_B;
  localparam [32:0] MAXB = MAX_BEATS;
  /* verilator lint_off UNUSEDSIGNAL */
  // Only the offset within the page and the burst length's low bits are read.
  wire [32:0] first = {1'b0, cmd_addr >> LOG_B};
  wire [32:0] end_byte = {1'b0, cmd_addr} + {1'b0, cmd_bytes} - 33'd1;
  wire [32:0] last = end_byte >> LOG_B;
  wire [31:0] in_page = cur_e >> LOG_B;
  /* verilator lint_on UNUSEDSIGNAL */
  assign last_byte = end_byte[31:0];
  assign cur_e = take ? (cmd_addr >> LOG_B) << LOG_B : cur;
  assign left_e = take ? last - first + 33'd1 : left;
  wire [32:0] lim = left_e < MAXB ? left_e : MAXB;
  wire [32:0] to_page = {20'd0, PAGE_BEATS - {1'b0, in_page[11:0] & (PAGE_BEATS[11:0] - 12'd1)}};
  assign beats = lim < to_page ? lim : to_page;
endmodule
