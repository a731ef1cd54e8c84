// BatchNormalization folded into the Conv / ConvTranspose / Gemm before it. Per output channel c:
// s[c] = scale[c] / sqrt(var[c] + eps), t[c] = B[c] - mean[c] * s[c]; the weights of channel c
// are multiplied by s[c] and the bias becomes bias[c] * s[c] + t[c]. Arithmetic in double,
// rounded to float once.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/passes.h"

namespace tauvta::graph {

namespace {

const Tensor* float_initializer(const Graph& g, const std::string& name) {
  if (name.empty() || !g.is_initializer(name)) return nullptr;
  const Tensor& t = g.initializers.at(name);
  return t.dtype() == DType::kFloat32 ? &t : nullptr;
}

struct Affine {
  std::vector<double> s, t;
};

// The BN as y * s + t per channel, or nullopt when its operands are not float32 constants of
// length `channels`.
std::optional<Affine> bn_affine(const Graph& g, const Node& bn, int64_t channels) {
  const Tensor* p[4];
  for (size_t i = 0; i < 4; ++i) {
    p[i] = float_initializer(g, bn.input(i + 1));
    if (p[i] == nullptr || p[i]->size() != channels) return std::nullopt;
  }
  const double eps = bn.attr_float_or("epsilon", 1e-5f);
  Affine a;
  for (int64_t c = 0; c < channels; ++c) {
    const double scale = p[0]->floats()[size_t(c)], bias = p[1]->floats()[size_t(c)];
    const double mean = p[2]->floats()[size_t(c)], var = p[3]->floats()[size_t(c)];
    const double s = scale / std::sqrt(var + eps);
    a.s.push_back(s);
    a.t.push_back(bias - mean * s);
  }
  return a;
}

// Conv weight [M, C/g, k...] or ConvTranspose weight [C, M/g, k...]: channel of each element.
Tensor scale_conv_weight(const Tensor& w, const Affine& a, bool transposed, int64_t group) {
  Tensor out = w;
  float* d = out.data<float>();
  const int64_t inner = w.rank() > 2 ? num_elements(Shape(w.shape().begin() + 2, w.shape().end())) : 1;
  const int64_t d0 = w.shape()[0], d1 = w.shape()[1];
  for (int64_t i = 0; i < d0; ++i) {
    for (int64_t j = 0; j < d1; ++j) {
      // ConvTranspose: input channel i belongs to group i / (C/g); its output channel is g*(M/g)+j.
      const int64_t c = transposed ? (i / (d0 / group)) * d1 + j : i;
      const double s = a.s[size_t(c)];
      float* row = d + (i * d1 + j) * inner;
      for (int64_t k = 0; k < inner; ++k) row[k] = float(double(row[k]) * s);
    }
  }
  return out;
}

Tensor channel_bias(const Tensor* bias, const Affine& a) {
  std::vector<float> b(a.s.size());
  for (size_t c = 0; c < b.size(); ++c) {
    const double old = bias != nullptr ? double(bias->floats()[c]) : 0.0;
    b[c] = float(old * a.s[c] + a.t[c]);
  }
  return Tensor::from_floats({int64_t(b.size())}, b);
}

// Gemm: Y = alpha * A' B' + beta * C. Column n of B' scales by s[n]; C' = beta * C * s + t with
// beta then 1. C' is [N] unless C varies along M, then [M, N].
std::optional<std::pair<Tensor, Tensor>> fold_gemm(const Node& gemm, const Tensor& b, const Tensor* c,
                                                    const Affine& a, int64_t m) {
  const bool trans_b = gemm.attr_int_or("transB", 0) != 0;
  const int64_t n = int64_t(a.s.size());
  Tensor nb = b;
  float* d = nb.data<float>();
  const int64_t rows = b.shape()[0], cols = b.shape()[1];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t q = 0; q < cols; ++q) {
      d[r * cols + q] = float(double(d[r * cols + q]) * a.s[size_t(trans_b ? r : q)]);
    }
  }
  const double beta = gemm.attr_float_or("beta", 1.0f);
  Shape cs = c != nullptr ? c->shape() : Shape{};
  if (cs.size() > 2) return std::nullopt;
  while (cs.size() < 2) cs.insert(cs.begin(), 1);
  const bool per_row = cs[0] != 1;
  if (per_row && (m < 0 || cs[0] != m)) return std::nullopt;
  const int64_t out_rows = per_row ? m : 1;
  std::vector<float> nc(size_t(out_rows * n));
  for (int64_t r = 0; r < out_rows; ++r) {
    for (int64_t q = 0; q < n; ++q) {
      double old = 0.0;
      if (c != nullptr) old = c->floats()[size_t((cs[0] == 1 ? 0 : r) * cs[1] + (cs[1] == 1 ? 0 : q))];
      nc[size_t(r * n + q)] = float(beta * old * a.s[size_t(q)] + a.t[size_t(q)]);
    }
  }
  Tensor c_out = Tensor::from_floats(per_row ? Shape{m, n} : Shape{n}, nc);
  return std::make_pair(std::move(nb), std::move(c_out));
}

}  // namespace

Graph fold_batch_norm(const Graph& input) {
  Graph g = input;
  std::vector<bool> removed(g.nodes.size(), false);
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& bn = g.nodes[k];
    if (bn.op_type != "BatchNormalization") continue;
    // Training mode normalizes with the batch's statistics (and writes running statistics): not an
    // affine map of constants.
    if (bn.attr_int_or("training_mode", 0) != 0 || bn.outputs.size() > 1) continue;
    const std::string y = bn.input(0);
    if (std::find(g.outputs.begin(), g.outputs.end(), y) != g.outputs.end()) continue;
    size_t p = g.nodes.size();
    for (size_t j = 0; j < k; ++j) {
      if (!removed[j] && std::find(g.nodes[j].outputs.begin(), g.nodes[j].outputs.end(), y) != g.nodes[j].outputs.end()) p = j;
    }
    if (p == g.nodes.size()) continue;
    Node& layer = g.nodes[p];
    if (layer.op_type != "Conv" && layer.op_type != "ConvTranspose" && layer.op_type != "Gemm") continue;
    if (g.consumers(y).size() != 1) continue;
    const Tensor* w = float_initializer(g, layer.input(1));
    const Tensor* bias = float_initializer(g, layer.input(2));
    if (w == nullptr || (!layer.input(2).empty() && bias == nullptr) || w->rank() < 2) continue;
    const int64_t group = layer.attr_int_or("group", 1);
    const bool trans_b = layer.attr_int_or("transB", 0) != 0;
    int64_t channels = 0;
    if (layer.op_type == "Conv") channels = w->shape()[0];
    else if (layer.op_type == "ConvTranspose") channels = w->shape()[1] * group;
    else channels = trans_b ? w->shape()[0] : w->shape()[1];
    const std::optional<Affine> a = bn_affine(g, bn, channels);
    if (!a) continue;

    Tensor new_w, new_b;
    if (layer.op_type == "Gemm") {
      if (w->rank() != 2) continue;
      const ValueInfo* yi = g.info(y);
      const int64_t m = yi != nullptr && yi->known_shape && yi->shape.size() == 2 ? yi->shape[0] : -1;
      auto folded = fold_gemm(layer, *w, bias, *a, m);
      if (!folded) continue;
      new_w = std::move(folded->first);
      new_b = std::move(folded->second);
      layer.attrs["beta"] = 1.0f;
    } else {
      if (layer.op_type == "ConvTranspose" && w->shape()[0] % group != 0) continue;
      new_w = scale_conv_weight(*w, *a, layer.op_type == "ConvTranspose", group);
      new_b = channel_bias(bias, *a);
    }
    const std::string w_name = g.unique_name(layer.input(1) + "_bn");
    g.initializers.emplace(w_name, std::move(new_w));
    const std::string b_name = g.unique_name(fmt::format("{}_bias_bn", layer.name));
    g.initializers.emplace(b_name, std::move(new_b));
    layer.inputs.resize(3);
    layer.inputs[1] = w_name;
    layer.inputs[2] = b_name;
    layer.outputs[0] = bn.outputs[0];
    g.values.erase(y);
    removed[k] = true;
  }
  std::vector<Node> nodes;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (!removed[k]) nodes.push_back(std::move(g.nodes[k]));
  }
  g.nodes = std::move(nodes);
  verify(g);
  return g;
}

}  // namespace tauvta::graph
