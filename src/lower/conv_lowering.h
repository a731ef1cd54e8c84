// Lowering of the convolution family (conv2d with any stride, padding, dilation and batch; dense
// as a 1x1 convolution on a 1x1 image; grouped and depthwise convolutions as block-diagonal
// supergroups) to accelerator instructions: per output tile, reduction steps that load an input
// window (padding inserted by the load unit) and a weight tile and run one GEMM, then the
// requantization on the tensor ALU (ADD of bias plus rounding constant, SHR, MIN, MAX) and a
// store of the narrowed outputs. Virtual threads split the SRAMs and interleave with dependency
// tokens so loads, compute and stores overlap.
#pragma once

#include <cstdint>
#include <vector>

#include "lower/conv_plan.h"
#include "lower/program_builder.h"
#include "runtime/device.h"

namespace tauvta::lower {

// A quantized convolution-family layer: workload, integer weights and requantization.
struct ConvLayerSpec {
  ConvWorkload w;
  std::vector<int32_t> weights;  // [CO][CI/groups][KH][KW]
  std::vector<int64_t> bias;     // [CO] in the accumulator's format; empty = none
  std::vector<int64_t> shifts;   // [CO], or one value for every channel
  int64_t clip_min = -128, clip_max = 127;
  int acc_bits = 32;
  // Emit the bias ADD even when bias and rounding are all zero (timing a workload whose data
  // are not known yet, as the heuristic and tuner do).
  bool force_bias_add = false;

  std::vector<int64_t> channel_shifts() const;  // expanded to CO entries
  // Per-channel vectors its requantization keeps in the accumulators (0 when immediates do):
  // the `acc_vectors` that schedule legality, the space and the heuristic take.
  int64_t acc_vectors(const hw::HwConfig& c) const;
};

// Emits the layer into `pb`'s current layer. `input` holds [N/B][CI/BI][H][W] INP elements,
// `output` receives [N/B][CO/BO][OH][OW] OUT elements. Throws tauvta::Error when the schedule is
// illegal (naming the knob) or the workload cannot map (saying why).
void lower_conv(ProgramBuilder& pb, const ConvLayerSpec& spec, const Schedule& s,
                const runtime::DramBuffer& input, const runtime::DramBuffer& output);

// A standalone program of one workload with placeholder data (for timing: cycles do not depend
// on values), one layer named after the workload.
Program lower_conv_workload(const hw::HwConfig& c, const ConvWorkload& w, const Schedule& s);

}  // namespace tauvta::lower
