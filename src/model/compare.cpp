#include "model/compare.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/error.h"
#include "model/accuracy.h"

namespace tauvta::model {

using graph::Tensor;

double cosine_similarity(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) throw InternalError("cosine_similarity: sizes differ");
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  if (aa == 0 && bb == 0) return 1.0;  // both all zero: identical
  if (aa == 0 || bb == 0) return 0.0;
  return ab / std::sqrt(aa * bb);
}

namespace {

struct Errors {
  double max_abs = 0, rms = 0;
};

Errors errors(std::span<const float> a, std::span<const float> b) {
  Errors e;
  double sq = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(double(a[i]) - b[i]);
    e.max_abs = std::max(e.max_abs, d);
    sq += d * d;
  }
  e.rms = a.empty() ? 0 : std::sqrt(sq / double(a.size()));
  return e;
}

}  // namespace

Comparison compare_with_float(const LoadedModel& m, const cpu::TensorMap& inputs, cpu::TensorMap& float_outputs,
                              cpu::TensorMap& int_outputs, const cpu::IntRunOptions& options) {
  if (!m.quantized) throw InternalError("compare_with_float: the model is not quantized");
  const graph::Graph& qg = m.quant.graph;
  // Integer values that stand for a float value, and which float values to keep.
  std::map<std::string, std::string> float_of_int;
  for (const auto& [fv, iv] : m.quant.value_map) {
    const graph::ValueInfo* info = qg.info(iv);
    if (info != nullptr && info->quant.quantized()) float_of_int[iv] = fv;
  }
  std::map<std::string, Tensor> float_values, int_values;
  std::map<std::string, const graph::Node*> int_producer;
  float_outputs = cpu::run_float(m.float_graph, inputs, [&](const graph::Node& n, const std::vector<const Tensor*>& outs) {
    for (size_t k = 0; k < outs.size() && k < n.outputs.size(); ++k) {
      if (outs[k] && m.quant.value_map.count(n.outputs[k])) float_values[n.outputs[k]] = *outs[k];
    }
  });
  for (const std::string& i : m.float_graph.inputs) {
    if (auto it = inputs.find(i); it != inputs.end()) float_values[i] = it->second;
  }
  cpu::IntExecutor exec(qg, options);
  int_outputs = exec.run(inputs, [&](const graph::Node& n, const std::vector<const Tensor*>& outs) {
    for (size_t k = 0; k < outs.size() && k < n.outputs.size(); ++k) {
      if (outs[k] && float_of_int.count(n.outputs[k])) {
        int_values[n.outputs[k]] = *outs[k];
        int_producer[n.outputs[k]] = &n;
      }
    }
  });

  Comparison c;
  for (const std::string& o : qg.outputs) {
    const Tensor& f = float_outputs.at(o);
    const Tensor& q = int_outputs.at(o);
    OutputComparison oc;
    oc.name = o;
    const std::vector<float> fv = f.to_float(), qv = q.to_float();
    if (fv.size() != qv.size()) {
      throw Error(fmt::format("output '{}': float {} and integer {} shapes differ", o, graph::shape_string(f.shape()),
                              graph::shape_string(q.shape())));
    }
    oc.elements = int64_t(fv.size());
    oc.max_abs_error = errors(fv, qv).max_abs;
    oc.cosine = cosine_similarity(fv, qv);
    if (f.rank() >= 1 && f.size() > 0) {
      const std::vector<int64_t> af = argmax_rows(f), aq = argmax_rows(q);
      oc.rows = int64_t(af.size());
      for (size_t i = 0; i < af.size(); ++i) oc.top1_agree += af[i] == aq[i] ? 1 : 0;
    }
    c.outputs.push_back(oc);
  }
  // Layers in the quantized graph's order.
  for (const graph::Node& n : qg.nodes) {
    for (const std::string& iv : n.outputs) {
      auto fi = float_of_int.find(iv);
      if (fi == float_of_int.end() || !int_values.count(iv) || !float_values.count(fi->second)) continue;
      const graph::ValueInfo* info = qg.info(iv);
      if (info == nullptr || !info->quant.quantized()) continue;
      LayerComparison l;
      l.value = fi->second;
      l.node = n.name;
      l.op = n.op_type;
      l.bits = info->quant.bits;
      l.frac_bits = info->quant.frac_bits;
      const std::vector<float> fv = float_values.at(fi->second).to_float();
      const std::vector<int64_t> q = int_values.at(iv).to_int64();
      if (fv.size() != q.size()) continue;
      std::vector<float> dq(q.size());
      for (size_t i = 0; i < q.size(); ++i) dq[i] = float(std::ldexp(double(q[i]), -l.frac_bits));
      const Errors e = errors(fv, dq);
      l.max_abs_error = e.max_abs;
      l.rms_error = e.rms;
      l.cosine = cosine_similarity(fv, dq);
      const double hi = std::ldexp(std::ldexp(1.0, l.bits - 1) - 1 + 0.5, -l.frac_bits);
      const double lo = -std::ldexp(std::ldexp(1.0, l.bits - 1) + 0.5, -l.frac_bits);
      int64_t outside = 0;
      for (float x : fv) {
        l.float_abs_max = std::max(l.float_abs_max, double(std::fabs(x)));
        outside += (x >= hi || x <= lo) ? 1 : 0;
      }
      l.out_of_range = fv.empty() ? 0 : double(outside) / double(fv.size());
      c.layers.push_back(l);
    }
  }
  return c;
}

std::string format_comparison(const Comparison& c) {
  size_t w = 12;
  for (const OutputComparison& o : c.outputs) w = std::max(w, o.name.size());
  for (const LayerComparison& l : c.layers) w = std::max(w, l.value.size());
  size_t wop = 8;
  for (const LayerComparison& l : c.layers) wop = std::max(wop, l.op.size());
  std::string s = fmt::format("{:<{}} {:>9} {:>12} {:>10} {:>12}\n", "output", w, "elements", "max |err|", "cosine",
                              "top-1 agree");
  for (const OutputComparison& o : c.outputs) {
    s += fmt::format("{:<{}} {:>9} {:>12.6g} {:>10.6f} {:>12}\n", o.name, w, o.elements, o.max_abs_error, o.cosine,
                     fmt::format("{}/{}", o.top1_agree, o.rows));
  }
  s += fmt::format("\n{:<{}} {:<{}} {:>8} {:>10} {:>11} {:>11} {:>10} {:>9}\n", "layer value", w, "op", wop, "format",
                   "float max", "max |err|", "rms err", "cosine", "clipped");
  for (const LayerComparison& l : c.layers) {
    s += fmt::format("{:<{}} {:<{}} {:>8} {:>10.4g} {:>11.4g} {:>11.4g} {:>10.6f} {:>8.3f}%\n", l.value, w, l.op, wop,
                     fmt::format("q{}.{}", l.bits, l.frac_bits), l.float_abs_max, l.max_abs_error, l.rms_error,
                     l.cosine, 100.0 * l.out_of_range);
  }
  return s;
}

}  // namespace tauvta::model
