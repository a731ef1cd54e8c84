// Lowering of the convolution family (conv2d with any stride, padding, dilation and batch; dense
// as a 1x1 convolution on a 1x1 image; grouped and depthwise convolutions as block-diagonal
// supergroups) to accelerator instructions: per output tile, reduction steps that load an input
// window (padding inserted by the load unit) and a weight tile and run one GEMM, then the
// requantization on the tensor ALU (ADD of bias plus rounding constant, SHR, MIN, MAX) and a
// store of the narrowed outputs. Virtual threads split the SRAMs and interleave with dependency
// tokens so loads, compute and stores overlap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lower/conv_plan.h"
#include "lower/patch_sites.h"
#include "lower/program_builder.h"
#include "runtime/device.h"

namespace tauvta::lower {

// A residual add fused after the convolution (the graph's QAdd of the convolution's output and
// another activation of the same shape): the requantized, clipped convolution result is shifted
// left by conv_shl, the other operand joins it through the GEMM core with `other_scale` on an
// identity tile's diagonal, then ADD of the rounding constant, SHR by `shift`, MIN and MAX. The
// integer reference computes the same two nodes, so results stay bit-exact.
struct FusedAdd {
  int64_t conv_shl = 0;     // left shift of the convolution's output (>= 0)
  int64_t other_scale = 1;  // 2^(left shift) of the other operand, within the weight range
  int64_t shift = 0;
  int64_t clip_min = -128, clip_max = 127;
};

// A quantized convolution-family layer: workload, integer weights and requantization.
struct ConvLayerSpec {
  ConvWorkload w;
  std::vector<int32_t> weights;  // [CO][CI/groups][KH][KW]; empty: a timing program (no data)
  std::vector<int64_t> bias;     // [CO] in the accumulator's format; empty = none
  std::vector<int64_t> shifts;   // [CO], or one value for every channel
  int64_t clip_min = -128, clip_max = 127;
  int acc_bits = 32;
  // Emit the bias ADD even when bias and rounding are all zero (timing a workload whose data
  // are not known yet, as the heuristic and tuner do).
  bool force_bias_add = false;
  // Bias and rounding ride in the weights (lower/bias_lanes.h: the last input channels are
  // host-made constants and `weights` already holds their columns), so the ALU adds nothing.
  bool bias_in_weights = false;
  // How many of the last input channels are those constants: their MACs add the bias, not the
  // layer's arithmetic, so GOPS leave them out.
  int64_t constant_channels = 0;
  // Load the weight tile again for every batch block, as TVM's VTA templates do (each batch
  // block is its own pass over the reduction: lower/tuning_record.h, record_as_run). tauvta's own
  // programs keep a weight tile that consecutive tiles of the same channels share.
  bool weights_per_batch_block = false;
  uint64_t useful_macs() const;
  // The bias the requantization's ADD takes: `bias`, or what cancels the rounding constant when
  // bias_in_weights (requant_adds is then 0 for every channel).
  std::vector<int64_t> alu_bias() const;

  std::vector<int64_t> channel_shifts() const;  // expanded to CO entries
  // Per-channel vectors its requantization keeps in the accumulators (0 when immediates do):
  // the `acc_vectors` that schedule legality, the space and the heuristic take.
  int64_t acc_vectors(const hw::HwConfig& c) const;
  std::optional<FusedAdd> add;  // a residual add fused after it
  // acc_vectors and whether a residual tile needs INP space: what legality takes.
  LayerNeeds needs(const hw::HwConfig& c) const { return {acc_vectors(c), add.has_value()}; }
};

// The layer's weights in the accelerator's blocked layout (spec.weights must be filled).
std::vector<uint8_t> packed_conv_weights(const hw::HwConfig& c, const ConvLayerSpec& spec);

// The values lower_conv puts at the layer's patch sites (its requantization, then a fused
// add's): what the precision tools write when the layer's formats change.
std::vector<RequantValues> conv_requant_values(const hw::HwConfig& c, const ConvLayerSpec& spec);

// Why `a` cannot be fused after a convolution of `spec` on this config (empty when it can).
std::string fused_add_problem(const hw::HwConfig& c, const ConvLayerSpec& spec, const FusedAdd& a);

// Emits the layer into `pb`'s current layer. `input` holds [N/B][CI/BI][H][W] INP elements,
// `output` receives [N/B][CO/BO][OH][OW] OUT elements. Throws tauvta::Error when the schedule is
// illegal (naming the knob) or the workload cannot map (saying why).
// With spec.add, `residual` holds the add's other operand in the output's layout.
void lower_conv(ProgramBuilder& pb, const ConvLayerSpec& spec, const Schedule& s,
                const runtime::DramBuffer& input, const runtime::DramBuffer& output,
                const runtime::DramBuffer* residual = nullptr);

// The layer the heuristic times when a workload's data are not known: no weights, a uniform
// shift, the bias ADD emitted.
ConvLayerSpec timing_layer_spec(const ConvWorkload& w);

// A standalone program of one layer (its weights packed when `spec` has them; a fused add's
// residual operand in a region of its own), one layer named after the workload.
Program lower_conv_program(const hw::HwConfig& c, const ConvLayerSpec& spec, const Schedule& s);

// A standalone program of one workload with placeholder data (for timing: cycles do not depend
// on values), one layer named after the workload.
Program lower_conv_workload(const hw::HwConfig& c, const ConvWorkload& w, const Schedule& s);

}  // namespace tauvta::lower
