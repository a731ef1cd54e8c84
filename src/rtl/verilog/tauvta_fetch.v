// The fetch module: streams insn_count instructions from insn_addr through its AXI read master and
// routes each, in program order and one per cycle, to the load, compute or store command queue
// (docs/vta_isa.md section 3), waiting while the target queue is full. A burst is requested only
// when the instruction buffer has room for all of it (the bytes already requested are reserved),
// so a full command queue never holds the shared read channel.
module tauvta_fetch #(
  parameter LOG_B = 3,
  parameter MAX_BEATS = 16,
  parameter OUTST = 7,
  parameter OW = 4,
  parameter DF = 56,     // instruction buffer entries: at least a burst
  parameter PF = 6
) (
  input  wire clk,
  input  wire rst,
  input  wire start,     // one cycle, when idle
  input  wire [31:0] insn_count,
  input  wire [31:0] insn_addr,
  output reg  running,
  output reg  done,      // one cycle: every instruction has been routed
  output wire [127:0] insn,
  output wire load_valid,
  input  wire load_ready,
  output wire compute_valid,
  input  wire compute_ready,
  output wire store_valid,
  input  wire store_ready,
  output wire routed,    // one cycle: an instruction went to its queue
  output wire stalled,   // an instruction waits for room in its queue
  output wire arvalid,
  input  wire arready,
  output wire [31:0] araddr,
  output wire [7:0] arlen,
  output wire [2:0] arsize,
  output wire [1:0] arburst,
  input  wire rvalid,
  output wire rready,
  input  wire [(8<<LOG_B)-1:0] rdata,
  input  wire rlast
);
  localparam R = LOG_B <= 4 ? 1 : 1 << (LOG_B - 4);
  localparam [31:0] LANES = R - 1;
  localparam [31:0] BUFFER_BYTES = DF * 16;
  localparam [31:0] BURST_BYTES = MAX_BEATS << LOG_B;
  reg [31:0] left, reserved;
  reg sent;  // the program's transfer has been handed to the reader
  wire go;
  wire ar_fire, elem_valid, rd_idle, head_valid, unpack_ready;
  wire [8:0] ar_beats;
  wire [127:0] elem;
  /* verilator lint_off UNUSEDSIGNAL */
  // Routing reads the opcode and the memory type only.
  wire [2:0] opcode, mem;
  wire pop_prev, pop_next, push_prev, push_next;
  wire [15:0] sram_base, y_size, x_size, x_stride;
  wire [31:0] dram_base;
  wire [3:0] y_pad_0, y_pad_1, x_pad_0, x_pad_1;
  /* verilator lint_on UNUSEDSIGNAL */
  tauvta_insn_fields f (.insn(insn), .opcode(opcode), .pop_prev(pop_prev), .pop_next(pop_next),
      .push_prev(push_prev), .push_next(push_next), .mem(mem), .sram_base(sram_base),
      .dram_base(dram_base), .y_size(y_size), .x_size(x_size), .x_stride(x_stride),
      .y_pad_0(y_pad_0), .y_pad_1(y_pad_1), .x_pad_0(x_pad_0), .x_pad_1(x_pad_1));
  wire to_store = opcode == 3'd1;
  wire to_load = opcode == 3'd0 && (mem == 3'd1 || mem == 3'd2);
  wire to_compute = !to_store && !to_load;
  wire target_ready = to_store ? store_ready : to_load ? load_ready : compute_ready;
  assign load_valid = head_valid && to_load;
  assign compute_valid = head_valid && to_compute;
  assign store_valid = head_valid && to_store;
  assign routed = head_valid && target_ready;
  assign stalled = head_valid && !target_ready;
  /* verilator lint_off PINCONNECTEMPTY */
  tauvta_fifo #(.W(128), .DEPTH(DF), .PW(PF), .FWFT(1)) buffer (.clk(clk), .rst(rst), .in_valid(elem_valid),
      .in_ready(), .in_data(elem), .out_valid(head_valid), .out_ready(target_ready),
      .out_data(insn));
  /* verilator lint_on PINCONNECTEMPTY */
  tauvta_unpack #(.LOG_B(LOG_B), .LOG_E(4), .EW(128)) unpack (.clk(clk), .rst(rst), .start(go),
      .start_lane((insn_addr >> 4) & LANES), .count(insn_count), .rvalid(rvalid), .rdata(rdata),
      .beat_ready(unpack_ready), .elem_valid(elem_valid), .elem(elem));
  wire [31:0] burst_bytes = {23'd0, ar_beats} << LOG_B;
  tauvta_axi_reader #(.LOG_B(LOG_B), .MAX_BEATS(MAX_BEATS), .OUTST(OUTST), .OW(OW)) reader (
      .clk(clk), .rst(rst), .cmd_valid(go), .cmd_addr(insn_addr), .cmd_bytes(insn_count << 4),
      .idle(rd_idle), .ar_hold(reserved + BURST_BYTES > BUFFER_BYTES), .arvalid(arvalid),
      .arready(arready), .araddr(araddr), .arlen(arlen), .arsize(arsize), .arburst(arburst),
      .rvalid(rvalid), .rready(rready), .rlast(rlast), .beat_ready(unpack_ready), .ar_fire(ar_fire),
      .ar_beats(ar_beats));
  // The program's first burst is requested in the cycle after the start (the timing model's
  // cycle 0).
  assign go = running && !sent && left != 0;
  always @(posedge clk) begin
    done <= 1'b0;
    if (rst) begin
      running <= 1'b0;
      sent <= 1'b0;
      left <= 0;
      reserved <= 0;
    end else begin
      if (go) sent <= 1'b1;
      if (start && !running) begin
        running <= 1'b1;
        sent <= 1'b0;
        left <= insn_count;
        reserved <= 0;
      end else if (running && left == 0 && rd_idle) begin
        running <= 1'b0;
        done <= 1'b1;
      end
      if (routed) left <= left - 1;
      if (!(start && !running))
        reserved <= reserved + (ar_fire ? burst_bytes : 32'd0) - (routed ? 32'd16 : 32'd0);
    end
  end
endmodule
