// The compute module's datapath as Verilog: decodes a GEMM or ALU instruction (field positions
// from the ISA table), walks its micro-op loop nest, reads the buffers, feeds the GEMM core or the
// tensor ALU and writes the accumulator and output buffers. A read that would see an accumulator
// still in flight waits (the HLS design leaves that hazard to the compiler; waiting keeps the RTL
// exact for any micro-op stream). The load and store modules are outside: a host port writes and
// reads the buffers while the module is idle.
#include <algorithm>

#include <fmt/format.h>

#include "hw/isa_layout.h"
#include "rtl/verilog_emit.h"

namespace tauvta::rtl {

namespace {

std::string field_slice(const hw::IsaLayout& l, hw::Format f, hw::Field id) {
  const hw::FieldDesc& d = l.field(f, id);
  return fmt::format("insn[{}:{}]", d.lsb + d.width - 1, d.lsb);
}
int field_width(const hw::IsaLayout& l, hw::Format f, hw::Field id) {
  return l.field(f, id).width;
}
// `e` of `from` bits zero-extended to `to` bits: explicit, so the lint sees equal widths.
std::string zext(const std::string& e, int from, int to) {
  return to > from ? fmt::format("{{{}'d0, {}}}", to - from, e) : e;
}

}  // namespace

std::string emit_sram() {
  return "// Simple dual-port RAM: one write port, one registered read port (read-first).\n"
         "module tauvta_sram #(parameter W = 8, parameter A = 4) (\n"
         "  input  wire clk,\n"
         "  input  wire we,\n"
         "  input  wire [A-1:0] waddr,\n"
         "  input  wire [W-1:0] wdata,\n"
         "  input  wire re,\n"
         "  input  wire [A-1:0] raddr,\n"
         "  output reg  [W-1:0] rdata\n"
         ");\n"
         "  reg [W-1:0] mem [0:(1<<A)-1];\n"
         "  always @(posedge clk) begin\n"
         "    if (we) mem[waddr] <= wdata;\n"
         "    if (re) rdata <= mem[raddr];\n"
         "  end\n"
         "endmodule\n";
}

int host_width(const DatapathShape& s) {
  int w = 0;
  for (const BufferShape& b : s.buffers) w = std::max(w, b.width);
  return w;
}

std::string emit_compute(const hw::HwConfig& c, const DatapathShape& s) {
  const hw::IsaLayout l(c);
  using hw::Field;
  using hw::Format;
  const int U = c.log_uop_depth(), I = c.log_inp_depth(), W = c.log_wgt_depth(),
            A = c.log_acc_depth();
  const int HW = host_width(s);
  const int iter_w = field_width(l, Format::kGemm, Field::kIterOut);
  const int iter_in_w = field_width(l, Format::kGemm, Field::kIterIn);
  const int taps = std::max(s.gemm_latency, s.alu_latency) + 1;
  const hw::UopLayout& ul = l.uop();
  const auto& buf = s.buffers;
  std::string v;
  v += fmt::format(
      "// Compute datapath of {}: GEMM core latency {}, ALU latency {}, an ALU micro-op every {}\n"
      "// cycle(s), {} accumulator read port(s).\n",
      c.name(), s.gemm_latency, s.alu_latency, s.alu_issue_cycles, s.acc_read_ports);
  v += "module tauvta_compute (\n"
       "  input  wire clk,\n"
       "  input  wire rst,\n"
       "  input  wire start,\n"
       "  // Not every bit is read: the instruction's other fields are the load and store modules',\n"
       "  // and the host port's address is wider than any buffer.\n"
       "  /* verilator lint_off UNUSEDSIGNAL */\n"
       "  input  wire [127:0] insn,\n"
       "  input  wire [31:0] host_addr,\n"
       "  /* verilator lint_on UNUSEDSIGNAL */\n"
       "  output reg  busy,\n"
       "  output wire hazard_stall,  // a micro-op waits for an accumulator write in flight\n"
       "  output wire finishing,     // the last cycle of the instruction (its last write)\n"
       "  input  wire host_we,\n"
       "  input  wire host_re,\n"
       "  input  wire [2:0] host_mem,\n";
  v += fmt::format("  input  wire [{}:0] host_wdata,\n", HW - 1);
  v += fmt::format("  output wire [{}:0] host_rdata,\n", HW - 1);
  // The load and store modules' ports (tauvta_accelerator): they run beside the datapath.
  v += "  // The load module's writes of inputs and weights, at any time.\n";
  v += fmt::format("  input  wire ld_inp_we,\n  input  wire [{}:0] ld_inp_waddr,\n"
                   "  input  wire [{}:0] ld_inp_wdata,\n",
                   I - 1, buf[size_t(BufferId::kInp)].width - 1);
  v += fmt::format("  input  wire ld_wgt_we,\n  input  wire [{}:0] ld_wgt_waddr,\n"
                   "  input  wire [{}:0] ld_wgt_wdata,\n",
                   W - 1, buf[size_t(BufferId::kWgt)].width - 1);
  v += "  // The store module's reads of outputs (registered, one cycle), at any time.\n";
  v += fmt::format("  input  wire st_out_re,\n  input  wire [{}:0] st_out_raddr,\n"
                   "  output wire [{}:0] st_out_rdata\n);\n",
                   A - 1, buf[size_t(BufferId::kOut)].width - 1);
  v += fmt::format("  localparam U = {}, I = {}, W = {}, A = {}, TAPS = {};\n", U, I, W, A, taps);
  v += fmt::format("  localparam GEMM_TAP = {}, ALU_TAP = {}, ALU_PHASES = {}, ACC_PORTS = {};\n",
                   s.gemm_latency, s.alu_latency, s.alu_issue_cycles, s.acc_read_ports);
  v += "  // Memory ids as in the ISA: 0 uop, 1 wgt, 2 inp, 3 acc, 4 out.\n\n";

  // Instruction registers.
  v += "  reg is_alu, reset_q, use_imm_q;\n"
       "  reg [2:0] alu_op_q;\n"
       "  reg [15:0] imm_q;\n";
  v += fmt::format("  reg [U:0] uop_bgn_q, uop_end_q, u;\n");
  v += fmt::format("  reg [{}:0] iter_out_q, o_cnt;\n", iter_w - 1);
  v += fmt::format("  reg [{}:0] iter_in_q, i_cnt;\n", iter_in_w - 1);
  v += "  reg [A:0] dst_out_q, dst_in_q, dst_o, dst_off;\n"
       "  reg [I:0] src_out_q, src_in_q, src_o, src_off;\n"
       "  reg [W:0] wgt_out_q, wgt_in_q, wgt_o, wgt_off;\n"
       "  reg gen_valid;\n\n";

  // Decode on start.
  const Format G = Format::kGemm, L = Format::kAlu;
  v += "  // Decode (field positions from the ISA table of this config).\n";
  v += fmt::format("  wire [2:0] opcode = {};\n", field_slice(l, G, Field::kOpcode));
  v += "  wire start_alu = opcode == 3'd4;\n";
  // A field decoded at its own width in each format, then fitted to the register it loads:
  // zero-extended, or its low bits when the register is narrower (the ALU's source factors have
  // the accumulator's width and load the input-width offsets, which wrap there).
  auto fit = [&](const std::string& e, int from, int to) {
    return to >= from ? zext(e, from, to) : fmt::format("{}[{}:0]", e, to - 1);
  };
  auto dec = [&](const char* name, Field f, int width, int reg_width) {
    const int wa = field_width(l, L, f);
    if (wa > reg_width || width > reg_width) v += "  /* verilator lint_off UNUSEDSIGNAL */  // bits past the offset's wrap\n";
    v += fmt::format("  wire [{}:0] {}_g = {};\n", width - 1, name, field_slice(l, G, f));
    v += fmt::format("  wire [{}:0] {}_a = {};\n", wa - 1, name, field_slice(l, L, f));
    if (wa > reg_width || width > reg_width) v += "  /* verilator lint_on UNUSEDSIGNAL */\n";
    v += fmt::format("  wire [{}:0] {}_d = start_alu ? {} : {};\n", reg_width - 1, name,
                     fit(std::string(name) + "_a", wa, reg_width), fit(std::string(name) + "_g", width, reg_width));
  };
  dec("uop_bgn", Field::kUopBgn, field_width(l, G, Field::kUopBgn), U + 1);
  dec("uop_end", Field::kUopEnd, field_width(l, G, Field::kUopEnd), U + 1);
  dec("iter_out", Field::kIterOut, iter_w, iter_w);
  dec("iter_in", Field::kIterIn, iter_in_w, iter_in_w);
  dec("dst_out", Field::kDstFactorOut, field_width(l, G, Field::kDstFactorOut), A + 1);
  dec("dst_in", Field::kDstFactorIn, field_width(l, G, Field::kDstFactorIn), A + 1);
  dec("src_out", Field::kSrcFactorOut, field_width(l, G, Field::kSrcFactorOut), I + 1);
  dec("src_in", Field::kSrcFactorIn, field_width(l, G, Field::kSrcFactorIn), I + 1);
  v += fmt::format("  wire empty = uop_end_d <= uop_bgn_d || iter_out_d == 0 || iter_in_d == 0;\n");

  // Front end: micro-op fetch (F) and address/hazard stage (F1).
  v += "\n  // F1: the fetched micro-op and its loop offsets; its buffer indices are computed here.\n"
       "  // F2: the indices, registered; the hazard check and the buffer reads (phases) happen here.\n"
       "  reg f1_valid, f2_valid;\n"
       "  reg [15:0] phase;\n"
       "  reg [A-1:0] a2, s2;\n"
       "  reg [I-1:0] x2;\n"
       "  reg [W-1:0] w2;\n"
       "  reg [A:0] f1_dst_off;\n"
       "  reg [I:0] f1_src_off;\n"
       "  reg [W:0] f1_wgt_off;\n";
  v += "  // With small buffers the micro-op's fields end below bit 31; the rest is never read.\n"
       "  /* verilator lint_off UNUSEDSIGNAL */\n"
       "  wire [31:0] uop_word;\n"
       "  /* verilator lint_on UNUSEDSIGNAL */\n";
  v += fmt::format("  wire [{}:0] uop_dst = uop_word[{}:{}];\n", ul.dst().width - 1,
                   ul.dst().lsb + ul.dst().width - 1, ul.dst().lsb);
  v += fmt::format("  wire [{}:0] uop_src = uop_word[{}:{}];\n", ul.src().width - 1,
                   ul.src().lsb + ul.src().width - 1, ul.src().lsb);
  if (ul.wgt().width > 0) {
    v += fmt::format("  wire [{}:0] uop_wgt = uop_word[{}:{}];\n", ul.wgt().width - 1,
                     ul.wgt().lsb + ul.wgt().width - 1, ul.wgt().lsb);
  } else {
    v += "  wire [0:0] uop_wgt = 1'b0;\n";
  }
  // The sums are one bit wider than a buffer's address, as the offsets are; the index is their
  // low bits (the wrap the HLS design has), so the top bits are computed and never read.
  v += "  /* verilator lint_off UNUSEDSIGNAL */\n";
  v += "  wire [A:0] a_idx = uop_dst + f1_dst_off;\n";
  v += fmt::format("  wire [31:0] src_sum = {} + {};\n", zext("uop_src", ul.src().width, 32), zext("f1_src_off", I + 1, 32));
  v += "  wire [A:0] s_idx = src_sum[A:0];  // ALU: an accumulator index\n"
       "  wire [I:0] x_idx = src_sum[I:0];  // GEMM: an input index\n"
       "  wire [W:0] w_idx = uop_wgt + f1_wgt_off;\n"
       "  /* verilator lint_on UNUSEDSIGNAL */\n";
  // Hazards against accumulator writes in flight.
  v += "\n  // Accumulator writes in flight: pend[k] is written k..TAP cycles after it was issued.\n"
       "  reg [TAPS-1:0] pend_v;\n"
       "  reg [A-1:0] pend_a [0:TAPS-1];\n";
  // Entries up to the running unit's write tap are live (zero-width replications are illegal).
  auto mask = [&](int tap) {
    return tap + 1 == taps ? std::string("{TAPS{1'b1}}")
                           : fmt::format("{{{{{}{{1'b0}}}}, {{{}{{1'b1}}}}}}", taps - tap - 1,
                                         tap + 1);
  };
  v += fmt::format("  wire [TAPS-1:0] tap_mask = is_alu ? {} : {};\n", mask(s.alu_latency),
                   mask(s.gemm_latency));
  v += "  reg hazard;\n"
       "  integer k;\n"
       "  always @(*) begin\n"
       "    hazard = 1'b0;\n"
       "    for (k = 0; k < TAPS; k = k + 1)\n"
       "      if (pend_v[k] && tap_mask[k] &&\n"
       "          (pend_a[k] == a2 || (is_alu && pend_a[k] == s2)))\n"
       "        hazard = 1'b1;\n"
       "  end\n"
       "  wire stall = f2_valid && phase == 0 && hazard;\n"
       "  wire f2_go = f2_valid && !stall;\n"
       "  assign hazard_stall = busy && stall;\n"
       "  wire [15:0] last_phase = is_alu ? ALU_PHASES - 1 : 0;\n"
       "  wire f2_fire = f2_go && phase == last_phase;\n"
       "  wire f1_move = f1_valid && (!f2_valid || f2_fire);\n"
       "  wire f_can = busy && gen_valid && (!f1_valid || f1_move);\n"
       "  // The instruction's last accumulator write is in this cycle (or it had none): done now, and\n"
       "  // idle from the next cycle, when the next instruction may start.\n"
       "  wire [TAPS-1:0] write_tap = {{(TAPS-1){1'b0}}, 1'b1} << (is_alu ? ALU_TAP : GEMM_TAP);\n"
       "  assign finishing = busy && !gen_valid && !f1_valid && !f2_valid &&\n"
       "                     (pend_v & tap_mask & ~write_tap) == 0;\n\n";

  // Sequencing.
  v += "  always @(posedge clk) begin\n"
       "    if (rst) begin\n"
       "      busy <= 1'b0;\n"
       "      gen_valid <= 1'b0;\n"
       "      f1_valid <= 1'b0;\n"
       "      f2_valid <= 1'b0;\n"
       "      phase <= 0;\n"
       "      pend_v <= 0;\n"
       "    end else if (!busy) begin\n"
       "      if (start) begin\n"
       "        busy <= 1'b1;\n"
       "        gen_valid <= !empty;\n"
       "        is_alu <= start_alu;\n";
  v += fmt::format("        reset_q <= {};\n", field_slice(l, G, Field::kReset));
  v += fmt::format("        alu_op_q <= {};\n", field_slice(l, L, Field::kAluOpcode));
  v += fmt::format("        use_imm_q <= {};\n", field_slice(l, L, Field::kUseImm));
  v += fmt::format("        imm_q <= {};\n", field_slice(l, L, Field::kImm));
  v += fmt::format("        wgt_out_q <= {};\n",
                   zext(field_slice(l, G, Field::kWgtFactorOut), field_width(l, G, Field::kWgtFactorOut), W + 1));
  v += fmt::format("        wgt_in_q <= {};\n",
                   zext(field_slice(l, G, Field::kWgtFactorIn), field_width(l, G, Field::kWgtFactorIn), W + 1));
  v += "        uop_bgn_q <= uop_bgn_d;\n"
       "        uop_end_q <= uop_end_d;\n"
       "        iter_out_q <= iter_out_d;\n"
       "        iter_in_q <= iter_in_d;\n"
       "        dst_out_q <= dst_out_d;\n"
       "        dst_in_q <= dst_in_d;\n"
       "        src_out_q <= src_out_d;\n"
       "        src_in_q <= src_in_d;\n"
       "        u <= uop_bgn_d;\n"
       "        i_cnt <= 0;\n"
       "        o_cnt <= 0;\n"
       "        dst_o <= 0; dst_off <= 0;\n"
       "        src_o <= 0; src_off <= 0;\n"
       "        wgt_o <= 0; wgt_off <= 0;\n"
       "        pend_v <= 0;\n"
       "      end\n"
       "    end else begin\n"
       "      // Loop nest: micro-ops innermost, then iter_in, then iter_out.\n"
       "      if (f_can) begin\n"
       "        if (u + 1'b1 < uop_end_q) begin\n"
       "          u <= u + 1'b1;\n"
       "        end else begin\n"
       "          u <= uop_bgn_q;\n"
       "          if (i_cnt + 1'b1 < iter_in_q) begin\n"
       "            i_cnt <= i_cnt + 1'b1;\n"
       "            dst_off <= dst_off + dst_in_q;\n"
       "            src_off <= src_off + src_in_q;\n"
       "            wgt_off <= wgt_off + wgt_in_q;\n"
       "          end else begin\n"
       "            i_cnt <= 0;\n"
       "            if (o_cnt + 1'b1 < iter_out_q) begin\n"
       "              o_cnt <= o_cnt + 1'b1;\n"
       "              dst_o <= dst_o + dst_out_q; dst_off <= dst_o + dst_out_q;\n"
       "              src_o <= src_o + src_out_q; src_off <= src_o + src_out_q;\n"
       "              wgt_o <= wgt_o + wgt_out_q; wgt_off <= wgt_o + wgt_out_q;\n"
       "            end else begin\n"
       "              gen_valid <= 1'b0;\n"
       "            end\n"
       "          end\n"
       "        end\n"
       "        f1_valid <= 1'b1;\n"
       "        f1_dst_off <= dst_off;\n"
       "        f1_src_off <= src_off;\n"
       "        f1_wgt_off <= wgt_off;\n"
       "      end else if (f1_move) begin\n"
       "        f1_valid <= 1'b0;\n"
       "      end\n"
       "      if (f1_move) begin\n"
       "        f2_valid <= 1'b1;\n"
       "        a2 <= a_idx[A-1:0];\n"
       "        s2 <= s_idx[A-1:0];\n"
       "        x2 <= x_idx[I-1:0];\n"
       "        w2 <= w_idx[W-1:0];\n"
       "      end else if (f2_fire) begin\n"
       "        f2_valid <= 1'b0;\n"
       "      end\n"
       "      if (f2_fire) phase <= 0;\n"
       "      else if (f2_go) phase <= phase + 1'b1;\n"
       "      pend_v <= {pend_v[TAPS-2:0], f2_fire};\n"
       "      if (finishing) busy <= 1'b0;\n"
       "    end\n"
       "  end\n"
       "  always @(posedge clk) begin\n"
       "    pend_a[0] <= a2;\n"
       "    for (k = 1; k < TAPS; k = k + 1) pend_a[k] <= pend_a[k-1];\n"
       "  end\n\n";

  // Buffers and their ports.
  v += "  // Buffers: the core's ports while busy, the host's while idle.\n"
       "  reg [2:0] host_rsel;\n"
       "  always @(posedge clk) host_rsel <= host_mem;\n"
       "  wire host_w = !busy && host_we;\n"
       "  wire host_r = !busy && host_re;\n";
  v += "  wire acc_we = busy && pend_v[is_alu ? ALU_TAP : GEMM_TAP];\n"
       "  wire [A-1:0] acc_waddr = pend_a[is_alu ? ALU_TAP : GEMM_TAP];\n";
  const auto& ub = buf[size_t(BufferId::kUop)];
  const auto& ib = buf[size_t(BufferId::kInp)];
  const auto& wb = buf[size_t(BufferId::kWgt)];
  const auto& ab = buf[size_t(BufferId::kAcc)];
  const auto& ob = buf[size_t(BufferId::kOut)];
  v += "  wire [31:0] uop_rdata;\n";
  v += fmt::format("  wire [{}:0] inp_rdata;\n", ib.width - 1);
  v += fmt::format("  wire [{}:0] wgt_rdata;\n", wb.width - 1);
  v += fmt::format("  wire [{}:0] acc_rdata0, acc_rdata1, acc_wdata;\n", ab.width - 1);
  v += fmt::format("  wire [{}:0] out_rdata, out_wdata;\n", ob.width - 1);
  v += "  assign uop_word = uop_rdata[31:0];\n";
  auto sram = [&](const char* inst, const BufferShape& b, const std::string& we,
                  const std::string& waddr, const std::string& wdata, const std::string& re,
                  const std::string& raddr, const std::string& rdata) {
    v += fmt::format(
        "  tauvta_sram #(.W({}), .A({})) {} (.clk(clk), .we({}), .waddr({}), .wdata({}),\n"
        "      .re({}), .raddr({}), .rdata({}));\n",
        b.width, b.log_depth, inst, we, waddr, wdata, re, raddr, rdata);
  };
  auto host_sel = [](int id) { return fmt::format("host_mem == 3'd{}", id); };
  auto haddr = [](int bits) { return fmt::format("host_addr[{}:0]", bits - 1); };
  auto hdata = [](int bits) { return fmt::format("host_wdata[{}:0]", bits - 1); };
  sram("uop_mem", ub, "host_w && " + host_sel(0), haddr(U), hdata(32),
       "busy ? f_can : host_r && " + host_sel(0), fmt::format("busy ? u[U-1:0] : {}", haddr(U)),
       "uop_rdata");
  v += "  wire core_rd = f2_go && phase == 0 && !is_alu;\n";
  sram("inp_mem", ib, "ld_inp_we || (host_w && " + host_sel(2) + ")",
       fmt::format("ld_inp_we ? ld_inp_waddr : {}", haddr(I)),
       fmt::format("ld_inp_we ? ld_inp_wdata : {}", hdata(ib.width)),
       "busy ? core_rd : host_r && " + host_sel(2), fmt::format("busy ? x2 : {}", haddr(I)),
       "inp_rdata");
  sram("wgt_mem", wb, "ld_wgt_we || (host_w && " + host_sel(1) + ")",
       fmt::format("ld_wgt_we ? ld_wgt_waddr : {}", haddr(W)),
       fmt::format("ld_wgt_we ? ld_wgt_wdata : {}", hdata(wb.width)),
       "busy ? core_rd : host_r && " + host_sel(1), fmt::format("busy ? w2 : {}", haddr(W)),
       "wgt_rdata");
  // Accumulator copy 0: GEMM's read, the ALU's destination (and source with one port).
  v += "  wire acc0_re = f2_go && (phase == 0 || (is_alu && ACC_PORTS == 1 && phase == 1));\n"
       "  wire [A-1:0] acc0_raddr = (is_alu && phase == 1) ? s2 : a2;\n";
  sram("acc_mem0", {"acc", ab.width, ab.log_depth, 1}, "acc_we || (host_w && " + host_sel(3) + ")",
       fmt::format("busy ? acc_waddr : {}", haddr(A)),
       fmt::format("busy ? acc_wdata : {}", hdata(ab.width)),
       "busy ? acc0_re : host_r && " + host_sel(3), fmt::format("busy ? acc0_raddr : {}", haddr(A)),
       "acc_rdata0");
  if (s.acc_read_ports == 2) {
    sram("acc_mem1", {"acc", ab.width, ab.log_depth, 1}, "acc_we || (host_w && " + host_sel(3) + ")",
         fmt::format("busy ? acc_waddr : {}", haddr(A)),
         fmt::format("busy ? acc_wdata : {}", hdata(ab.width)), "f2_go && phase == 0 && is_alu",
         "s2", "acc_rdata1");
  } else {
    v += "  assign acc_rdata1 = acc_rdata0;\n";
  }
  sram("out_mem", ob, "acc_we || (host_w && " + host_sel(4) + ")",
       fmt::format("busy ? acc_waddr : {}", haddr(A)),
       fmt::format("busy ? out_wdata : {}", hdata(ob.width)),
       "st_out_re || (host_r && " + host_sel(4) + ")",
       fmt::format("st_out_re ? st_out_raddr : {}", haddr(A)), "out_rdata");
  v += "  assign st_out_rdata = out_rdata;\n";
  auto ext = [&](const std::string& sig, int bits) {
    return bits == HW ? sig : fmt::format("{{{{{}{{1'b0}}}}, {}}}", HW - bits, sig);
  };
  v += "  assign host_rdata =\n";
  v += fmt::format("      host_rsel == 3'd0 ? {} :\n", ext("uop_rdata", ub.width));
  v += fmt::format("      host_rsel == 3'd1 ? {} :\n", ext("wgt_rdata", wb.width));
  v += fmt::format("      host_rsel == 3'd2 ? {} :\n", ext("inp_rdata", ib.width));
  v += fmt::format("      host_rsel == 3'd3 ? {} :\n", ext("acc_rdata0", ab.width));
  v += fmt::format("      {};\n\n", ext("out_rdata", ob.width));

  // Execution units.
  v += "  // Operands arrive the cycle after the last read of a micro-op.\n"
       "  reg fire_q, rd_dst_q;\n"
       "  reg [" + std::to_string(ab.width - 1) + ":0] a_hold;\n"
       "  always @(posedge clk) begin\n"
       "    fire_q <= busy && f2_fire;\n"
       "    rd_dst_q <= f2_go && phase == 0 && is_alu;\n"
       "    if (rd_dst_q) a_hold <= acc_rdata0;\n"
       "  end\n";
  v += fmt::format("  wire [{}:0] gemm_acc, alu_r;\n", ab.width - 1);
  v += fmt::format("  wire [{}:0] gemm_out, alu_o;\n", ob.width - 1);
  // Write-back is timed by the compute module's own taps (GEMM_TAP, ALU_TAP); the units' valids
  // are for a testbench of a unit alone.
  v += "  /* verilator lint_off UNUSEDSIGNAL */\n"
       "  wire gemm_valid, alu_valid;\n"
       "  /* verilator lint_on UNUSEDSIGNAL */\n"
       "  tauvta_gemm_core gemm (.clk(clk), .in_valid(fire_q && !is_alu), .in_reset(reset_q),\n";
  v += std::string(
      "      .inp(inp_rdata), .wgt(wgt_rdata), .acc(acc_rdata0), .out_valid(gemm_valid),\n"
      "      .acc_next(gemm_acc), .out_next(gemm_out));\n");
  v += "  tauvta_alu alu (.clk(clk), .in_valid(fire_q && is_alu), .op(alu_op_q), .use_imm(use_imm_q),\n"
       "      .imm(imm_q), .a(ACC_PORTS == 2 ? acc_rdata0 : a_hold),\n"
       "      .b(ACC_PORTS == 2 ? acc_rdata1 : acc_rdata0), .out_valid(alu_valid), .r(alu_r), .o(alu_o));\n"
       "  assign acc_wdata = is_alu ? alu_r : gemm_acc;\n"
       "  assign out_wdata = is_alu ? alu_o : gemm_out;\n"
       "endmodule\n";
  return v;
}

}  // namespace tauvta::rtl
