// Pattern fusion before quantization: operator sequences exporters write for one layer become
// that layer, so the quantizer sees the layer (one float fallback, or one accelerator dense)
// instead of a chain of small operators each rounded to the activation width.
//   * LayerNorm as opset < 17 exports it: ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div
//     [, Mul gamma][, Add beta] -> LayerNormalization.
//   * GELU as exporters write it (opset < 20 has no Gelu): Div sqrt(2), Erf, Add 1, Mul x,
//     Mul 0.5 (in either Mul order) -> Gelu, tauvta's internal operator with ONNX-20 semantics.
//   * Linear layers on token tensors: MatMul(x [..., K], W [K, N]) [+ Add b [N]] -> Reshape to
//     [M, K], Gemm(x, W, b), Reshape back; the dense layer then runs on the accelerator with the
//     bias in its accumulator.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/passes.h"

namespace tauvta::graph {

namespace {

class Fuser {
 public:
  explicit Fuser(Graph& g) : g_(g) {
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      for (const std::string& in : g_.nodes[i].inputs) {
        if (!in.empty()) readers_[in].push_back(i);
      }
      for (const std::string& o : g_.nodes[i].outputs) producer_[o] = i;
    }
  }

  Graph run() {
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (dead_.count(i)) continue;
      const Node& n = g_.nodes[i];
      if (n.op_type == "ReduceMean") layer_norm(i);
      else if (n.op_type == "MatMul") linear(i);
      else if (n.op_type == "Div") gelu(i);
    }
    std::vector<Node> nodes;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (auto it = replaced_.find(i); it != replaced_.end()) {
        for (Node& r : it->second) nodes.push_back(std::move(r));
      } else if (!dead_.count(i)) {
        nodes.push_back(std::move(g_.nodes[i]));
      }
    }
    g_.nodes = std::move(nodes);
    for (auto& [name, t] : new_inits_) g_.initializers[name] = std::move(t);
    for (auto& [name, v] : new_infos_) g_.values[name] = v;
    verify(g_);
    return std::move(g_);
  }

 private:
  // How many node inputs read `v`; a graph output counts as more than any pattern allows, so it
  // is never fused away.
  size_t uses(const std::string& v) const {
    if (std::find(g_.outputs.begin(), g_.outputs.end(), v) != g_.outputs.end()) return 1000;
    auto it = readers_.find(v);
    return it == readers_.end() ? 0 : it->second.size();
  }

  // The single node reading `v`, when it has op `op` and is not fused yet; else nullopt.
  std::optional<size_t> only_reader(const std::string& v, const std::string& op) const {
    if (uses(v) != 1) return std::nullopt;
    const size_t i = readers_.at(v).front();
    if (dead_.count(i) || g_.nodes[i].op_type != op) return std::nullopt;
    return i;
  }

  // The operand of a binary node that is not `v`.
  static const std::string& other(const Node& n, const std::string& v) { return n.input(0) == v ? n.input(1) : n.input(0); }

  // The scalar value of a float32 one-element initializer.
  std::optional<float> scalar(const std::string& v) const {
    if (!g_.is_initializer(v)) return std::nullopt;
    const Tensor& t = g_.initializers.at(v);
    if (t.dtype() != DType::kFloat32 || t.size() != 1) return std::nullopt;
    return t.floats()[0];
  }

  const Tensor* float_const(const std::string& v) const {
    if (!g_.is_initializer(v) || g_.initializers.at(v).dtype() != DType::kFloat32) return nullptr;
    return &g_.initializers.at(v);
  }

  const ValueInfo* ranked(const std::string& v) const {
    const ValueInfo* i = g_.info(v);
    return i != nullptr && i->known_shape ? i : nullptr;
  }

  // The reduced axes of a ReduceMean as a trailing block of x's axes: the first of them, or -1.
  int64_t trailing_axes(const Node& n, int64_t rank) const {
    if (n.attr_int_or("keepdims", 1) == 0 || !n.has_attr("axes")) return -1;
    std::vector<int64_t> axes = n.attr_ints("axes");
    for (int64_t& a : axes) a = a < 0 ? a + rank : a;
    std::sort(axes.begin(), axes.end());
    for (size_t k = 0; k < axes.size(); ++k) {
      if (axes[k] != rank - int64_t(axes.size()) + int64_t(k)) return -1;
    }
    return axes.empty() ? -1 : axes.front();
  }

  std::string fresh(const std::string& base) {
    std::string s = base;
    for (int k = 1; g_.values.count(s) || g_.initializers.count(s) || new_inits_.count(s) || new_infos_.count(s); ++k) {
      s = fmt::format("{}_{}", base, k);
    }
    return s;
  }

  void layer_norm(size_t i_mean) {
    const Node& mean = g_.nodes[i_mean];
    const std::string& x = mean.input(0);
    const ValueInfo* xi = ranked(x);
    if (xi == nullptr || xi->dtype != DType::kFloat32) return;
    const int64_t rank = int64_t(xi->shape.size());
    const int64_t axis = trailing_axes(mean, rank);
    if (axis < 0) return;
    const auto i_sub = only_reader(mean.outputs[0], "Sub");
    if (!i_sub || g_.nodes[*i_sub].input(0) != x || g_.nodes[*i_sub].input(1) != mean.outputs[0]) return;
    const std::string d = g_.nodes[*i_sub].outputs[0];
    if (uses(d) != 2) return;
    std::optional<size_t> i_pow, i_div;
    for (size_t i : readers_.at(d)) {
      const Node& n = g_.nodes[i];
      if (n.op_type == "Pow" && n.input(0) == d) i_pow = i;
      if (n.op_type == "Div" && n.input(0) == d) i_div = i;
    }
    if (!i_pow || !i_div || scalar(g_.nodes[*i_pow].input(1)) != 2.0f) return;
    const auto i_var = only_reader(g_.nodes[*i_pow].outputs[0], "ReduceMean");
    if (!i_var || trailing_axes(g_.nodes[*i_var], rank) != axis ||
        g_.nodes[*i_var].attr_ints("axes").size() != mean.attr_ints("axes").size()) {
      return;
    }
    const auto i_eps = only_reader(g_.nodes[*i_var].outputs[0], "Add");
    if (!i_eps) return;
    const Node& add_eps = g_.nodes[*i_eps];
    const std::optional<float> eps = scalar(other(add_eps, g_.nodes[*i_var].outputs[0]));
    if (!eps) return;
    const auto i_sqrt = only_reader(add_eps.outputs[0], "Sqrt");
    if (!i_sqrt || g_.nodes[*i_div].input(1) != g_.nodes[*i_sqrt].outputs[0] ||
        uses(g_.nodes[*i_sqrt].outputs[0]) != 1) {
      return;
    }
    const Shape norm(xi->shape.begin() + axis, xi->shape.end());
    for (int64_t dim : norm) {
      if (dim < 0) return;
    }
    std::vector<size_t> fused = {i_mean, *i_sub, *i_pow, *i_var, *i_eps, *i_sqrt, *i_div};
    std::string out = g_.nodes[*i_div].outputs[0];
    // Optional affine: Mul by a constant gamma, then Add a constant beta, each broadcasting to the
    // normalized shape. Gives the node and the constant's name.
    auto affine = [&](const std::string& v, const std::string& op) -> std::optional<std::pair<size_t, std::string>> {
      const auto i = only_reader(v, op);
      if (!i) return std::nullopt;
      const std::string& c_name = other(g_.nodes[*i], v);
      const Tensor* c = float_const(c_name);
      if (c == nullptr || c->rank() > int64_t(norm.size())) return std::nullopt;
      for (size_t k = 0; k < size_t(c->rank()); ++k) {
        const int64_t cd = c->shape()[k], nd = norm[norm.size() - size_t(c->rank()) + k];
        if (cd != 1 && cd != nd) return std::nullopt;
      }
      return std::pair{*i, c_name};
    };
    std::string scale_name, bias_name;
    if (const auto mul = affine(out, "Mul")) {
      fused.push_back(mul->first);
      scale_name = mul->second;
      out = g_.nodes[mul->first].outputs[0];
    } else {
      scale_name = fresh(mean.name + "_ln_scale");
      Tensor ones(DType::kFloat32, norm);
      std::fill(ones.floats().begin(), ones.floats().end(), 1.0f);
      new_inits_[scale_name] = std::move(ones);
    }
    if (const auto add = affine(out, "Add")) {
      fused.push_back(add->first);
      bias_name = add->second;
      out = g_.nodes[add->first].outputs[0];
    }
    Node ln;
    ln.name = mean.name + "_layer_norm";
    ln.op_type = "LayerNormalization";
    ln.inputs = {x, scale_name};
    if (!bias_name.empty()) ln.inputs.push_back(bias_name);
    ln.outputs = {out};
    ln.attrs["axis"] = axis;
    ln.attrs["epsilon"] = *eps;
    for (size_t k : fused) dead_.insert(k);
    dead_.erase(fused.back());
    replaced_[fused.back()] = {ln};
  }

  // x / sqrt(2) -> Erf -> + 1 -> * x -> * 0.5 (the two Muls in either order: 0.5 * x first, or
  // x * (1 + erf) first).
  void gelu(size_t i_div) {
    const Node& div = g_.nodes[i_div];
    const std::string& x = div.input(0);
    const ValueInfo* xi = ranked(x);
    const std::optional<float> root2 = scalar(div.input(1));
    if (xi == nullptr || xi->dtype != DType::kFloat32 || !root2 || std::fabs(*root2 - 1.41421356f) > 1e-4f) return;
    const auto i_erf = only_reader(div.outputs[0], "Erf");
    if (!i_erf) return;
    const auto i_one = only_reader(g_.nodes[*i_erf].outputs[0], "Add");
    if (!i_one) return;
    const Node& one = g_.nodes[*i_one];
    if (scalar(other(one, g_.nodes[*i_erf].outputs[0])) != 1.0f) return;
    const std::string& p = one.outputs[0];
    // Form A: Mul(x, p) -> Mul(., 0.5). Form B: Mul(x, 0.5) -> h; Mul(h, p).
    const auto i_mul = only_reader(p, "Mul");
    if (!i_mul) return;
    const Node& m1 = g_.nodes[*i_mul];
    std::vector<size_t> fused = {i_div, *i_erf, *i_one, *i_mul};
    if (other(m1, p) == x) {
      const auto i_half = only_reader(m1.outputs[0], "Mul");
      if (!i_half || scalar(other(g_.nodes[*i_half], m1.outputs[0])) != 0.5f) return;
      fused.push_back(*i_half);
    } else {
      const std::string& h = other(m1, p);
      auto it = producer_.find(h);
      if (it == producer_.end() || uses(h) != 1) return;
      const Node& half = g_.nodes[it->second];
      if (half.op_type != "Mul" || other(half, x) == x || scalar(other(half, x)) != 0.5f ||
          (half.input(0) != x && half.input(1) != x)) {
        return;
      }
      fused.insert(fused.begin(), it->second);
    }
    if (uses(x) < 2) return;  // x feeds the Div and a Mul
    Node gelu{div.name + "_gelu", "Gelu", {x}, {g_.nodes[fused.back()].outputs[0]}, {}};
    for (size_t k : fused) dead_.insert(k);
    const size_t last = *std::max_element(fused.begin(), fused.end());
    dead_.erase(last);
    replaced_[last] = {gelu};
  }

  void linear(size_t i_mm) {
    const Node& mm = g_.nodes[i_mm];
    const Tensor* w = float_const(mm.input(1));
    const ValueInfo* xi = ranked(mm.input(0));
    if (w == nullptr || w->rank() != 2 || xi == nullptr || xi->dtype != DType::kFloat32 || xi->shape.size() < 2) return;
    const Shape& xs = xi->shape;
    const size_t r = xs.size();
    const int64_t k = w->shape()[0], n = w->shape()[1];
    if (xs[r - 1] != k) return;
    for (size_t d = 1; d + 1 < r; ++d) {
      if (xs[d] < 0) return;  // only the batch may be unknown
    }
    // A bias Add of a constant [N] (or [1, ..., N]) that only this MatMul's output feeds.
    std::string out = mm.outputs[0], bias;
    std::optional<size_t> i_add = only_reader(out, "Add");
    if (i_add) {
      const Node& a = g_.nodes[*i_add];
      const std::string& other = a.input(0) == out ? a.input(1) : a.input(0);
      const Tensor* b = float_const(other);
      if (b != nullptr && b->size() == n && b->rank() >= 1 && b->shape().back() == n) {
        bias = other;
        if (b->rank() != 1) {
          bias = fresh(other + "_vector");
          new_inits_[bias] = b->reshaped({n});
        }
        out = a.outputs[0];
      } else {
        i_add.reset();
      }
    }
    if (r == 2 && bias.empty()) return;  // a plain 2-D MatMul is already a dense layer
    std::vector<Node> nodes;
    std::string x2 = mm.input(0), y2 = out;
    int64_t m = 1;
    for (size_t d = 0; d + 1 < r; ++d) m = (m < 0 || xs[d] < 0) ? -1 : m * xs[d];
    if (r > 2) {
      const std::string shape_in = fresh(mm.name + "_rows_shape");
      new_inits_[shape_in] = Tensor::from_int64(DType::kInt64, {2}, {-1, k});
      x2 = fresh(mm.name + "_rows");
      new_infos_[x2] = ValueInfo{x2, DType::kFloat32, {m, k}, true, {}};
      nodes.push_back(Node{mm.name + "_flatten", "Reshape", {mm.input(0), shape_in}, {x2}, {}});
      y2 = fresh(out + "_rows");
      new_infos_[y2] = ValueInfo{y2, DType::kFloat32, {m, n}, true, {}};
    }
    Node gemm{mm.name, "Gemm", {x2, mm.input(1)}, {y2}, {}};
    if (!bias.empty()) gemm.inputs.push_back(bias);
    nodes.push_back(gemm);
    if (r > 2) {
      std::vector<int64_t> back(xs.begin(), xs.end() - 1);
      back.push_back(n);
      if (back[0] < 0) back[0] = -1;
      const std::string shape_out = fresh(mm.name + "_unflatten_shape");
      new_inits_[shape_out] = Tensor::from_int64(DType::kInt64, {int64_t(back.size())}, back);
      nodes.push_back(Node{mm.name + "_unflatten", "Reshape", {y2, shape_out}, {out}, {}});
    }
    const size_t last = i_add ? *i_add : i_mm;
    dead_.insert(i_mm);
    if (i_add) dead_.insert(*i_add);
    dead_.erase(last);
    replaced_[last] = std::move(nodes);
  }

  Graph& g_;  // rewritten in place at the end of run()
  std::map<std::string, std::vector<size_t>> readers_;  // value -> the nodes reading it
  std::map<std::string, size_t> producer_;
  std::set<size_t> dead_;
  std::map<size_t, std::vector<Node>> replaced_;
  std::map<std::string, Tensor> new_inits_;
  std::map<std::string, ValueInfo> new_infos_;
};

}  // namespace

// By value: the pipeline moves its graph in, so the pass copies no weights.
Graph fuse_patterns(Graph g) { return Fuser(g).run(); }

}  // namespace tauvta::graph
