#include "graph/layer_stats.h"

#include <set>

#include "graph/shape_inference.h"

namespace tauvta::graph {

namespace {

// Input indices that are weight operands of `op` (when they are initializers).
std::vector<size_t> weight_operands(const Node& n) {
  const std::string& op = n.op_type;
  if (op == "Conv" || op == "ConvTranspose") return {1, 2};
  if (op == "Gemm") return {0, 1, 2};
  if (op == "MatMul" || op == "Add" || op == "Sub" || op == "Mul") return {0, 1};
  if (op == "BatchNormalization") return {1, 2, 3, 4};
  if (op == "PRelu") return {1};
  if (op == "DequantizeLinear") return {0};
  return {};
}

const Shape* known_shape(const Graph& g, const std::string& name) {
  if (name.empty()) return nullptr;
  if (g.is_initializer(name)) return &g.initializers.at(name).shape();
  const ValueInfo* v = g.info(name);
  return v != nullptr && fully_known(*v) ? &v->shape : nullptr;
}

int64_t product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < s.size(); ++i) p *= s[i];
  return p;
}

int64_t macs_of(const Graph& g, const Node& n) {
  const std::string& op = n.op_type;
  if (op != "Conv" && op != "ConvTranspose" && op != "Gemm" && op != "MatMul") return 0;
  const Shape* x = known_shape(g, n.input(0));
  const Shape* w = known_shape(g, n.input(1));
  const Shape* y = known_shape(g, n.outputs.at(0));
  if (x == nullptr || w == nullptr || y == nullptr) return -1;
  if (op == "Conv") {
    // Every output element reduces over C/group input channels times the kernel window.
    return num_elements(*y) * product(*w, 1, w->size());
  }
  if (op == "ConvTranspose") {
    // Every input element is scattered through M/group output channels times the kernel window.
    return num_elements(*x) * product(*w, 1, w->size());
  }
  if (op == "Gemm") {
    const int64_t k = n.attr_int_or("transA", 0) != 0 ? (*x)[0] : (*x)[1];
    return num_elements(*y) * k;
  }
  // MatMul: each output element reduces over the last dimension of A.
  return num_elements(*y) * x->back();
}

}  // namespace

LayerStats layer_stats(const Graph& g, const Node& n) {
  LayerStats s;
  s.name = n.name;
  s.op_type = n.op_type;
  s.output = n.outputs.empty() ? "" : n.outputs[0];
  if (const ValueInfo* v = g.info(s.output); v != nullptr && v->known_shape) {
    s.output_shape = v->shape;
    s.output_known = true;
  }
  s.macs = macs_of(g, n);
  for (size_t i : weight_operands(n)) {
    if (g.is_initializer(n.input(i))) s.params += g.initializers.at(n.input(i)).size();
  }
  return s;
}

GraphStats graph_stats(const Graph& g) {
  GraphStats st;
  std::set<std::string> counted;
  for (const Node& n : g.nodes) {
    LayerStats s = layer_stats(g, n);
    ++st.op_counts[n.op_type];
    if (st.total_macs >= 0) st.total_macs = s.macs < 0 ? -1 : st.total_macs + s.macs;
    for (size_t i : weight_operands(n)) {
      const std::string& name = n.input(i);
      if (g.is_initializer(name) && counted.insert(name).second) st.total_params += g.initializers.at(name).size();
    }
    st.layers.push_back(std::move(s));
  }
  return st;
}

}  // namespace tauvta::graph
