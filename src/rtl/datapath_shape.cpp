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

const char* feature_name(CostFeature f) {
  switch (f) {
    case CostFeature::kOne: return "one";
    case CostFeature::kDspProducts: return "dsp_products";
    case CostFeature::kLutProductBits: return "lut_product_bits";
    case CostFeature::kProductRegBits: return "product_reg_bits";
    case CostFeature::kTreeAdderBits: return "tree_adder_bits";
    case CostFeature::kTreeRegBits: return "tree_reg_bits";
    case CostFeature::kAccLaneBits: return "acc_lane_bits";
    case CostFeature::kAccDelayBits: return "acc_delay_bits";
    case CostFeature::kAluLaneBits: return "alu_lane_bits";
    case CostFeature::kAluMulLanes: return "alu_mul_lanes";
    case CostFeature::kAluPassBits: return "alu_pass_bits";
    case CostFeature::kOperandRegBits: return "operand_reg_bits";
    case CostFeature::kAluOperandBits: return "alu_operand_bits";
    case CostFeature::kCount: break;
  }
  return "?";
}

CostFeatures gemm_features(const DatapathShape& s) {
  CostFeatures f{};
  auto at = [&](CostFeature k) -> double& { return f[size_t(k)]; };
  const double lanes = double(s.batch) * s.block_out;
  at(CostFeature::kOne) = 1;
  const double lut_products = s.products - s.dsp_products;
  at(CostFeature::kDspProducts) = s.dsp_products;
  at(CostFeature::kLutProductBits) = lut_products * s.inp_width * s.wgt_width;
  at(CostFeature::kProductRegBits) = lut_products * s.product_width;
  // The tree exactly as the generator builds it: level widths grow by one bit up to ACC.
  int n = s.block_in, w = s.product_width, level = 0;
  double adder_bits = 0, reg_bits = 0;
  while (n > 1) {
    ++level;
    const int pairs = n / 2, next = (n + 1) / 2;
    w = std::min(w + 1, s.acc_width);
    adder_bits += lanes * pairs * w;
    if (s.tree_level_registered(level)) reg_bits += lanes * next * w;
    n = next;
  }
  at(CostFeature::kTreeAdderBits) = adder_bits;
  at(CostFeature::kTreeRegBits) = reg_bits;
  at(CostFeature::kAccLaneBits) = lanes * s.acc_width;
  at(CostFeature::kAccDelayBits) = lanes * s.acc_width * (2 + s.tree_registers);
  at(CostFeature::kOperandRegBits) =
      double(s.batch) * s.block_in * s.inp_width + double(s.block_out) * s.block_in * s.wgt_width;
  return f;
}

CostFeatures alu_features(const DatapathShape& s) {
  CostFeatures f{};
  auto at = [&](CostFeature k) -> double& { return f[size_t(k)]; };
  at(CostFeature::kOne) = 1;
  at(CostFeature::kAluLaneBits) = double(s.alu_lanes) * s.acc_width;
  // A product of two ACC-bit values tiles 25x18 DSP multipliers (7-series and UltraScale+).
  const int tiles = ((s.acc_width + 24) / 25) * ((s.acc_width + 17) / 18);
  at(CostFeature::kAluMulLanes) = s.alu_mul ? double(s.alu_lanes) * tiles : 0;
  at(CostFeature::kAluOperandBits) = 2.0 * s.alu_vector * s.acc_width;
  at(CostFeature::kAluPassBits) =
      s.alu_passes > 1 ? double(s.alu_lanes) * s.acc_width * s.alu_passes : 0;
  return f;
}

}  // namespace tauvta::rtl
