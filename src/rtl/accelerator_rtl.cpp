// The whole accelerator's generated modules: the instruction-field decoder (field positions from
// the ISA table, so the ISA stays declared once) and the top, tauvta_accelerator, which connects
// the fixed library modules (src/rtl/verilog/) with this config's parameters: bus width, burst
// length, outstanding requests, queue depths, element sizes and buffer depths.
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/isa_layout.h"
#include "rtl/verilog_emit.h"

namespace tauvta::rtl {

namespace {

// Bits to hold the values 0 .. n (at least 1).
int bits_for(uint64_t n) { return std::max(1, int(std::bit_width(n))); }
// log2 of a power of two.
int log2_exact(uint64_t n) { return int(std::countr_zero(n)); }

}  // namespace

std::string emit_insn_fields(const hw::HwConfig& config) {
  const hw::IsaLayout l(config);
  using hw::Field;
  using hw::Format;
  struct Out {
    const char* name;
    Format format;
    Field field;
    int width;  // what the library modules expect
  };
  const Out outs[] = {
      {"opcode", Format::kMem, Field::kOpcode, 3},       {"pop_prev", Format::kMem, Field::kPopPrev, 1},
      {"pop_next", Format::kMem, Field::kPopNext, 1},    {"push_prev", Format::kMem, Field::kPushPrev, 1},
      {"push_next", Format::kMem, Field::kPushNext, 1},  {"mem", Format::kMem, Field::kMemoryType, 3},
      {"sram_base", Format::kMem, Field::kSramBase, 16}, {"dram_base", Format::kMem, Field::kDramBase, 32},
      {"y_size", Format::kMem, Field::kYSize, 16},       {"x_size", Format::kMem, Field::kXSize, 16},
      {"x_stride", Format::kMem, Field::kXStride, 16},   {"y_pad_0", Format::kMem, Field::kYPad0, 4},
      {"y_pad_1", Format::kMem, Field::kYPad1, 4},       {"x_pad_0", Format::kMem, Field::kXPad0, 4},
      {"x_pad_1", Format::kMem, Field::kXPad1, 4},
  };
  std::string v =
      "// The fields every module reads from an instruction: the opcode, the dependency bits and\n"
      "// the LOAD/STORE fields (docs/vta_isa.md section 2), at this config's positions.\n"
      "module tauvta_insn_fields (\n"
      "  // The GEMM/ALU fields are the datapath's to decode.\n"
      "  /* verilator lint_off UNUSEDSIGNAL */\n"
      "  input  wire [127:0] insn,\n"
      "  /* verilator lint_on UNUSEDSIGNAL */\n";
  std::string body;
  for (size_t i = 0; i < std::size(outs); ++i) {
    const Out& o = outs[i];
    const hw::FieldDesc& d = l.field(o.format, o.field);
    if (d.width != o.width) {
      throw Error(fmt::format("rtl: instruction field {} is {} bits in this ISA layout; the "
                              "accelerator's modules read {}",
                              o.name, d.width, o.width));
    }
    v += fmt::format("  output wire {}{}{}\n", o.width == 1 ? "" : fmt::format("[{}:0] ", o.width - 1),
                     o.name, i + 1 == std::size(outs) ? "" : ",");
    body += o.width == 1 ? fmt::format("  assign {} = insn[{}];\n", o.name, d.lsb)
                         : fmt::format("  assign {} = insn[{}:{}];\n", o.name, d.lsb + d.width - 1, d.lsb);
  }
  return v + ");\n" + body + "endmodule\n";
}

AcceleratorShape accelerator_shape(const hw::HwConfig& c) {
  const hw::TimingParams& t = c.timing;
  AcceleratorShape a;
  a.log_bus_bytes = t.log_bus_width - 3;
  a.max_burst_beats = t.max_burst_beats;
  a.outstanding = t.master_outstanding;
  a.cmd_queue_depth = t.cmd_queue_depth;
  a.token_queue_depth = t.token_queue_depth;
  // Fetch buffers what its outstanding bursts bring (the timing model's fetch: a burst is
  // requested once the burst `slots` before it has been decoded), at least one burst.
  const uint64_t burst_bytes = uint64_t(t.max_burst_beats) << a.log_bus_bytes;
  const uint64_t slots = uint64_t(std::min({t.master_outstanding, t.port_read_acceptance}));
  a.fetch_buffer = int(std::max<uint64_t>({2, slots * std::max<uint64_t>(1, burst_bytes / 16),
                                           (burst_bytes + 15) / 16}));
  return a;
}

std::string emit_accelerator(const hw::HwConfig& c, const DatapathShape& s) {
  const AcceleratorShape a = accelerator_shape(c);
  if (a.cmd_queue_depth > 4096 || a.token_queue_depth > 4096) {
    throw Error(fmt::format("rtl: queue depths above 4096 are not generated (CMD_QUEUE_DEPTH {}, "
                            "TOKEN_QUEUE_DEPTH {})",
                            a.cmd_queue_depth, a.token_queue_depth));
  }
  const int LB = a.log_bus_bytes, DW = 8 << LB, SB = 1 << LB;
  const int ow = bits_for(uint64_t(a.outstanding));
  const int lei = log2_exact(uint64_t(c.inp_elem_bytes())), lew = log2_exact(uint64_t(c.wgt_elem_bytes()));
  const int lea = log2_exact(uint64_t(c.acc_elem_bytes())), leo = log2_exact(uint64_t(c.out_elem_bytes()));
  const int I = c.log_inp_depth(), W = c.log_wgt_depth(), A = c.log_acc_depth(), U = c.log_uop_depth();
  const int HW = host_width(s);
  const std::string axi = fmt::format(".LOG_B({}), .MAX_BEATS({}), .OUTST({}), .OW({})", LB,
                                      a.max_burst_beats, a.outstanding, ow);
  std::string v = fmt::format(
      "// The whole accelerator of {}: fetch, load, compute and store with their command queues,\n"
      "// the four dependency-token queues, one AXI4 master per module ({}-bit, bursts of at most\n"
      "// {} beats, {} in flight) and the AXI4-Lite control slave (tauvta_control).\n",
      c.name(), DW, a.max_burst_beats, a.outstanding);
  v += "module tauvta_accelerator (\n"
       "  input  wire ap_clk,\n"
       "  input  wire ap_rst_n,\n";
  // Read masters.
  for (const char* m : {"fetch", "load", "compute"}) {
    v += fmt::format(
        "  output wire m_axi_{0}_arvalid,\n  input  wire m_axi_{0}_arready,\n"
        "  output wire [31:0] m_axi_{0}_araddr,\n  output wire [7:0] m_axi_{0}_arlen,\n"
        "  output wire [2:0] m_axi_{0}_arsize,\n  output wire [1:0] m_axi_{0}_arburst,\n"
        "  input  wire m_axi_{0}_rvalid,\n  output wire m_axi_{0}_rready,\n"
        "  input  wire [{1}:0] m_axi_{0}_rdata,\n  input  wire m_axi_{0}_rlast,\n",
        m, DW - 1);
  }
  v += fmt::format(
      "  output wire m_axi_store_awvalid,\n  input  wire m_axi_store_awready,\n"
      "  output wire [31:0] m_axi_store_awaddr,\n  output wire [7:0] m_axi_store_awlen,\n"
      "  output wire [2:0] m_axi_store_awsize,\n  output wire [1:0] m_axi_store_awburst,\n"
      "  output wire m_axi_store_wvalid,\n  input  wire m_axi_store_wready,\n"
      "  output wire [{0}:0] m_axi_store_wdata,\n  output wire [{1}:0] m_axi_store_wstrb,\n"
      "  output wire m_axi_store_wlast,\n  input  wire m_axi_store_bvalid,\n"
      "  output wire m_axi_store_bready,\n",
      DW - 1, SB - 1);
  v += "  input  wire s_axi_control_awvalid,\n  output wire s_axi_control_awready,\n"
       "  input  wire [15:0] s_axi_control_awaddr,\n  input  wire s_axi_control_wvalid,\n"
       "  output wire s_axi_control_wready,\n  input  wire [31:0] s_axi_control_wdata,\n"
       "  input  wire [3:0] s_axi_control_wstrb,\n  output wire s_axi_control_bvalid,\n"
       "  input  wire s_axi_control_bready,\n  output wire [1:0] s_axi_control_bresp,\n"
       "  input  wire s_axi_control_arvalid,\n  output wire s_axi_control_arready,\n"
       "  input  wire [15:0] s_axi_control_araddr,\n  output wire s_axi_control_rvalid,\n"
       "  input  wire s_axi_control_rready,\n  output wire [31:0] s_axi_control_rdata,\n"
       "  output wire [1:0] s_axi_control_rresp\n);\n";
  v += "  wire clk = ap_clk;\n"
       "  reg rst;\n"
       "  always @(posedge clk) rst <= !ap_rst_n;  // synchronous, registered once\n\n";
  // Control.
  v += "  wire fetch_start, fetch_running, fetch_done, load_en, compute_en, store_en, finished;\n"
       "  wire [31:0] insn_count, insn_addr, inp_base, wgt_base, uop_base, acc_base, out_base;\n"
       "  // Events counted by the control slave (counter 0 is the cycle count).\n"
       "  wire [19:1] events;\n"
       "  tauvta_control #(.NC(20)) control (.clk(clk), .rst(rst),\n"
       "      .awvalid(s_axi_control_awvalid), .awready(s_axi_control_awready),\n"
       "      .awaddr(s_axi_control_awaddr), .wvalid(s_axi_control_wvalid),\n"
       "      .wready(s_axi_control_wready), .wdata(s_axi_control_wdata),\n"
       "      .wstrb(s_axi_control_wstrb), .bvalid(s_axi_control_bvalid),\n"
       "      .bready(s_axi_control_bready), .bresp(s_axi_control_bresp),\n"
       "      .arvalid(s_axi_control_arvalid), .arready(s_axi_control_arready),\n"
       "      .araddr(s_axi_control_araddr), .rvalid(s_axi_control_rvalid),\n"
       "      .rready(s_axi_control_rready), .rdata(s_axi_control_rdata),\n"
       "      .rresp(s_axi_control_rresp), .fetch_start(fetch_start),\n"
       "      .fetch_running(fetch_running), .fetch_done(fetch_done), .insn_count(insn_count),\n"
       "      .insn_addr(insn_addr), .load_enable(load_en), .compute_enable(compute_en),\n"
       "      .store_enable(store_en), .inp_base(inp_base), .wgt_base(wgt_base),\n"
       "      .uop_base(uop_base), .acc_base(acc_base), .out_base(out_base),\n"
       "      .finished(finished), .events(events));\n\n";
  // Queues.
  const int pw = bits_for(uint64_t(a.cmd_queue_depth - 1));
  const int cw = bits_for(uint64_t(a.token_queue_depth));
  v += "  // Command queues: fetch -> load, compute, store.\n"
       "  wire [127:0] fetch_insn, load_cmd, compute_cmd, store_cmd;\n";
  for (const char* m : {"load", "compute", "store"}) {
    v += fmt::format(
        "  wire {0}_in_valid, {0}_in_ready, {0}_cmd_valid, {0}_cmd_ready;\n"
        "  tauvta_fifo #(.W(128), .DEPTH({1}), .PW({2}), .FWFT(1)) {0}_queue (.clk(clk), .rst(rst),\n"
        "      .in_valid({0}_in_valid), .in_ready({0}_in_ready), .in_data(fetch_insn),\n"
        "      .out_valid({0}_cmd_valid), .out_ready({0}_cmd_ready), .out_data({0}_cmd));\n",
        m, a.cmd_queue_depth, pw);
  }
  v += "  // Dependency-token queues (docs/vta_isa.md section 3).\n";
  for (const char* q : {"l2g", "g2l", "g2s", "s2g"}) {
    v += fmt::format(
        "  wire {0}_push, {0}_pop, {0}_can_push, {0}_can_pop;\n"
        "  tauvta_token_queue #(.DEPTH({1}), .CW({2})) {0} (.clk(clk), .rst(rst), .push({0}_push),\n"
        "      .pop({0}_pop), .can_push({0}_can_push), .can_pop({0}_can_pop));\n",
        q, a.token_queue_depth, cw);
  }
  // Fetch.
  v += fmt::format(
      "\n  tauvta_fetch #({0}, .DF({1}), .PF({2})) fetch (.clk(clk), .rst(rst), .start(fetch_start),\n"
      "      .insn_count(insn_count), .insn_addr(insn_addr), .running(fetch_running),\n"
      "      .done(fetch_done), .insn(fetch_insn), .load_valid(load_in_valid),\n"
      "      .load_ready(load_in_ready), .compute_valid(compute_in_valid),\n"
      "      .compute_ready(compute_in_ready), .store_valid(store_in_valid),\n"
      "      .store_ready(store_in_ready), .routed(events[1]), .stalled(events[2]),\n",
      axi, a.fetch_buffer, bits_for(uint64_t(a.fetch_buffer - 1)));
  auto rd_pins = [&](const char* m) {
    return fmt::format(
        "      .arvalid(m_axi_{0}_arvalid), .arready(m_axi_{0}_arready), .araddr(m_axi_{0}_araddr),\n"
        "      .arlen(m_axi_{0}_arlen), .arsize(m_axi_{0}_arsize), .arburst(m_axi_{0}_arburst),\n"
        "      .rvalid(m_axi_{0}_rvalid), .rready(m_axi_{0}_rready), .rdata(m_axi_{0}_rdata),\n"
        "      .rlast(m_axi_{0}_rlast)",
        m);
  };
  v += rd_pins("fetch") + ");\n";
  // Buffers' ports between the modules and the datapath.
  v += fmt::format(
      "\n  wire inp_we, wgt_we, host_we, dp_start, dp_finishing, out_re;\n"
      "  wire [{0}:0] inp_waddr;\n  wire [{1}:0] inp_wdata;\n"
      "  wire [{2}:0] wgt_waddr;\n  wire [{3}:0] wgt_wdata;\n"
      "  wire [2:0] host_mem;\n  wire [31:0] host_addr;\n  wire [{4}:0] host_wdata;\n"
      "  wire [127:0] dp_insn;\n  wire [{5}:0] out_raddr;\n  wire [{6}:0] out_rdata;\n",
      I - 1, s.buffers[size_t(BufferId::kInp)].width - 1, W - 1,
      s.buffers[size_t(BufferId::kWgt)].width - 1, HW - 1, A - 1,
      s.buffers[size_t(BufferId::kOut)].width - 1);
  auto status = [](int first) {
    return fmt::format(".busy(events[{}]), .wait_token(events[{}]), .wait_push(events[{}]),\n"
                       "      .retired(events[{}])",
                       first, first + 1, first + 2, first + 3);
  };
  v += fmt::format(
      "  tauvta_load #({0}, .LOG_EI({1}), .EWI({2}), .AI({3}), .LOG_EW({4}), .EWW({5}), .AW({6})) load (\n"
      "      .clk(clk), .rst(rst), .enable(load_en), .cmd_valid(load_cmd_valid), .cmd(load_cmd),\n"
      "      .cmd_ready(load_cmd_ready), .g2l_can_pop(g2l_can_pop), .g2l_pop(g2l_pop),\n"
      "      .l2g_can_push(l2g_can_push), .l2g_push(l2g_push), .inp_base(inp_base),\n"
      "      .wgt_base(wgt_base), .inp_we(inp_we), .inp_waddr(inp_waddr), .inp_wdata(inp_wdata),\n"
      "      .wgt_we(wgt_we), .wgt_waddr(wgt_waddr), .wgt_wdata(wgt_wdata),\n",
      axi, lei, 8 * c.inp_elem_bytes(), I, lew, 8 * c.wgt_elem_bytes(), W);
  v += rd_pins("load") + ",\n      " + status(3) + ");\n";
  v += fmt::format(
      "  tauvta_compute_ctrl #({0}, .U({1}), .LOG_EA({2}), .EWA({3}), .A({4}), .HW({5})) compute_ctrl (\n"
      "      .clk(clk), .rst(rst), .enable(compute_en), .cmd_valid(compute_cmd_valid),\n"
      "      .cmd(compute_cmd), .cmd_ready(compute_cmd_ready), .l2g_can_pop(l2g_can_pop),\n"
      "      .l2g_pop(l2g_pop), .s2g_can_pop(s2g_can_pop), .s2g_pop(s2g_pop),\n"
      "      .g2l_can_push(g2l_can_push), .g2l_push(g2l_push), .g2s_can_push(g2s_can_push),\n"
      "      .g2s_push(g2s_push), .uop_base(uop_base), .acc_base(acc_base), .dp_start(dp_start),\n"
      "      .dp_insn(dp_insn), .dp_finishing(dp_finishing), .host_we(host_we), .host_mem(host_mem),\n"
      "      .host_addr(host_addr), .host_wdata(host_wdata), .finished(finished),\n",
      axi, U, lea, 8 * c.acc_elem_bytes(), A, HW);
  v += rd_pins("compute") + ",\n      " + status(7) + ");\n";
  v += "  // The datapath's host read port is for testbenches of the datapath alone.\n"
       "  /* verilator lint_off UNUSEDSIGNAL */\n"
       "  wire [" + std::to_string(HW - 1) + ":0] host_rdata;\n"
       "  /* verilator lint_on UNUSEDSIGNAL */\n"
       "  /* verilator lint_off PINCONNECTEMPTY */\n"
       "  tauvta_compute datapath (.clk(clk), .rst(rst), .start(dp_start), .insn(dp_insn),\n"
       "      .busy(), .hazard_stall(events[19]), .finishing(dp_finishing), .host_we(host_we), .host_re(1'b0), .host_mem(host_mem),\n"
       "      .host_addr(host_addr), .host_wdata(host_wdata), .host_rdata(host_rdata),\n"
       "      .ld_inp_we(inp_we), .ld_inp_waddr(inp_waddr), .ld_inp_wdata(inp_wdata),\n"
       "      .ld_wgt_we(wgt_we), .ld_wgt_waddr(wgt_waddr), .ld_wgt_wdata(wgt_wdata),\n"
       "      .st_out_re(out_re), .st_out_raddr(out_raddr), .st_out_rdata(out_rdata));\n"
       "  /* verilator lint_on PINCONNECTEMPTY */\n";
  v += fmt::format(
      "  tauvta_store #({0}, .LOG_EO({1}), .EWO({2}), .AO({3})) store (.clk(clk), .rst(rst),\n"
      "      .enable(store_en), .cmd_valid(store_cmd_valid), .cmd(store_cmd),\n"
      "      .cmd_ready(store_cmd_ready), .g2s_can_pop(g2s_can_pop), .g2s_pop(g2s_pop),\n"
      "      .s2g_can_push(s2g_can_push), .s2g_push(s2g_push), .out_base(out_base),\n"
      "      .out_re(out_re), .out_raddr(out_raddr), .out_rdata(out_rdata),\n"
      "      .awvalid(m_axi_store_awvalid), .awready(m_axi_store_awready),\n"
      "      .awaddr(m_axi_store_awaddr), .awlen(m_axi_store_awlen), .awsize(m_axi_store_awsize),\n"
      "      .awburst(m_axi_store_awburst), .wvalid(m_axi_store_wvalid),\n"
      "      .wready(m_axi_store_wready), .wdata(m_axi_store_wdata), .wstrb(m_axi_store_wstrb),\n"
      "      .wlast(m_axi_store_wlast), .bvalid(m_axi_store_bvalid), .bready(m_axi_store_bready),\n"
      "      {4});\n",
      axi, leo, 8 * c.out_elem_bytes(), A, status(11));
  v += "  // Data beats each master moved.\n"
       "  assign events[15] = m_axi_fetch_rvalid && m_axi_fetch_rready;\n"
       "  assign events[16] = m_axi_load_rvalid && m_axi_load_rready;\n"
       "  assign events[17] = m_axi_compute_rvalid && m_axi_compute_rready;\n"
       "  assign events[18] = m_axi_store_wvalid && m_axi_store_wready;\n"
       "endmodule\n";
  return v;
}

}  // namespace tauvta::rtl
