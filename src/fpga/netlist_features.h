// Netlist features: what yosys 0.23's synth_xilinx builds from a generated datapath, counted from
// its shape and the FPGA family. They are the terms of the fitted closed forms: partial-product
// bits of LUT multipliers, adder bits per pipeline stage (the adds of a stage become one
// multi-operand adder), flip-flops by role, SRL delay chains, and on 7-series what a DSP48E1
// absorbs (operand, product and first-level adder registers). tools/synth/fit_resources.py counts
// the same terms (gemm_terms, alu_terms) and fits their coefficients.
#pragma once

#include <array>

#include "fpga/device.h"
#include "rtl/datapath_shape.h"

namespace tauvta::fpga {

enum class NetlistFeature : unsigned char {
  kOne,
  // GEMM core
  kDspProducts,        // products in DSP slices
  kLutPpBits,          // LUT products: partial-product bits below the product width
  kLutProductOutBits,  // LUT products: product bits
  kFabricAddBits,      // adder bits left in the fabric (each stage's adds at its result width)
  kMaccExtraBits,      // extra operands of multi-operand stages x that stage's width
  kDelaySrl,           // accumulator delay chains of 3+ registers (one SRL16E per bit)
  kOperandFf,          // operand registers outside DSP slices
  kProductRegFf,       // product registers outside DSP slices
  kTreeRegFf,          // registered tree levels outside DSP slices
  kAccFf,              // accumulator result registers
  kOutLaneBits,        // the OUT bits of the sum that the output reads
  kDelayFf,            // accumulator delay chains of 1-2 registers, in flip-flops
  // Tensor ALU
  kAluLaneBits,            // lanes x ACC
  kAluShiftBits,           // lanes x ACC x ceil(log2 ACC): the shifter's multiplexer levels
  kAluMulDsp,              // DSPs of the MUL lanes: k(k+1)/2 per lane, k = ceil(ACC/17)
  kAluPassBits,            // lanes x ACC x passes when the ALU runs in passes
  kAluSinglePassBits,      // lanes x ACC when a whole vector goes through at once
  kAluMultiPassLaneBits,   // lanes x ACC when it runs in passes
  kAluOperandBits,         // 2 x vector x ACC operand registers
  kCount
};
inline constexpr int kNumNetlistFeatures = int(NetlistFeature::kCount);
const char* netlist_feature_name(NetlistFeature f);
using NetlistFeatures = std::array<double, kNumNetlistFeatures>;

NetlistFeatures gemm_netlist_features(const rtl::DatapathShape& shape, Family family);
NetlistFeatures alu_netlist_features(const rtl::DatapathShape& shape);

}  // namespace tauvta::fpga
