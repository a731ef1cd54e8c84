// Shape inference: the dtype and shape of every value, written into Graph::values. A value's
// known_shape means its rank is known; single dimensions may still be -1 (printed "?") where they
// depend on data or on an unbound input dimension. Small integer tensors that shapes are computed
// from (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as exporters write them) are followed
// by value, so Reshape, Resize, Slice, Pad, Unsqueeze and Squeeze get exact shapes before folding.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/tensor.h"

namespace tauvta::graph {

struct ShapeInferenceOptions {
  // Shapes for graph inputs. Unknown (dim_param) dimensions take the given size; known ones must
  // match; the rank must match a declared rank.
  std::map<std::string, Shape> input_shapes;
  // > 0: the first dimension of every graph input whose first dimension is unknown (the dynamic
  // batch "N" of exported models) becomes `batch`.
  int64_t batch = 0;
  // Optional: evaluates a node whose inputs are all known small tensors (the pipeline passes the
  // float reference, cpu::eval_float_node). With it, shape computations through any operator
  // (Div, Range, Where, ConstantOfShape, ...) are followed by value, not only the arithmetic
  // listed at evaluate_shape_arithmetic; returning no tensors leaves the node's value unknown.
  std::function<std::vector<Tensor>(const Node&, const std::vector<const Tensor*>&, int64_t opset)> evaluate;
};

// Infers every node's outputs in order. Throws tauvta::Error naming the node on inconsistent
// shapes or dtypes (and when an inferred shape contradicts one already recorded, for example a
// graph output's declared shape). Operators without a rule keep the infos already recorded for
// their outputs; when there are none, that is an error naming the node.
Graph infer_shapes(const Graph& g, const ShapeInferenceOptions& options = {});

// The largest tensor (elements) shape inference follows by value: shape operands and the small
// arithmetic on them; anything larger is only a dtype and a shape to it.
inline constexpr int64_t kMaxShapeTensorElements = 4096;

// True when the value's rank and every dimension are known.
bool fully_known(const ValueInfo& v);

// Evaluates the small shape-arithmetic nodes (Shape, Identity, Cast, Gather, Unsqueeze, Squeeze,
// Concat, Slice, Reshape, Flatten, Add, Sub, Mul) on int32/int64/float32 tensors of at most 4096
// elements. Returns no tensors when the node is not one of them (or too large); the caller then
// leaves it alone. Shape inference and constant folding use it.
std::vector<Tensor> evaluate_shape_arithmetic(const Node& node, const std::vector<const Tensor*>& inputs);

}  // namespace tauvta::graph
