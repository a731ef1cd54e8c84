// QuantBuilder's bookkeeping: names, value versions, Quantize/Dequantize insertion, the graph
// outputs and the final clean-up.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/quantize_builder.h"

namespace tauvta::graph::detail {

QuantBuilder::QuantBuilder(const Graph& src, const CalibrationStats& stats, const QuantizeOptions& options)
    : src_(src), stats_(stats), opt_(options) {
  Graph& out = res_.graph;
  out.name = src.name;
  out.opset = src.opset;
  out.inputs = src.inputs;
  out.outputs = src.outputs;
  for (const std::string& i : src.inputs) {
    float_of_[i] = i;
    if (const ValueInfo* v = src.info(i)) out.values[i] = *v;
  }
  for (const Node& n : src.nodes) {
    if (n.op_type == "FakeQuant") {
      imported_[n.outputs.at(0)] = int(n.attr_int("frac_bits"));
      imported_.emplace(n.input(0), int(n.attr_int("frac_bits")));
    }
  }
  for (const Node& n : src.nodes) {
    names_.insert(n.name);
    names_.insert(n.inputs.begin(), n.inputs.end());
    names_.insert(n.outputs.begin(), n.outputs.end());
  }
  for (const auto& [k, t] : src.initializers) names_.insert(k);
  names_.insert(src.inputs.begin(), src.inputs.end());
  names_.insert(src.outputs.begin(), src.outputs.end());
}

std::string QuantBuilder::fresh(const std::string& base) {
  std::string s = base;
  for (int k = 1; names_.count(s); ++k) s = fmt::format("{}_{}", base, k);
  names_.insert(s);
  return s;
}

const ValueHistogram& QuantBuilder::stats_of(const std::string& v) const {
  auto it = stats_.find(v);
  if (it == stats_.end() || it->second.count() == 0) {
    const Node* p = src_.producer(v);
    throw MissingStatistics(fmt::format("quantize: no calibration statistics for value '{}'{}", v,
                            p ? " (output of " + p->describe() + ")" : std::string(" (graph input)")));
  }
  return it->second;
}

int QuantBuilder::activation_frac(const std::string& v) {
  auto given = opt_.formats.find(v);
  auto imported = imported_.find(v);
  const int f = given != opt_.formats.end()      ? given->second
                : imported != imported_.end() ? imported->second
                                                : choose_frac_bits(stats_of(v), opt_.act_bits, opt_.act_stat,
                                                                   opt_.percentile);
  res_.activation_formats[v] = f;
  return f;
}

int QuantBuilder::fit_output_frac(const Node& n, const std::string& value, int f_out, int acc_lo, int acc_hi) {
  int fitted = f_out, acc = acc_hi;
  if (acc_hi - fitted > max_shift()) fitted = acc_hi - fitted_shift();
  if (acc_lo - fitted < -max_shift()) {
    fitted = acc_lo + max_shift();
    acc = acc_lo;
  }
  if (fitted == f_out) return f_out;
  res_.warnings.push_back(fmt::format(
      "{}: output '{}' moved from q{}.{} to q{}.{} so that its requantization shift fits the {}-bit "
      "accumulator (shift {} -> {})",
      n.describe(), value, opt_.act_bits, f_out, opt_.act_bits, fitted, opt_.acc_bits, acc - f_out,
      acc - fitted));
  res_.activation_formats[value] = fitted;
  return fitted;
}

void QuantBuilder::check_formats_used() const {
  for (const auto& [v, f] : opt_.formats) {
    if (!res_.activation_formats.count(v)) {
      throw Error(fmt::format("quantize: a format is given for '{}', which is not a quantized activation of "
                              "the graph", v));
    }
    if (f < kMinFracBits || f > kMaxFracBits) {
      throw Error(fmt::format("quantize: '{}': frac_bits {} is outside [{}, {}]", v, f, kMinFracBits, kMaxFracBits));
    }
  }
}

int QuantBuilder::frac_of(const std::string& int_value) const {
  const ValueInfo* v = res_.graph.info(int_value);
  if (v == nullptr || !v->quant.quantized()) {
    throw InternalError(fmt::format("quantize: '{}' has no fixed-point format", int_value));
  }
  return v->quant.frac_bits;
}

int QuantBuilder::bits_of(const std::string& int_value) const {
  const ValueInfo* v = res_.graph.info(int_value);
  if (v == nullptr || !v->quant.quantized()) {
    throw InternalError(fmt::format("quantize: '{}' has no fixed-point format", int_value));
  }
  return v->quant.bits;
}

std::string QuantBuilder::add_initializer(const std::string& base, Tensor t, QuantParams q) {
  const std::string name = res_.graph.initializers.count(base) || res_.graph.values.count(base)
                               ? fresh(base + "_q")
                               : base;
  names_.insert(name);
  ValueInfo& info = res_.graph.info_mut(name);
  info.dtype = t.dtype();
  info.shape = t.shape();
  info.known_shape = true;
  info.quant = std::move(q);
  res_.graph.initializers[name] = std::move(t);
  return name;
}

std::string QuantBuilder::int_output(const std::string& v, int frac_bits, int bits) {
  const bool is_output = std::count(src_.outputs.begin(), src_.outputs.end(), v) != 0;
  const std::string name = is_output ? fresh(v + "_q") : v;
  int_of_[v] = name;
  res_.value_map[v] = name;
  ValueInfo& info = res_.graph.info_mut(name);
  if (const ValueInfo* s = src_.info(v)) {
    info.shape = s->shape;
    info.known_shape = s->known_shape;
  }
  info.dtype = DType::kInt32;
  info.quant = QuantParams{bits, frac_bits, {}};
  return name;
}

std::string QuantBuilder::int_input(const std::string& v) {
  if (auto it = int_of_.find(v); it != int_of_.end()) return it->second;
  if (src_.is_initializer(v)) {
    // A constant where an activation is expected: quantized like one, at its own range.
    const Tensor t = src_.initializers.at(v).cast(DType::kFloat32);
    ValueHistogram h;
    h.add(t.floats());
    const int f = choose_frac_bits(h, opt_.act_bits, CalibStatistic::kMax, 0);
    std::vector<int64_t> q;
    for (float x : t.floats()) q.push_back(quantize_value(x, f, opt_.act_bits));
    const std::string name =
        add_initializer(v, Tensor::from_int64(DType::kInt32, t.shape(), q), {opt_.act_bits, f, {}});
    int_of_[v] = name;
    return name;
  }
  const std::string fv = float_input(v);
  const int f = activation_frac(v);
  const std::string name = fresh(v + "_q");
  int_of_[v] = name;
  res_.value_map.emplace(v, name);
  ValueInfo& info = res_.graph.info_mut(name);
  if (const ValueInfo* s = src_.info(v)) {
    info.shape = s->shape;
    info.known_shape = s->known_shape;
  }
  info.dtype = DType::kInt32;
  info.quant = QuantParams{opt_.act_bits, f, {}};
  Node q;
  q.name = fresh(v + "_quantize");
  q.op_type = "Quantize";
  q.inputs = {fv};
  q.outputs = {name};
  q.attrs["frac_bits"] = int64_t(f);
  q.attrs["bits"] = int64_t(opt_.act_bits);
  emit(std::move(q));
  return name;
}

std::string QuantBuilder::float_input(const std::string& v) {
  if (auto it = float_of_.find(v); it != float_of_.end()) return it->second;
  if (src_.is_initializer(v)) {
    const std::string name = res_.graph.initializers.count(v) ? fresh(v + "_f") : v;
    res_.graph.initializers[name] = src_.initializers.at(v);
    ValueInfo& info = res_.graph.info_mut(name);
    info.dtype = src_.initializers.at(v).dtype();
    info.shape = src_.initializers.at(v).shape();
    info.known_shape = true;
    float_of_[v] = name;
    return name;
  }
  auto it = int_of_.find(v);
  if (it == int_of_.end()) {
    throw InternalError(fmt::format("quantize: value '{}' is used before it is produced", v));
  }
  // A graph output's float version is the output itself (one Dequantize serves both).
  const bool is_output = std::count(src_.outputs.begin(), src_.outputs.end(), v) != 0;
  const std::string name = is_output ? v : fresh(v + "_dq");
  Node d;
  d.name = fresh(v + "_dequantize");
  d.op_type = "Dequantize";
  d.inputs = {it->second};
  d.outputs = {name};
  d.attrs["frac_bits"] = int64_t(frac_of(it->second));
  emit(std::move(d));
  ValueInfo& info = res_.graph.info_mut(name);
  if (const ValueInfo* s = src_.info(v)) info = *s;
  info.name = name;
  info.dtype = DType::kFloat32;
  info.quant = {};
  float_of_[v] = name;
  return name;
}

Fusion QuantBuilder::find_fusion(const Node& n) const {
  Fusion f;
  f.output = n.outputs.at(0);
  const std::string& o = n.outputs.at(0);
  if (std::count(src_.outputs.begin(), src_.outputs.end(), o)) return f;
  const std::vector<const Node*> users = src_.consumers(o);
  if (users.size() != 1) return f;
  const Node& a = *users[0];
  if (a.input(0) != o || a.outputs.size() != 1) return f;
  if (a.op_type == "Relu") {
    f.act = &a;
    f.lo = 0;
  } else if (a.op_type == "Clip") {
    double lo = -INFINITY, hi = INFINITY;
    if (a.has_attr("min")) lo = a.attr_float("min");
    if (a.has_attr("max")) hi = a.attr_float("max");
    for (size_t k : {size_t(1), size_t(2)}) {
      const std::string& b = a.input(k);
      if (b.empty()) continue;
      if (!src_.is_initializer(b) || src_.initializers.at(b).size() != 1) return f;  // not constant
      const double v = src_.initializers.at(b).to_float()[0];
      (k == 1 ? lo : hi) = v;
    }
    f.act = &a;
    f.lo = lo;
    f.hi = hi;
  } else if (a.op_type != "FakeQuant") {
    return f;
  }
  const Node* fq = &a;
  if (a.op_type != "FakeQuant") {
    f.output = a.outputs[0];
    const std::vector<const Node*> next = src_.consumers(f.output);
    if (std::count(src_.outputs.begin(), src_.outputs.end(), f.output) || next.size() != 1 ||
        next[0]->op_type != "FakeQuant") {
      return f;
    }
    fq = next[0];
  }
  // An imported FakeQuant: its integer range at its own binary point bounds the output too.
  check_fake_quant(*fq);
  const int frac = int(fq->attr_int("frac_bits"));
  f.fake_quant = fq;
  f.lo = std::max(f.lo, std::ldexp(double(fq->attr_int("qmin")), -frac));
  f.hi = std::min(f.hi, std::ldexp(double(fq->attr_int("qmax")), -frac));
  f.output = fq->outputs.at(0);
  return f;
}

void QuantBuilder::check_fake_quant(const Node& fq) const {
  const std::string source = fq.attr_string_or("source", fq.describe());
  if (const std::string e = fq.attr_string_or("error", ""); !e.empty()) throw Error(e);
  const int64_t lo = fq.attr_int("qmin"), hi = fq.attr_int("qmax");
  int need = 1;
  while (lo < -(int64_t(1) << (need - 1)) || hi > (int64_t(1) << (need - 1)) - 1) ++need;
  if (need > opt_.act_bits) {
    throw ImportedWidthError(fmt::format(
        "{}: integer range [{}, {}] of '{}' needs {} signed bits; the activations are {} bits "
        "(tauvta's formats are signed: narrow the Clip, bitwidth or integer type)",
        source, lo, hi, fq.outputs.at(0), need, opt_.act_bits));
  }
}

const WeightFormat* QuantBuilder::imported_weight_format(const Node& n, bool channel_axis0, int64_t channels) {
  auto it = opt_.weight_formats.find(n.input(1));
  if (it == opt_.weight_formats.end()) return nullptr;
  const WeightFormat& w = it->second;
  if (!w.error.empty()) throw Error(w.error);
  int need = 1;
  while (w.qmin < -(int64_t(1) << (need - 1)) || w.qmax > (int64_t(1) << (need - 1)) - 1) ++need;
  if (need > opt_.wgt_bits) {
    throw ImportedWidthError(fmt::format(
        "{}: weights '{}' of {} hold integers in [{}, {}] ({} signed bits); the weights are {} bits", w.node,
        n.input(1), n.describe(), w.qmin, w.qmax, need, opt_.wgt_bits));
  }
  if (w.frac_bits.size() > 1) {
    // Per-channel formats must run along the output channels as the operator stores them.
    const bool trans_b = n.op_type == "Gemm" && n.attr_int_or("transB", 0) != 0;
    const int64_t out_axis = n.op_type == "Conv" || trans_b ? 0 : 1;
    if (!channel_axis0 || w.axis != out_axis || int64_t(w.frac_bits.size()) != channels) {
      throw Error(fmt::format("{}: weights '{}' of {} have one scale per slice of axis {}; tauvta's per-channel weight "
                              "formats run along a Conv's or Gemm's output channels (axis {})",
                              w.node, n.input(1), n.describe(), w.axis, out_axis));
    }
  }
  return &w;
}

std::pair<int64_t, int64_t> QuantBuilder::clip_bounds(const Fusion& f, int frac_bits, int bits) const {
  const int64_t qmin = -(int64_t(1) << (bits - 1)), qmax = (int64_t(1) << (bits - 1)) - 1;
  // round(clip(x, lo, hi)) == clip(round(x), round(lo), round(hi)) since rounding is monotone.
  int64_t lo = qmin, hi = qmax;
  if (std::isfinite(f.lo)) lo = std::clamp<int64_t>(quantize_value(f.lo, frac_bits, 62), qmin, qmax);
  if (std::isfinite(f.hi)) hi = std::clamp<int64_t>(quantize_value(f.hi, frac_bits, 62), qmin, qmax);
  return {lo, hi};
}

void QuantBuilder::check_accumulator(const Node& n, double worst, const std::string& where) {
  const double limit = std::ldexp(1.0, opt_.acc_bits - 1) - 1;
  if (worst > limit) {
    res_.warnings.push_back(fmt::format(
        "{}: the accumulator can overflow: worst case |acc| = {:.0f} (2^{:.1f}){} exceeds the {}-bit "
        "range {:.0f}; results wrap",
        n.describe(), worst, std::log2(worst), where, opt_.acc_bits, limit));
  }
}

void QuantBuilder::add_requant_attrs(Node& q, int64_t shift, std::pair<int64_t, int64_t> clip,
                                     int out_bits, const Fusion& f) const {
  q.attrs["acc_bits"] = int64_t(opt_.acc_bits);
  q.attrs["out_bits"] = int64_t(out_bits);
  q.attrs["shift"] = shift;
  q.attrs["clip_min"] = clip.first;
  q.attrs["clip_max"] = clip.second;
  if (f.act != nullptr) q.attrs["activation"] = f.act->op_type;
}

void QuantBuilder::finish_outputs() {
  for (const std::string& o : src_.outputs) {
    if (auto it = float_of_.find(o); it != float_of_.end() && it->second == o) continue;
    auto it = int_of_.find(o);
    if (it == int_of_.end()) {
      throw InternalError(fmt::format("quantize: graph output '{}' was not produced", o));
    }
    Node d;
    d.name = fresh(o + "_dequantize");
    d.op_type = "Dequantize";
    d.inputs = {it->second};
    d.outputs = {o};
    d.attrs["frac_bits"] = int64_t(frac_of(it->second));
    emit(std::move(d));
    ValueInfo& info = res_.graph.info_mut(o);
    if (const ValueInfo* s = src_.info(o)) info = *s;
    info.dtype = DType::kFloat32;
    info.quant = {};
    float_of_[o] = o;
  }
}

QuantizeResult QuantBuilder::take_result() {
  Graph& g = res_.graph;
  std::set<std::string> used(g.inputs.begin(), g.inputs.end());
  used.insert(g.outputs.begin(), g.outputs.end());
  for (const auto& [k, t] : g.initializers) used.insert(k);
  for (const Node& n : g.nodes) {
    used.insert(n.inputs.begin(), n.inputs.end());
    used.insert(n.outputs.begin(), n.outputs.end());
  }
  for (auto it = g.values.begin(); it != g.values.end();) {
    it = used.count(it->first) ? std::next(it) : g.values.erase(it);
  }
  verify(g);
  return std::move(res_);
}

}  // namespace tauvta::graph::detail
