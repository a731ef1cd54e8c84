#include "fpga/clock_model.h"

#include <algorithm>
#include <cmath>

namespace tauvta::fpga {

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::kIssue: return "issue";
    case Stage::kBufferRead: return "buffer read";
    case Stage::kMultiply: return "multiply";
    case Stage::kTree: return "reduction tree";
    case Stage::kAccumulate: return "accumulate";
    case Stage::kAlu: return "tensor ALU";
    case Stage::kCount: break;
  }
  return "?";
}

namespace {

int ceil_log2(double n) { return n <= 1 ? 0 : int(std::ceil(std::log2(n))); }

}  // namespace

ClockEstimate estimate_clock(const rtl::DatapathShape& s, const Device& device,
                             int max_depth_blocks, double read_blocks) {
  const SwitchingDelays& d = device.delays;
  // A register-to-register path: launch, the logic, the last net, setup, margin.
  const double launch = d.ff_clk_to_q, capture = d.net + d.ff_setup + d.uncertainty;
  const double level = d.lut + d.net;  // one LUT level and its net
  auto adder = [&](int bits) { return d.carry_entry + bits * d.carry_per_bit + d.net; };
  ClockEstimate e;
  auto& t = e.stage_ns;

  // Issue. F1: the micro-op out of its block RAM plus the loop offset (the widest index) into
  // registers. F2: each index compared with the writes in flight (two LUT levels), the OR of the
  // matches, the stall, then the read enable out to every block RAM of the read buffers (a net
  // that grows with its loads).
  const int index_bits = 1 + std::max({s.buffer(rtl::BufferId::kAcc).log_depth,
                                       s.buffer(rtl::BufferId::kInp).log_depth,
                                       s.buffer(rtl::BufferId::kWgt).log_depth});
  const double fanout = d.net * 0.25 * std::log2(std::max(1.0, read_blocks));
  const double f1 = d.bram_clk_to_q + d.net + adder(index_bits) + capture;
  const double f2 = launch + 4 * level + fanout + d.bram_setup + d.uncertainty;
  t[int(Stage::kIssue)] = std::max(f1, f2);

  // Buffer read: block RAM out, through a read multiplexer when blocks are stacked in depth
  // (a LUT6 selects among 4 inputs), into the operand registers.
  const int mux_levels = (ceil_log2(max_depth_blocks) + 1) / 2;
  t[int(Stage::kBufferRead)] = d.bram_clk_to_q + mux_levels * level + capture;

  // Multipliers: a DSP slice from its A/B registers to its M register (wider than 25x18 takes a
  // cascade); in LUTs a row of partial products then an adder tree of carry chains.
  if (s.dsp_products > 0) {
    const int tiles = int(std::ceil(s.inp_width / 25.0) * std::ceil(s.wgt_width / 18.0));
    t[int(Stage::kMultiply)] = launch + d.net + d.dsp_mult + (tiles - 1) * d.dsp_cascade + capture;
  }
  if (s.dsp_products < s.products) {
    const int narrow = std::min(s.inp_width, s.wgt_width);
    t[int(Stage::kMultiply)] = std::max(
        t[int(Stage::kMultiply)],
        launch + level + ceil_log2(narrow) * adder(s.product_width) + capture);
  }

  // Reduction tree: the longest registered stage (the last stage is counted in accumulate).
  int w = s.product_width;
  double widest_stage = 0, stage = 0;
  int level_no = 0;
  double last_stage = 0;
  for (int n = s.block_in; n > 1; n = (n + 1) / 2) {
    ++level_no;
    w = std::min(w + 1, s.acc_width);
    stage += adder(w);
    if (s.tree_level_registered(level_no)) {
      widest_stage = std::max(widest_stage, stage);
      stage = 0;
    }
  }
  last_stage = stage;
  t[int(Stage::kTree)] = widest_stage > 0 ? launch + widest_stage + capture : 0;
  // Accumulate: the unregistered last tree levels, the wrapping add, the reset multiplexer.
  t[int(Stage::kAccumulate)] = launch + last_stage + adder(s.acc_width) + level + capture;

  // Tensor ALU. A whole vector: the operations side by side into their own registers (compare
  // and select, the shifter's 4:1 multiplexer levels, the adder, a DSP slice's M register for
  // MUL), then the operation select (after the cascade of a multi-tile product). In passes: the
  // lane multiplexer, the immediate, an operation and the select in one stage.
  const int log_aw = ceil_log2(s.acc_width);
  const double compare = adder(s.acc_width) + level;
  const double shift = ((log_aw + 1) / 2 + 1) * level;
  double op = std::max({compare, shift, adder(s.acc_width)});
  // The DSPs yosys builds for an ACC x ACC product truncated to ACC bits: k(k+1)/2 with
  // k = ceil(ACC/17) (netlist_features.h), summed through the cascade.
  const int chunks = (s.acc_width + 16) / 17;
  const int tiles = chunks * (chunks + 1) / 2;
  const double cascade = s.alu_mul ? (tiles - 1) * d.dsp_cascade : 0;
  if (s.alu_passes == 1) {
    if (s.alu_mul) op = std::max(op, d.net + d.dsp_mult);
    const double ops = launch + op + capture, select = launch + cascade + 2 * level + capture;
    t[int(Stage::kAlu)] = std::max(ops, select);
  } else {
    if (s.alu_mul) op = std::max(op, d.net + d.dsp_mult + cascade);
    const double pass_mux = ((ceil_log2(s.alu_passes) + 1) / 2) * level;
    t[int(Stage::kAlu)] = launch + pass_mux + level + op + 2 * level + capture;
  }

  for (int k = 0; k < kNumStages; ++k) {
    if (t[k] > e.period_ns) {
      e.period_ns = t[k];
      e.critical = Stage(k);
    }
  }
  e.fmax_mhz = 1000.0 / e.period_ns;
  return e;
}

}  // namespace tauvta::fpga
