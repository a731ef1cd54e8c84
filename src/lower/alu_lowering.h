// Lowering of the layers that run on the tensor ALU: max pooling (the input window copied into
// the accumulators by an identity GEMM, then one ALU MAX per window tap over the outputs whose
// tap lies inside the image, so padding never competes) and element-wise addition of two tensors
// of one shape (each operand brought into the accumulators by a GEMM with a scaled identity
// weight tile, which is the left shift to the common binary point, then the requantization).
// Average pools are depthwise convolutions with unit weights (conv_lowering.h).
#pragma once

#include <cstdint>
#include <string>

#include "lower/program_builder.h"
#include "lower/tensor_layout.h"

namespace tauvta::lower {

struct MaxPoolSpec {
  ActShape in;  // NCHW
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pad_top = 0, pad_left = 0;
  int64_t oh = 1, ow = 1;
};

struct AddSpec {
  ActShape shape;  // both operands and the output
  int64_t lhs_shift = 0, rhs_shift = 0;  // <= 0: left shifts to the common binary point
  int64_t shift = 0;                     // requantization
  int64_t clip_min = -128, clip_max = 127;
  int acc_bits = 32;
};

// The largest weight value; a weight tile holding `scale` on its diagonal (BLOCK_IN ==
// BLOCK_OUT), which moves (and scales) inputs into the accumulators through the GEMM core; why
// the config has no such tile (empty when it has).
int64_t weight_max(const hw::HwConfig& c);
std::vector<uint8_t> diagonal_tile(const hw::HwConfig& c, int64_t scale);
std::string identity_problem(const hw::HwConfig& c);

// Why the config cannot run these (empty when it can).
std::string max_pool_problem(const hw::HwConfig& c, const MaxPoolSpec& p);
std::string add_problem(const hw::HwConfig& c, const AddSpec& a);

void lower_max_pool(ProgramBuilder& pb, const MaxPoolSpec& p, const runtime::DramBuffer& in,
                    const runtime::DramBuffer& out);
void lower_add(ProgramBuilder& pb, const AddSpec& a, const runtime::DramBuffer& lhs,
               const runtime::DramBuffer& rhs, const runtime::DramBuffer& out);

}  // namespace tauvta::lower
