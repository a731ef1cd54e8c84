#include "rtl/datapath_shape.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::rtl {

RtlOptions options_of(const hw::HwConfig& config, int max_dsp_products) {
  const hw::Implementation& impl = config.impl;
  RtlOptions o;
  o.binding = impl.binding;
  o.tree_levels_per_stage = hw::tree_levels_per_stage(impl, config.block_in());
  o.acc_read_ports = impl.acc_read_ports;
  o.max_dsp_products = max_dsp_products;
  o.acc_array = impl.acc_array;
  return o;
}

void validate(const RtlOptions& o, const std::string& source) {
  if (o.tree_levels_per_stage < 0 || o.tree_levels_per_stage > 16) {
    throw Error(fmt::format("{}: tree_levels_per_stage = {} is out of range [0, 16]", source,
                            o.tree_levels_per_stage));
  }
  if (o.max_dsp_products < 0 || o.max_dsp_products > (1 << 24)) {
    throw Error(fmt::format("{}: max_dsp_products = {} is out of range [0, 2^24]", source,
                            o.max_dsp_products));
  }
  if (o.acc_read_ports != 1 && o.acc_read_ports != 2) {
    throw Error(fmt::format("{}: acc_read_ports = {} must be 1 or 2", source, o.acc_read_ports));
  }
}

DatapathShape shape_of(const hw::HwConfig& c, const RtlOptions& o) {
  DatapathShape s;
  s.batch = c.batch();
  s.block_in = c.block_in();
  s.block_out = c.block_out();
  s.inp_width = c.inp_width();
  s.wgt_width = c.wgt_width();
  s.acc_width = c.acc_width();
  s.out_width = c.out_width();
  s.products = s.batch * s.block_in * s.block_out;
  // The dot product is only needed modulo 2^ACC (the accumulator wraps), so no adder or product
  // is ever wider than the accumulator.
  s.product_width = std::min(s.inp_width + s.wgt_width, s.acc_width);
  s.products_in_dsp = hw::binds_to_dsp(o.binding, s.inp_width, s.wgt_width);
  s.dsp_products = !s.products_in_dsp ? 0
                   : o.max_dsp_products > 0 ? std::min(s.products, o.max_dsp_products)
                                            : s.products;
  s.tree_levels = 0;
  while ((1 << s.tree_levels) < s.block_in) ++s.tree_levels;
  s.tree_adders = s.batch * s.block_out * (s.block_in - 1);
  s.tree_levels_per_stage = o.tree_levels_per_stage;
  s.dot_width = std::min(s.product_width + s.tree_levels, s.acc_width);
  s.alu_vector = s.batch * s.block_out;
  s.alu_mul = c.impl.alu_mul;
  s.acc_read_ports = o.acc_read_ports;
  // The latencies and issue interval are the ones the timing model derives its TIMING keys from.
  hw::Implementation impl = c.impl;
  impl.tree_levels_per_stage = o.tree_levels_per_stage;
  impl.acc_read_ports = o.acc_read_ports;
  const hw::DatapathTiming t = hw::datapath_timing(impl, s.block_in, s.alu_vector);
  s.tree_registers = t.tree_registers;
  s.gemm_latency = t.gemm_latency;
  s.alu_lanes = t.alu_lanes;
  s.alu_passes = t.alu_passes;
  s.alu_latency = t.alu_latency;
  s.alu_issue_cycles = t.alu_issue_cycles;

  auto& b = s.buffers;
  b[size_t(BufferId::kUop)] = {"uop", 32, c.log_uop_depth(), 1};
  b[size_t(BufferId::kInp)] = {"inp", s.batch * s.block_in * s.inp_width, c.log_inp_depth(), 1};
  b[size_t(BufferId::kWgt)] = {"wgt", s.block_out * s.block_in * s.wgt_width, c.log_wgt_depth(), 1};
  b[size_t(BufferId::kAcc)] = {"acc", s.batch * s.block_out * s.acc_width, c.log_acc_depth(),
                               o.acc_read_ports};
  b[size_t(BufferId::kOut)] = {"out", s.batch * s.block_out * s.out_width, c.log_acc_depth(), 1};
  return s;
}

}  // namespace tauvta::rtl
