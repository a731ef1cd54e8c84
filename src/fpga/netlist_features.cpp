#include "fpga/netlist_features.h"

#include <algorithm>

namespace tauvta::fpga {

const char* netlist_feature_name(NetlistFeature f) {
  switch (f) {
    case NetlistFeature::kOne: return "one";
    case NetlistFeature::kDspProducts: return "dsp_products";
    case NetlistFeature::kLutPpBits: return "lut_pp_bits";
    case NetlistFeature::kLutProductOutBits: return "lut_product_out_bits";
    case NetlistFeature::kFabricAddBits: return "fabric_add_bits";
    case NetlistFeature::kMaccExtraBits: return "macc_extra_bits";
    case NetlistFeature::kDelaySrl: return "delay_srl";
    case NetlistFeature::kOperandFf: return "operand_ff";
    case NetlistFeature::kProductRegFf: return "product_reg_ff";
    case NetlistFeature::kTreeRegFf: return "tree_reg_ff";
    case NetlistFeature::kAccFf: return "acc_ff";
    case NetlistFeature::kOutLaneBits: return "out_lane_bits";
    case NetlistFeature::kDelayFf: return "delay_ff";
    case NetlistFeature::kAluLaneBits: return "alu_lane_bits";
    case NetlistFeature::kAluShiftBits: return "alu_shift_bits";
    case NetlistFeature::kAluMulDsp: return "alu_mul_dsp";
    case NetlistFeature::kAluPassBits: return "alu_pass_bits";
    case NetlistFeature::kAluSinglePassBits: return "alu_single_pass_bits";
    case NetlistFeature::kAluMultiPassLaneBits: return "alu_multi_pass_lane_bits";
    case NetlistFeature::kAluOperandBits: return "alu_operand_bits";
    case NetlistFeature::kCount: break;
  }
  return "?";
}

namespace {

// Partial-product bits of an iw x ww product truncated to its low pw bits.
int truncated_pp_bits(int iw, int ww, int pw) {
  int n = 0;
  for (int i = 0; i < iw; ++i) n += std::max(0, std::min(ww, pw - i));
  return n;
}

int bit_length(int v) {
  int n = 0;
  while (v > 0) {
    ++n;
    v >>= 1;
  }
  return n;
}

}  // namespace

NetlistFeatures gemm_netlist_features(const rtl::DatapathShape& s, Family family) {
  NetlistFeatures f{};
  auto at = [&](NetlistFeature k) -> double& { return f[size_t(k)]; };
  const double lanes = double(s.batch) * s.block_out;
  const int pw = s.product_width, aw = s.acc_width;
  const double in_dsp = s.dsp_products, in_lut = s.products - s.dsp_products;
  // On 7-series yosys packs each product's operand registers, its M register, the first tree
  // level's adder (the post-adder) and its register, and for BLOCK_IN 1 the accumulate, into the
  // DSP48E1. UltraScale+'s DSP48E2 is left with the multiplier alone. With a DSP limit the
  // registers are absorbed in proportion and the adders only when every product is in a DSP (an
  // extrapolation: yosys binds all products one way, so no synthesized point has a split).
  const bool xc7 = family == Family::kXc7;
  const bool absorb = xc7 && in_lut == 0 && in_dsp > 0;
  const double kept = xc7 ? in_lut / double(s.products) : 1.0;  // registers left in the fabric
  at(NetlistFeature::kOne) = 1;
  at(NetlistFeature::kDspProducts) = in_dsp;
  at(NetlistFeature::kLutPpBits) = in_lut * truncated_pp_bits(s.inp_width, s.wgt_width, pw);
  at(NetlistFeature::kLutProductOutBits) = in_lut * pw;
  at(NetlistFeature::kOperandFf) =
      kept * (double(s.batch) * s.block_in * s.inp_width + double(s.block_out) * s.block_in * s.wgt_width);
  at(NetlistFeature::kProductRegFf) = kept * double(s.products) * pw;
  // Each pipeline stage's adds become one multi-operand adder at the stage's result width.
  double add_bits = 0, extra_bits = 0, tree_ff = 0;
  int n = s.block_in, w = pw, adds = 0;
  for (int level = 1; level <= s.tree_levels; ++level) {
    const int pairs = n / 2, next = (n + 1) / 2;
    w = std::min(w + 1, aw);
    const bool reg = s.tree_level_registered(level);
    const bool in_post_adder = absorb && level == 1;
    if (!in_post_adder) adds += pairs;
    if (reg) {
      tree_ff += double(next) * w - (in_post_adder ? double(pairs) * w : 0);
      add_bits += double(adds) * w;
      extra_bits += double(std::max(0, adds - 1)) * w;
      adds = 0;
    }
    n = next;
  }
  const bool acc_in_dsp = absorb && s.block_in == 1;
  if (!acc_in_dsp) adds += 1;
  add_bits += double(adds) * aw;
  extra_bits += double(std::max(0, adds - 1)) * aw;
  at(NetlistFeature::kFabricAddBits) = lanes * add_bits;
  at(NetlistFeature::kMaccExtraBits) = lanes * extra_bits;
  at(NetlistFeature::kTreeRegFf) = lanes * tree_ff;
  at(NetlistFeature::kAccFf) = lanes * aw;
  at(NetlistFeature::kOutLaneBits) = lanes * s.out_width;
  // The accumulator operand passes acc_r and acc_q[0..S-1]: a chain of 3 or more becomes one
  // SRL16E per bit (xilinx_srl), a shorter one stays in flip-flops (acc_q[0] in the DSP's C
  // register when the accumulate is absorbed).
  const int chain = 1 + s.tree_registers + 1;
  at(NetlistFeature::kDelayFf) = chain < 3 ? lanes * aw * (chain - (acc_in_dsp ? 1 : 0)) : 0;
  at(NetlistFeature::kDelaySrl) = chain >= 3 ? lanes * aw : 0;
  return f;
}

NetlistFeatures alu_netlist_features(const rtl::DatapathShape& s) {
  NetlistFeatures f{};
  auto at = [&](NetlistFeature k) -> double& { return f[size_t(k)]; };
  const double lane_bits = double(s.alu_lanes) * s.acc_width;
  // mul2dsp splits an ACC x ACC product truncated to ACC bits into 17-bit signed chunks and drops
  // the partial products at or above bit ACC: k(k+1)/2 DSPs (ACC 16: 1, 32: 3, 64: 10).
  const int k = (s.acc_width + 16) / 17;
  at(NetlistFeature::kOne) = 1;
  at(NetlistFeature::kAluLaneBits) = lane_bits;
  at(NetlistFeature::kAluShiftBits) = lane_bits * bit_length(s.acc_width - 1);
  at(NetlistFeature::kAluMulDsp) = s.alu_mul ? double(s.alu_lanes) * (k * (k + 1) / 2) : 0;
  at(NetlistFeature::kAluPassBits) = s.alu_passes > 1 ? lane_bits * s.alu_passes : 0;
  at(NetlistFeature::kAluSinglePassBits) = s.alu_passes == 1 ? lane_bits : 0;
  at(NetlistFeature::kAluMultiPassLaneBits) = s.alu_passes > 1 ? lane_bits : 0;
  at(NetlistFeature::kAluOperandBits) = 2.0 * s.alu_vector * s.acc_width;
  return f;
}

}  // namespace tauvta::fpga
