// Reading accelerator layer descriptions out of quantized graph nodes: the workload, integer
// weights and requantization of QConv / QGemm / average pools (as depthwise convolutions with
// unit weights), max-pool windows and element-wise adds. Every function throws tauvta::Error
// with the reason a node cannot run on the accelerator; cpu_reason says why the others stay on
// the CPU.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "graph/graph.h"
#include "hw/hw_config.h"
#include "lower/alu_lowering.h"
#include "lower/conv_lowering.h"

namespace tauvta::backend {

struct ConvLayer {
  lower::ConvLayerSpec spec;
  std::string op;      // conv2d, group_conv2d, dense, avg_pool
  std::string reason;  // what the accelerator does with it
  uint64_t macs = 0;   // useful MACs
};

// An integer tensor's values as int32 (a copy without widening when it holds int32 already).
std::vector<int32_t> int32_values(const graph::Tensor& t);

// NCHW shape of an activation value (2-D values [N, K] as [N, K, 1, 1]).
lower::ActShape act_shape(const graph::Graph& g, const std::string& value);

ConvLayer conv_layer(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c);
ConvLayer conv_transpose_layer(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c);
// `views`: values that are Flatten views of 4-D tensors (the weights are permuted to read the
// blocked tensor directly).
ConvLayer dense_layer(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c,
                      const std::map<std::string, std::string>& views);
ConvLayer avg_pool_layer(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c);
// The convolution family (QConv, QConvTranspose, QGemm, average pools): whether `op` belongs to
// it, and its layer by operator (the four above).
bool is_conv_family(const std::string& op);
ConvLayer conv_family_layer(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c,
                            const std::map<std::string, std::string>& views);
lower::MaxPoolSpec max_pool_spec(const graph::Graph& g, const graph::Node& n);
lower::AddSpec add_spec(const graph::Graph& g, const graph::Node& n, const hw::HwConfig& c);

// A residual add fused after a convolution (`conv_is_lhs`: the convolution's output is the add's
// first operand): the convolution's left shift, the other operand's scale and the add's own
// requantization; nullopt when the shifts cannot be expressed that way.
std::optional<lower::FusedAdd> fused_add_of(const lower::AddSpec& a, bool conv_is_lhs);

// The reason an operator without an accelerator lowering runs on the CPU.
std::string cpu_reason(const graph::Node& n);

}  // namespace tauvta::backend
