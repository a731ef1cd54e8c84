#include "precision/evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "backend/network_accuracy.h"
#include "backend/network_formats.h"
#include "common/error.h"

namespace tauvta::precision {

double Evaluation::max_overflow_rate() const {
  double m = 0;
  for (const auto& [v, r] : overflow_rate) m = std::max(m, r);
  return m;
}

PrecisionEvaluator::PrecisionEvaluator(const model::LoadedModel& m, const hw::HwConfig& config,
                                       const graph::Tensor& images, const graph::Tensor& labels,
                                       EvaluatorSettings settings)
    : m_(m), config_(config), images_(images), labels_(labels), settings_(std::move(settings)) {
  if (!m.quantized) throw Error("precision: the model must be quantized");
  settings_.compile.batch = settings_.batch;
  const backend::CompiledNetwork net = backend::compile_network(m.quant.graph, config_, settings_.compile);
  slots_ = format_slots(m.quant, &net);
}

Formats PrecisionEvaluator::complete(const Formats& f) const {
  Formats out = formats_of(slots_);
  for (const auto& [v, frac] : f) {
    if (!out.count(v)) throw Error(fmt::format("precision: no format slot '{}' in the model", v));
    out[v] = frac;
  }
  return out;
}

backend::CompiledNetwork PrecisionEvaluator::compile(const Formats& f) const {
  const graph::QuantizeResult q = model::requantize(m_, complete(f));
  backend::CompiledNetwork net = backend::compile_network(q.graph, config_, settings_.compile);
  backend::attach_quant_source(net, m_.float_graph, q, m_.quant_options);
  return net;
}

Evaluation PrecisionEvaluator::evaluate(const Formats& f, int64_t begin, int64_t count,
                                        const std::function<void(int64_t, int64_t)>& progress) const {
  const auto t0 = std::chrono::steady_clock::now();
  Evaluation e;
  e.formats = complete(f);
  const graph::QuantizeResult q = model::requantize(m_, e.formats);
  const backend::CompiledNetwork net = backend::compile_network(q.graph, config_, settings_.compile);
  const std::vector<FormatSlot> slots = format_slots(q, &net);

  backend::InstrumentRequest req;
  req.specs.push_back(backend::parse_instrument_spec("overflow"));
  req.settings.trace_capacity = 0;
  backend::NetworkAccuracyOptions o;
  o.begin = begin;
  o.limit = count;
  o.threads = settings_.boards;
  o.check_reference = false;  // the simulator is bit-exact with it (the backend tests hold it to that)
  o.instruments = &req;
  o.progress = progress;
  const backend::NetworkAccuracy acc = backend::evaluate_network_accuracy(net, images_, labels_, o);
  e.begin = begin;
  e.images = acc.images;
  e.correct = acc.correct;
  e.accuracy = acc.accuracy;
  for (const FormatSlot& s : slots) {
    if (s.network_layer >= 0) {
      const sim::LayerInstruments* li = acc.instruments->layer(size_t(s.network_layer));
      if (li) {
        e.overflow_rate[s.value] = li->observation().overflow_rate();
        // With the overflow instrument alone the largest value before the cast is kept when some
        // value overflowed (then the largest one is among them).
        if (li->observation().pre_max != INT64_MIN) e.pre_cast_max[s.value] = li->observation().pre_max;
      }
      continue;
    }
    // The graph input's Quantize on the host: count its saturations over the same images.
    const graph::Node* qn = q.graph.producer(s.int_value);
    if (qn && qn->op_type == "Quantize" && !qn->inputs.empty() &&
        std::find(q.graph.inputs.begin(), q.graph.inputs.end(), qn->inputs[0]) != q.graph.inputs.end()) {
      const int64_t qmax = (int64_t(1) << (s.bits - 1)) - 1, qmin = -qmax - 1;
      const uint8_t* px = images_.raw();
      const int64_t per = images_.size() / images_.shape()[0];
      const int64_t n = acc.images * per;
      int64_t over = 0, top = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double v = std::nearbyint(std::ldexp(double(float(px[begin * per + i]) * (1.0f / 255.0f)), s.frac));
        over += v > double(qmax) || v < double(qmin);
        top = std::max<int64_t>(top, int64_t(v));
      }
      e.overflow_rate[s.value] = n ? double(over) / double(n) : 0.0;
      e.pre_cast_max[s.value] = top;
    }
  }
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return e;
}

}  // namespace tauvta::precision
