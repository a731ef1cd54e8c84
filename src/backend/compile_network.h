// The network compiler: a quantized Graph -> CompiledNetwork. Every node is placed on the
// accelerator when its operator and shapes map onto the config (conv2d, grouped and depthwise
// convolutions, dense, max and power-of-two average pools, element-wise add, Flatten folded into
// the following dense), else on the CPU with the reason. Convolution-family layers take their
// schedule from the tuning records matching their workload and config, else from the default
// heuristic.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "backend/network.h"
#include "graph/graph.h"
#include "hw/hw_config.h"
#include "lower/schedule.h"

namespace tauvta::backend {

struct ScheduleChoice {
  lower::Schedule schedule;
  std::string source;  // "tuning log line 12", ...
};

struct CompileOptions {
  // The batch size the program is built for: every value whose first dimension is the graph's
  // dynamic batch takes it.
  int64_t batch = 1;
  // Schedules by workload (from tuning records); others use the default heuristic.
  std::map<lower::ConvWorkload, ScheduleChoice> schedules;
};

// `g` with every value whose first dimension is the dynamic batch given `batch` (what a compiled
// network's graph holds).
graph::Graph with_batch(const graph::Graph& g, int64_t batch);

CompiledNetwork compile_network(const graph::Graph& quantized, const hw::HwConfig& config,
                                const CompileOptions& options = {});

}  // namespace tauvta::backend
