// The AXI4-Lite control slave, with the register map VTA's driver uses for its Xilinx design (one
// 4 KiB window per HLS module, each with HLS's ap_ctrl register at offset 0):
//   0x0000 fetch ap_ctrl: write bit 0 starts fetch; read bit 0 running, bit 1 done (cleared on
//          read), bit 2 idle
//   0x0010 fetch insn_count        0x0018 fetch insn_addr (byte address)
//   0x1000 load ap_ctrl            0x1010 inp base            0x1018 wgt base
//   0x2000 compute ap_ctrl         0x2010 done (in)           0x2018 done (out): 1 after FINISH
//   0x2020 uop base                0x2028 bias (accumulator) base
//   0x3000 store ap_ctrl           0x3010 out base
//   0x4000 event counters (tauvta's): counter k's low word at 0x4000 + 8k, high word at +4; they
//          count from a fetch start until FINISH has executed.
// Load, compute and store run while bit 0 (ap_start) or bit 7 (auto-restart) of their ap_ctrl is
// set; the driver writes 0x81 to all three, then starts fetch. Base registers are added to the
// byte addresses the instructions give (the driver writes 0). Writes take the address and data
// channels together; every response is OKAY.
module tauvta_control #(
  parameter NC = 19   // event counters
) (
  input  wire clk,
  input  wire rst,
  input  wire awvalid,
  output wire awready,
  input  wire [15:0] awaddr,
  input  wire wvalid,
  output wire wready,
  input  wire [31:0] wdata,
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [3:0] wstrb,  // registers are written whole
  /* verilator lint_on UNUSEDSIGNAL */
  output reg  bvalid,
  input  wire bready,
  output wire [1:0] bresp,
  input  wire arvalid,
  output wire arready,
  input  wire [15:0] araddr,
  output reg  rvalid,
  input  wire rready,
  output reg  [31:0] rdata,
  output wire [1:0] rresp,
  // To and from the modules.
  output wire fetch_start,
  input  wire fetch_running,
  input  wire fetch_done,
  output reg  [31:0] insn_count,
  output reg  [31:0] insn_addr,
  output wire load_enable,
  output wire compute_enable,
  output wire store_enable,
  output reg  [31:0] inp_base,
  output reg  [31:0] wgt_base,
  output reg  [31:0] uop_base,
  output reg  [31:0] acc_base,
  output reg  [31:0] out_base,
  input  wire finished,          // FINISH retires in this cycle (the last one counted)
  input  wire [NC-1:1] events    // counter k counts the cycles (or pulses) of events[k]
);
  reg [7:0] load_ctrl, compute_ctrl, store_ctrl;
  reg fetch_done_q, done_out, done_in, counting;
  reg [63:0] count [0:NC-1];
  wire write = awvalid && wvalid && !bvalid;
  assign awready = write;
  assign wready = write;
  assign bresp = 2'b00;
  assign rresp = 2'b00;
  assign arready = !rvalid;
  assign fetch_start = write && awaddr == 16'h0000 && wdata[0];
  assign load_enable = load_ctrl[0] || load_ctrl[7];
  assign compute_enable = compute_ctrl[0] || compute_ctrl[7];
  assign store_enable = store_ctrl[0] || store_ctrl[7];
  wire read = arvalid && arready;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [15:0] k = (araddr - 16'h4000) >> 3;  // counter index
  /* verilator lint_on UNUSEDSIGNAL */
  wire is_counter = araddr >= 16'h4000 && k < NC;
  integer i;
  always @(posedge clk) begin
    if (rst) begin
      bvalid <= 1'b0;
      rvalid <= 1'b0;
      load_ctrl <= 0;
      compute_ctrl <= 0;
      store_ctrl <= 0;
      fetch_done_q <= 1'b0;
      done_out <= 1'b0;
      done_in <= 1'b0;
      counting <= 1'b0;
      insn_count <= 0;
      insn_addr <= 0;
      inp_base <= 0;
      wgt_base <= 0;
      uop_base <= 0;
      acc_base <= 0;
      out_base <= 0;
      for (i = 0; i < NC; i = i + 1) count[i] <= 0;
    end else begin
      if (write) begin
        bvalid <= 1'b1;
        case (awaddr)
          16'h0010: insn_count <= wdata;
          16'h0018: insn_addr <= wdata;
          16'h1000: load_ctrl <= wdata[7:0];
          16'h1010: inp_base <= wdata;
          16'h1018: wgt_base <= wdata;
          16'h2000: compute_ctrl <= wdata[7:0];
          16'h2010: done_in <= wdata[0];
          16'h2020: uop_base <= wdata;
          16'h2028: acc_base <= wdata;
          16'h3000: store_ctrl <= wdata[7:0];
          16'h3010: out_base <= wdata;
          default: ;
        endcase
      end else if (bvalid && bready) begin
        bvalid <= 1'b0;
      end
      if (fetch_done) fetch_done_q <= 1'b1;
      if (finished) done_out <= 1'b1;
      if (read) begin
        rvalid <= 1'b1;
        case (araddr)
          16'h0000: begin
            rdata <= {29'd0, !fetch_running, fetch_done_q, fetch_running};
            fetch_done_q <= 1'b0;
          end
          16'h0010: rdata <= insn_count;
          16'h0018: rdata <= insn_addr;
          16'h1000: rdata <= {24'd0, load_ctrl};
          16'h1010: rdata <= inp_base;
          16'h1018: rdata <= wgt_base;
          16'h2000: rdata <= {24'd0, compute_ctrl};
          16'h2010: rdata <= {31'd0, done_in};
          16'h2018: rdata <= {31'd0, done_out};
          16'h2020: rdata <= uop_base;
          16'h2028: rdata <= acc_base;
          16'h3000: rdata <= {24'd0, store_ctrl};
          16'h3010: rdata <= out_base;
          default: rdata <= !is_counter ? 32'd0 : araddr[2] ? count[k[4:0]][63:32] : count[k[4:0]][31:0];
        endcase
      end else if (rvalid && rready) begin
        rvalid <= 1'b0;
      end
      // Counters run from a fetch start until FINISH has executed.
      if (fetch_start && !fetch_running) begin
        counting <= 1'b1;
        done_out <= 1'b0;
        for (i = 0; i < NC; i = i + 1) count[i] <= 0;
      end else if (counting) begin
        count[0] <= count[0] + 1;
        for (i = 1; i < NC; i = i + 1) if (events[i]) count[i] <= count[i] + 1;
        if (finished) counting <= 1'b0;
      end
    end
  end
endmodule
