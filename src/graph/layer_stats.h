// Per-node cost figures for `tauvta inspect` and reports: multiply-accumulates of the layers that
// have them (Conv, ConvTranspose, Gemm, MatMul) and the parameters each node reads, computed
// from an inferred graph.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tauvta::graph {

struct LayerStats {
  std::string name;
  std::string op_type;
  std::string output;     // the node's first output
  Shape output_shape;     // empty with output_known=false when not inferred
  bool output_known = false;
  // Multiply-accumulates for one run of the graph (batch included); 0 for operators without a
  // reduction, -1 when a needed dimension is unknown.
  int64_t macs = 0;
  // Elements of the constant weight operands the node reads: Conv/ConvTranspose weight and bias,
  // Gemm/MatMul constant operands, BatchNormalization scale/B/mean/var, PRelu slope, constant
  // operands of Add/Sub/Mul, and the quantized constant of DequantizeLinear.
  int64_t params = 0;
};

struct GraphStats {
  std::vector<LayerStats> layers;          // in node order
  std::map<std::string, int64_t> op_counts;  // operator -> number of nodes
  int64_t total_macs = 0;                  // -1 when any layer's is unknown
  int64_t total_params = 0;                // each weight initializer counted once, however many read it
};

LayerStats layer_stats(const Graph& g, const Node& n);
GraphStats graph_stats(const Graph& g);

}  // namespace tauvta::graph
