// fold_fake_quant: QDQ chains and QONNX Quant / BipolarQuant nodes -> FakeQuant nodes on
// activations and formats of weights (graph/fake_quant.h).
#include "graph/fake_quant.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::graph {

float fake_quant_value(float x, float scale, int64_t zero_point, int64_t qmin, int64_t qmax, bool bipolar) {
  if (bipolar) return x >= 0 ? scale : -scale;
  const double q = std::clamp(std::nearbyint(double(x) / double(scale)) + double(zero_point), double(qmin),
                              double(qmax));
  return float((q - double(zero_point)) * double(scale));
}

namespace {

// One recognized pattern, before it is written back.
struct Pattern {
  std::string name;      // the node errors and warnings name (QuantizeLinear, Quant, ...)
  std::string describe;  // "node 'q' (QuantizeLinear)"
  std::string input, output;
  std::vector<float> scale;        // one, or one per slice of axis
  std::vector<int64_t> zero_point;  // as many as scale
  int64_t axis = 1;
  int64_t qmin = 0, qmax = 0;
  bool bipolar = false;
  std::set<std::string> consumed;  // the nodes it replaces
};

class Folder {
 public:
  explicit Folder(const Graph& g) : g_(g) { res_.graph = g; }

  FakeQuantImport run() {
    for (const Node& n : g_.nodes) {
      if (n.op_type == "DequantizeLinear") qdq(n);
      else if (n.op_type == "Quant" || n.op_type == "BipolarQuant") qonnx(n);
    }
    if (patterns_.empty()) return std::move(res_);
    std::set<std::string> consumed;
    std::map<std::string, const Pattern*> at;  // the last node of each pattern -> the pattern
    for (const Pattern& p : patterns_) {
      consumed.insert(p.consumed.begin(), p.consumed.end());
      at[last_node(p)] = &p;
    }
    std::vector<Node> nodes;
    for (const Node& n : g_.nodes) {
      if (auto it = at.find(n.name); it != at.end()) {
        if (res_.graph.is_initializer(it->second->input)) fold_weight(*it->second);
        else nodes.push_back(fake_quant_node(*it->second));
      }
      if (!consumed.count(n.name)) nodes.push_back(n);
    }
    res_.graph.nodes = std::move(nodes);
    verify(res_.graph);
    return std::move(res_);
  }

 private:
  std::string last_node(const Pattern& p) const { return g_.producer(p.output)->name; }

  bool sole_reader(const std::string& v, const Node& reader) const {
    const auto users = g_.consumers(v);
    return users.size() == 1 && users[0] == &reader &&
           std::count(g_.outputs.begin(), g_.outputs.end(), v) == 0;
  }

  const Tensor& constant(const Node& n, size_t k, const char* field) const {
    const std::string& v = n.input(k);
    if (v.empty() || !g_.is_initializer(v)) {
      throw Error(fmt::format("{}: {} '{}' is not a constant; tauvta reads formats from constant scales",
                              n.describe(), field, v));
    }
    return g_.initializers.at(v);
  }

  // QuantizeLinear -> [Clip] -> DequantizeLinear, or DequantizeLinear of an integer constant.
  void qdq(const Node& d) {
    if (d.input(1).empty() || !g_.is_initializer(d.input(1))) return;  // run-time scale: not a format
    Pattern p;
    p.output = d.outputs.at(0);
    p.consumed.insert(d.name);
    std::string qv = d.input(0);  // the integer value: the Clip's input when there is a Clip
    const Node* clip = g_.producer(qv);
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    if (clip != nullptr && clip->op_type == "Clip" && sole_reader(qv, d)) {
      for (size_t k : {size_t(1), size_t(2)}) {
        if (clip->input(k).empty()) continue;
        const Tensor& b = constant(*clip, k, k == 1 ? "min" : "max");
        if (b.size() != 1) throw Error(fmt::format("{}: input {} is not a scalar", clip->describe(), k));
        (k == 1 ? lo : hi) = b.to_int64()[0];
      }
      p.consumed.insert(clip->name);
      qv = clip->input(0);
      if (!g_.is_initializer(qv) && !sole_reader(qv, *clip)) return;
    } else if (!g_.is_initializer(qv) && !sole_reader(qv, d)) {
      return;
    }
    const Node* src = g_.producer(qv);
    const Node* ql = src != nullptr && src->op_type == "QuantizeLinear" ? src : nullptr;
    const Tensor& scale = constant(d, 1, "scale");
    p.scale = scale.to_float();
    p.axis = d.attr_int_or("axis", 1);
    const Tensor* zp = d.input(2).empty() ? nullptr : &constant(d, 2, "zero_point");
    const DType int_type = zp ? zp->dtype() : DType::kUInt8;
    p.zero_point = zp ? zp->to_int64() : std::vector<int64_t>(p.scale.size(), 0);
    if (ql != nullptr) {
      p.name = ql->name;
      p.describe = ql->describe();
      p.input = ql->input(0);
      p.consumed.insert(ql->name);
      const Tensor& qs = constant(*ql, 1, "scale");
      if (qs.to_float() != p.scale) {
        throw Error(fmt::format("{}: scale differs from that of {} (the pattern must dequantize what it quantized)",
                                ql->describe(), d.describe()));
      }
      const std::vector<int64_t> qz =
          ql->input(2).empty() ? std::vector<int64_t>(p.scale.size(), 0) : constant(*ql, 2, "zero_point").to_int64();
      if (qz != p.zero_point) {
        throw Error(fmt::format("{}: zero_point differs from that of {}", ql->describe(), d.describe()));
      }
      if (ql->attr_int_or("axis", 1) != p.axis && p.scale.size() > 1) {
        throw Error(fmt::format("{}: axis {} differs from that of {} ({})", ql->describe(), ql->attr_int_or("axis", 1),
                                d.describe(), p.axis));
      }
    } else if (g_.is_initializer(qv)) {
      p.name = d.name;
      p.describe = d.describe();
      p.input = qv;  // integers already: quantizing them at scale 1 is the identity below
    } else {
      return;  // a DequantizeLinear of a run-time integer: not fake quantization
    }
    p.qmin = int_type == DType::kUInt8 ? 0 : int_type == DType::kInt8 ? -128 : INT32_MIN;
    p.qmax = int_type == DType::kUInt8 ? 255 : int_type == DType::kInt8 ? 127 : INT32_MAX;
    p.qmin = std::max(p.qmin, lo);
    p.qmax = std::min(p.qmax, hi);
    if (ql == nullptr) {
      // The constant holds the integers: express it as the float weight they stand for.
      const Tensor& q = g_.initializers.at(p.input);
      p.input = res_.graph.unique_name(p.input + "_dq");
      std::vector<int64_t> iv = q.to_int64();
      std::vector<float> fv(iv.size());
      const int64_t inner = slice_inner(q.shape(), p);
      for (size_t i = 0; i < iv.size(); ++i) {
        const size_t c = channel(i, inner, p);
        fv[i] = float(double(std::clamp(iv[i], p.qmin, p.qmax) - p.zero_point[c]) * double(p.scale[c]));
      }
      res_.graph.initializers[p.input] = Tensor::from_floats(q.shape(), fv);
    }
    patterns_.push_back(std::move(p));
  }

  void qonnx(const Node& n) {
    Pattern p;
    p.name = n.name;
    p.describe = n.describe();
    p.input = n.input(0);
    p.output = n.outputs.at(0);
    p.consumed.insert(n.name);
    const Tensor& scale = constant(n, 1, "scale");
    p.scale = scale.to_float();
    if (scale.rank() > 1 || (scale.rank() == 1 && scale.size() > 1)) {
      // QONNX broadcasts the scale; one per output channel is shape [C, 1, 1, ...] on axis 0.
      p.axis = 0;
    }
    p.zero_point.assign(p.scale.size(), 0);
    if (n.op_type == "BipolarQuant") {
      p.bipolar = true;
      p.qmin = -1;
      p.qmax = 1;
      patterns_.push_back(std::move(p));
      return;
    }
    const std::string rounding = n.attr_string_or("rounding_mode", "ROUND");
    if (rounding != "ROUND") {
      throw Error(fmt::format("{}: attribute rounding_mode '{}' is not supported (ROUND only: to nearest, ties to "
                              "even, as QuantizeLinear)", n.describe(), rounding));
    }
    for (const auto& [key, value] : n.attrs) {
      if (key != "signed" && key != "narrow" && key != "rounding_mode") {
        throw Error(fmt::format("{}: attribute '{}' is not supported (Quant takes signed, narrow, rounding_mode)",
                                n.describe(), key));
      }
    }
    const std::vector<float> zp = constant(n, 2, "zeropoint").to_float();
    if (zp.size() != 1 && zp.size() != p.scale.size()) {
      throw Error(fmt::format("{}: {} zero points for {} scales", n.describe(), zp.size(), p.scale.size()));
    }
    for (size_t c = 0; c < p.scale.size(); ++c) {
      const float z = zp[zp.size() == 1 ? 0 : c];
      if (z != std::nearbyint(z)) throw Error(fmt::format("{}: zeropoint {} is not an integer", n.describe(), z));
      p.zero_point[c] = int64_t(z);
    }
    const std::vector<float> bw = constant(n, 3, "bitwidth").to_float();
    if (bw.size() != 1 || bw[0] != std::nearbyint(bw[0]) || bw[0] < 1 || bw[0] > 32) {
      throw Error(fmt::format("{}: bitwidth {} is not one integer in 1..32", n.describe(),
                              bw.empty() ? std::string("(empty)") : fmt::format("{}", bw[0])));
    }
    const int b = int(bw[0]);
    const bool is_signed = n.attr_int_or("signed", 1) != 0, narrow = n.attr_int_or("narrow", 0) != 0;
    p.qmin = is_signed ? -(int64_t(1) << (b - 1)) + (narrow ? 1 : 0) : 0;
    p.qmax = is_signed ? (int64_t(1) << (b - 1)) - 1 : (int64_t(1) << b) - 1 - (narrow ? 1 : 0);
    patterns_.push_back(std::move(p));
  }

  int64_t slice_inner(const Shape& shape, const Pattern& p) const {
    if (p.scale.size() == 1) return 1;
    const int64_t rank = int64_t(shape.size());
    const int64_t axis = p.axis < 0 ? p.axis + rank : p.axis;
    if (axis < 0 || axis >= rank || shape[size_t(axis)] != int64_t(p.scale.size())) {
      throw Error(fmt::format("{}: {} scales do not match axis {} of shape {}", p.describe, p.scale.size(), p.axis,
                              shape_string(shape)));
    }
    int64_t inner = 1;
    for (size_t k = size_t(axis) + 1; k < shape.size(); ++k) inner *= shape[k];
    return inner;
  }
  size_t channel(size_t i, int64_t inner, const Pattern& p) const {
    return p.scale.size() == 1 ? 0 : size_t((int64_t(i) / inner) % int64_t(p.scale.size()));
  }

  // frac_bits of each scale (the nearest power of two in log2), warning when one is not exact.
  std::vector<int> fracs(const Pattern& p) {
    std::vector<int> out;
    double worst = 0;
    size_t inexact = 0;
    for (float s : p.scale) {
      if (!(s > 0) || !std::isfinite(s)) {
        throw Error(fmt::format("{}: scale {} is not a positive finite number", p.describe, s));
      }
      const int f = -int(std::lround(std::log2(double(s))));
      out.push_back(f);
      const double rel = std::ldexp(1.0, -f) / double(s) - 1.0;
      if (rel != 0) ++inexact;
      if (std::fabs(rel) > std::fabs(worst)) worst = rel;
    }
    if (inexact == 1 && p.scale.size() == 1) {
      res_.warnings.push_back(fmt::format(
          "{}: scale {:.6g} of '{}' is not a power of two; taken as 2^{} = {:.6g} (relative change {:+.2f}%)",
          p.describe, p.scale[0], p.output, -out[0], std::ldexp(1.0, -out[0]), worst * 100));
    } else if (inexact > 0) {
      res_.warnings.push_back(fmt::format(
          "{}: {} of {} scales of '{}' are not powers of two; each taken as the nearest one (largest relative "
          "change {:+.2f}%)", p.describe, inexact, p.scale.size(), p.output, worst * 100));
    }
    return out;
  }

  std::string unrepresentable(const Pattern& p) const {
    for (size_t c = 0; c < p.zero_point.size(); ++c) {
      if (p.zero_point[c] != 0) {
        return fmt::format("{}: zero_point{} = {} is not 0; tauvta's fixed point has no zero point (signed, "
                           "symmetric)", p.describe, p.zero_point.size() > 1 ? fmt::format("[{}]", c) : "",
                           p.zero_point[c]);
      }
    }
    return "";
  }

  void fold_weight(const Pattern& p) {
    const Tensor& w = res_.graph.initializers.at(p.input);  // the model's, or the integers dequantized
    const std::vector<float> x = w.to_float();
    const int64_t inner = slice_inner(w.shape(), p);
    WeightFormat wf;
    wf.frac_bits = fracs(p);
    wf.axis = p.scale.size() > 1 ? (p.axis < 0 ? p.axis + int64_t(w.shape().size()) : p.axis) : 0;
    wf.node = p.describe;
    wf.error = unrepresentable(p);
    std::vector<float> y(x.size());
    const bool integers = !g_.is_initializer(p.input);  // DequantizeLinear of a constant: already done
    wf.qmin = INT64_MAX;
    wf.qmax = INT64_MIN;
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t c = channel(i, inner, p);
      y[i] = integers ? x[i] : fake_quant_value(x[i], p.scale[c], p.zero_point[c], p.qmin, p.qmax, p.bipolar);
      const int64_t q = int64_t(std::nearbyint(double(y[i]) / double(p.scale[c])));
      wf.qmin = std::min(wf.qmin, q);
      wf.qmax = std::max(wf.qmax, q);
    }
    res_.graph.initializers[p.output] = Tensor::from_floats(w.shape(), y);
    res_.weights[p.output] = std::move(wf);
  }

  Node fake_quant_node(const Pattern& p) {
    Node n;
    n.name = p.name;
    n.op_type = "FakeQuant";
    n.inputs = {p.input};
    n.outputs = {p.output};
    if (p.scale.size() > 1) {
      throw Error(fmt::format("{}: {} scales on activation '{}': per-channel activation formats are not supported "
                              "(tauvta's activations have one format per tensor)", p.describe, p.scale.size(),
                              p.input));
    }
    const std::vector<int> f = fracs(p);
    n.attrs["frac_bits"] = int64_t(f[0]);
    n.attrs["scale"] = p.scale[0];
    n.attrs["zero_point"] = p.zero_point[0];
    n.attrs["qmin"] = p.qmin;
    n.attrs["qmax"] = p.qmax;
    n.attrs["source"] = p.describe;
    if (p.bipolar) n.attrs["bipolar"] = int64_t(1);
    std::string error = unrepresentable(p);
    if (error.empty() && p.bipolar) {
      error = fmt::format("{}: BipolarQuant of activation '{}' (the sign function) has no fixed-point "
                          "requantization form", p.describe, p.input);
    }
    if (!error.empty()) n.attrs["error"] = error;
    return n;
  }

  const Graph& g_;
  FakeQuantImport res_;
  std::vector<Pattern> patterns_;
};

}  // namespace

FakeQuantImport fold_fake_quant(const Graph& g) { return Folder(g).run(); }

}  // namespace tauvta::graph
