// A whole quantized network compiled for one hardware config: the accelerator Program with one
// program layer per accelerator layer, the CPU parts (one-node subgraphs the integer reference
// runs), and where every activation lives (DRAM regions in the accelerator's blocked layout).
// Layers are in execution order; each records its placement and why, its workload and schedule
// (and where the schedule came from), so reports and the tuner can read them back.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/quantize.h"
#include "hw/hw_config.h"
#include "backend/input_fold.h"
#include "lower/conv_lowering.h"
#include "lower/program.h"
#include "lower/schedule.h"
#include "lower/tensor_layout.h"
#include "lower/workload.h"

namespace tauvta::backend {

enum class Placement : uint8_t { kVta, kCpu };
const char* placement_name(Placement p);  // "vta", "cpu"

struct NetworkLayer {
  std::string name;                // the (first) graph node
  std::string op;                  // conv2d, dense, group_conv2d, max_pool, avg_pool, add, view, or the CPU op
  std::vector<std::string> nodes;  // graph nodes this layer computes
  Placement placement = Placement::kCpu;
  std::string reason;              // why it is where it is
  std::optional<lower::ConvWorkload> workload;
  std::optional<lower::Schedule> schedule;
  std::string schedule_source;     // "default heuristic", "tuning log line N", "given"
  // The lowered layer without its weights (requantization, fused add): what the tuner times so
  // its cycles are the network's. Set by compile_network, not kept in artifacts.
  std::optional<lower::ConvLayerSpec> timing_spec;
  uint64_t macs = 0;               // useful multiply-accumulates
  int64_t program_layer = -1;      // Program::layers index (accelerator layers)
  int64_t cpu_part = -1;           // CompiledNetwork::cpu_parts index (CPU layers)
  std::vector<std::string> inputs, outputs;  // activation values read and written
};

// An activation in accelerator DRAM: NCHW shape, channels per element (BLOCK_IN for tensors
// layers read, BLOCK_OUT for ones they write) and the program region holding it.
struct DramValue {
  lower::ActShape shape;
  int block = 16;
  std::string region;
};


// A layer op that runs on the GEMM core: conv2d, group_conv2d, conv2d_transpose or dense, alone or
// with a residual add fused after it ("conv2d+add"). Its MACs count in the conv/dense GOPS.
bool is_gemm_op(const std::string& op);

struct CompiledNetwork {
  hw::HwConfig config;
  graph::Graph graph;  // the quantized graph the network computes
  lower::Program program;
  std::vector<NetworkLayer> layers;
  std::vector<graph::Graph> cpu_parts;
  // Value name -> its DRAM forms (by block size), for values accelerator layers touch.
  std::map<std::string, std::vector<DramValue>> dram_values;
  // Value -> the value it is a reshaped view of (a Flatten folded into the next dense layer).
  std::map<std::string, std::string> views;
  // Derived value -> how the host makes it from its source.
  std::map<std::string, InputFold> folds;
  // What the quantized graph was made from: the float graph and the quantization settings with
  // every activation's binary point (options.formats). The precision tools quantize it again
  // when a format changes. Absent when the network was compiled from a quantized graph alone.
  struct QuantSource {
    graph::Graph float_graph;
    graph::QuantizeOptions options;
  };
  std::optional<QuantSource> quant_source;
  double compile_seconds = 0;
  double lower_seconds = 0;  // the part spent lowering accelerator layers

  size_t vta_layers() const;
};

// The one-node graph a CPU layer runs on the integer reference (the node, its constants, the
// infos of the values it touches).
graph::Graph cpu_part_graph(const graph::Graph& g, const graph::Node& n);

}  // namespace tauvta::backend
