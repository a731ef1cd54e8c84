// The graph passes after import, each a free function Graph -> Graph that leaves its input alone
// and calls verify() on its result. The pipeline (src/model) runs them in one linear list:
//   infer_shapes -> fold_constants -> fold_batch_norm -> fuse_patterns -> remove_dead_nodes
//   -> (quantization)
// Shape inference lives in shape_inference.h.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "graph/graph.h"
#include "graph/tensor.h"

namespace tauvta::graph {

// Evaluates one node on constant inputs (inputs[i] nullptr for an omitted optional input) at the
// graph's opset. Returning no tensors means "cannot evaluate this one": the node stays.
// The pipeline passes cpu::eval_float_node.
using NodeEvaluator =
    std::function<std::vector<Tensor>(const Node&, const std::vector<const Tensor*>&, int64_t opset)>;

// Constant folding. A node whose inputs are all initializers is evaluated (small shape arithmetic
// by evaluate_shape_arithmetic, everything else by `evaluate` when given) and its outputs become
// initializers. Shape of a value whose shape is fully known becomes a constant, and so does the
// mask of an inference Dropout (all true; the Dropout itself becomes an Identity). Sequence
// operators are never folded (an initializer is a tensor, not a sequence). Run after
// infer_shapes; initializers nobody reads any more are left to remove_dead_nodes.
Graph fold_constants(const Graph& g, const NodeEvaluator& evaluate = {});

// Batch-norm folding: BatchNormalization(y) where y = Conv / ConvTranspose / Gemm(...) is read by
// nothing else (and is no graph output), with every weight, bias and statistic a float32
// initializer, becomes the same Conv / ConvTranspose / Gemm with scaled weights and a new bias
// (y' = y * s + t with s = scale / sqrt(var + eps), t = B - mean * s), writing the BN's output.
// The folded weights are new initializers (the originals may be shared).
Graph fold_batch_norm(const Graph& g);

// Pattern fusion (fuse_patterns.cpp): the LayerNorm that opset < 17 exporters write as
// ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div[/Mul gamma][/Add beta] over trailing axes becomes one
// LayerNormalization; the Erf GELU chain becomes tauvta's internal Gelu; MatMul(x [..., K], constant W [K, N]) with an optional constant bias Add
// becomes Reshape [M, K] -> Gemm(x, W, b) -> Reshape (2-D inputs: just the Gemm when there is a
// bias), so token-wise linear layers are dense layers. Needs known shapes (after infer_shapes);
// intermediate values read elsewhere or graph outputs are never fused away. Takes the graph by
// value (a caller that moves it in pays no copy of the weights).
Graph fuse_patterns(Graph g);

// Dead-node removal: drops nodes none of whose outputs reach a graph output, initializers no node
// reads (unless they are graph outputs) and value infos of values that no longer exist.
Graph remove_dead_nodes(const Graph& g);

}  // namespace tauvta::graph
