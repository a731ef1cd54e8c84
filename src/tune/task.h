// Tuning tasks: the tunable accelerator layers of a model (conv2d, dense, grouped and transposed
// convolutions), one task per distinct workload on a config, each with the layer it times (its
// requantization and fused add, no weights) so a task's cycles are the network's own. A task can
// also come from the command line (--workload SPEC), timed like TVM's VTA task of that workload.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/network.h"
#include "hw/hw_config.h"
#include "lower/conv_lowering.h"

namespace tauvta::tune {

struct TuneTask {
  lower::ConvLayerSpec spec;        // the layer timed (weights empty)
  lower::LayerNeeds needs;          // what its schedules must leave room for
  std::vector<std::string> layers;  // network layers sharing the workload (empty: --workload)
  // Each of those layers' own timing spec, in the same order (their requantization, bias and fused
  // add may differ): what a network's cycles are summed from. Empty for a --workload task.
  std::vector<lower::ConvLayerSpec> layer_specs;
  std::string name;                 // "T3 conv2d 1x64x56x56 -> 64 k3x3 ..." for tables and logs

  const lower::ConvWorkload& workload() const { return spec.w; }
  uint64_t macs() const { return spec.useful_macs(); }  // without bias lanes' MACs
};

// The accelerator convolution-family layers of `net` deduplicated by workload, in order of first
// appearance. A workload shared by layers that need different room (a fused residual tile, more
// per-channel vectors) keeps the most demanding, so its tuned schedule is legal for all of them.
std::vector<TuneTask> extract_tasks(const backend::CompiledNetwork& net);

// A task for one workload without a network: TVM's task (shift and clip, no bias).
TuneTask workload_task(const hw::HwConfig& c, const lower::ConvWorkload& w);

// "conv2d,ci=256,h=14,w=14,co=256,k=3,s=1,p=0": the operator, then keys n (batch), ci, h, w, co,
// k (kernel), s (stride), d (dilation), p (padding), g (groups), op (output padding); k, s, d and
// op take N or HxW, p takes N or top/left/bottom/right as T/L/B/R. Throws tauvta::Error naming
// the key or value.
lower::ConvWorkload parse_workload_spec(const std::string& spec);

}  // namespace tauvta::tune
