#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/onnx_ops.h"
#include "graph/passes.h"
#include "graph/shape_inference.h"

namespace tauvta::graph {

namespace {

void add_constant(Graph& g, const std::string& name, Tensor t) {
  ValueInfo& v = g.info_mut(name);
  v.dtype = t.dtype();
  v.shape = t.shape();
  v.known_shape = true;
  g.initializers[name] = std::move(t);
}

Tensor shape_constant(const Node& n, const Shape& dims) {
  const int64_t r = int64_t(dims.size());
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
  const int64_t start = clamp(n.attr_int_or("start", 0)), end = clamp(n.attr_int_or("end", r));
  std::vector<int64_t> picked;
  for (int64_t i = start; i < end; ++i) picked.push_back(dims[size_t(i)]);
  return Tensor::from_int64(DType::kInt64, {int64_t(picked.size())}, picked);
}

}  // namespace

Graph fold_constants(const Graph& input, const NodeEvaluator& evaluate) {
  Graph g = input;
  std::vector<Node> kept;
  for (Node& n : g.nodes) {
    if (is_sequence_operator(n.op_type)) {  // initializers are tensors: a sequence is never folded into one
      kept.push_back(std::move(n));
      continue;
    }
    if (n.op_type == "Shape") {
      const ValueInfo* x = g.info(n.input(0));
      const Tensor* xt = g.is_initializer(n.input(0)) ? &g.initializers.at(n.input(0)) : nullptr;
      if (xt != nullptr || (x != nullptr && fully_known(*x))) {
        add_constant(g, n.outputs[0], shape_constant(n, xt != nullptr ? xt->shape() : x->shape));
        continue;
      }
    }
    if (n.op_type == "Dropout" && n.outputs.size() > 1 && n.inputs.size() == 1) {
      // Inference dropout (the frontend's one-input form): the mask is all true. A Dropout with a
      // run-time training_mode keeps its mask (the kernel decides at run time).
      const ValueInfo* x = g.info(n.input(0));
      if (x != nullptr && fully_known(*x)) {
        Tensor mask(DType::kBool, x->shape);
        std::fill(mask.raw(), mask.raw() + mask.byte_size(), uint8_t(1));
        if (!n.outputs[1].empty()) add_constant(g, n.outputs[1], std::move(mask));
        n.op_type = "Identity";
        n.outputs.resize(1);
      }
    }
    bool constant = !n.inputs.empty();
    std::vector<const Tensor*> inputs;
    for (const std::string& i : n.inputs) {
      const Tensor* t = i.empty() ? nullptr : (g.is_initializer(i) ? &g.initializers.at(i) : nullptr);
      if (!i.empty() && t == nullptr) constant = false;
      inputs.push_back(t);
    }
    if (!constant) {
      kept.push_back(std::move(n));
      continue;
    }
    std::vector<Tensor> outs = evaluate_shape_arithmetic(n, inputs);
    if (outs.empty() && evaluate) outs = evaluate(n, inputs, g.opset);
    if (outs.empty()) {
      kept.push_back(std::move(n));
      continue;
    }
    if (outs.size() < n.outputs.size()) {
      throw Error(fmt::format("{}: constant folding produced {} outputs, the node has {}", n.describe(), outs.size(),
                              n.outputs.size()));
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (!n.outputs[k].empty()) add_constant(g, n.outputs[k], std::move(outs[k]));
    }
  }
  g.nodes = std::move(kept);
  verify(g);
  return g;
}

}  // namespace tauvta::graph
