#include "model/pipeline.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "cpu/calibration.h"
#include "cpu/float_executor.h"
#include "graph/fake_quant.h"
#include "graph/onnx_import.h"
#include "graph/passes.h"
#include "graph/shape_inference.h"
#include "model/samples.h"

namespace tauvta::model {

std::vector<bool> batch_inputs(const std::vector<graph::Shape>& shapes, const std::vector<bool>& shape_operand) {
  // Every input with a first dimension carries the batch when their static first dimensions agree;
  // when they do not (an [2, 3] x [3, 4] product), only the image-like ones (rank 3 or more) do.
  // A shape operand (a 1-D integer input) never does.
  std::set<int64_t> firsts;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i].empty() && shapes[i][0] > 0 && !shape_operand[i]) firsts.insert(shapes[i][0]);
  }
  std::vector<bool> out(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    out[i] = !shapes[i].empty() && !shape_operand[i] && (firsts.size() <= 1 || shapes[i].size() >= 3);
  }
  return out;
}

namespace {

// batch_inputs for a graph's declared inputs (unknown shapes carry nothing).
std::vector<bool> graph_batch_inputs(const graph::Graph& g) {
  std::vector<graph::Shape> shapes;
  std::vector<bool> operand;
  for (const std::string& i : g.inputs) {
    const graph::ValueInfo* v = g.info(i);
    const bool known = v != nullptr && v->known_shape && !v->sequence;  // a sequence carries no batch
    shapes.push_back(known ? v->shape : graph::Shape{});
    operand.push_back(known && v->shape.size() == 1 && v->dtype == graph::DType::kInt64);
  }
  return batch_inputs(shapes, operand);
}

}  // namespace

graph::Graph set_batch(graph::Graph g, int64_t batch) {
  std::set<int64_t> old;
  const std::vector<bool> carries = graph_batch_inputs(g);
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    graph::ValueInfo& v = g.info_mut(g.inputs[k]);
    if (carries[k] && v.known_shape && !v.shape.empty()) {
      old.insert(v.shape[0]);
      v.shape[0] = batch > 0 ? batch : -1;
    }
  }
  const std::set<std::string> inputs(g.inputs.begin(), g.inputs.end());
  for (auto& [name, v] : g.values) {
    if (inputs.count(name) || !v.known_shape || v.shape.empty()) continue;
    if (old.count(v.shape[0])) v.shape[0] = -1;  // re-inferred from the inputs
  }
  return g;
}

namespace {

// The inputs' shapes as `g` declares them, with `batch` (when > 0) as the first dimension of those
// that carry the batch.
std::vector<std::pair<std::string, graph::Shape>> declared_inputs(const graph::Graph& g, int64_t batch) {
  std::vector<std::pair<std::string, graph::Shape>> out;
  const std::vector<bool> carries = graph_batch_inputs(g);
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    const graph::ValueInfo* v = g.info(g.inputs[k]);
    if (v == nullptr || !v->known_shape || v->sequence) continue;
    graph::Shape s = v->shape;
    if (batch > 0 && !s.empty() && carries[k]) s[0] = batch;
    out.emplace_back(g.inputs[k], std::move(s));
  }
  return out;
}

// Why the imported graph cannot run at another batch than the one it declares, or "" when it can
// (or declares none). Exporters that trace `x.view(batch, ...)` bake the traced batch into the
// Reshape target; shape inference at the declared batch plus one finds such a node.
std::string batch_pin_reason(const graph::Graph& g) {
  int64_t declared = 0;
  const std::vector<bool> carries = graph_batch_inputs(g);
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    const graph::ValueInfo* v = g.info(g.inputs[k]);
    if (carries[k] && v != nullptr && v->known_shape && !v->shape.empty() && v->shape[0] > 0) declared = v->shape[0];
  }
  if (declared == 0) return "";
  // The trial needs the graph's structure, not its weights: initializers larger than a shape
  // operand become value infos (their dtype and shape are all shape inference reads from them),
  // so the trial copies kilobytes instead of the model.
  graph::Graph trial;
  trial.name = g.name;
  trial.opset = g.opset;
  trial.inputs = g.inputs;
  trial.outputs = g.outputs;
  trial.nodes = g.nodes;
  trial.values = g.values;
  trial = set_batch(std::move(trial), declared + 1);
  for (const auto& [name, t] : g.initializers) {
    if (t.size() <= graph::kMaxShapeTensorElements) {
      trial.initializers[name] = t;
      continue;
    }
    graph::ValueInfo& v = trial.info_mut(name);  // after set_batch: a weight's shape is its own
    v.dtype = t.dtype();
    v.shape = t.shape();
    v.known_shape = true;
  }
  try {
    graph::ShapeInferenceOptions options;
    options.evaluate = cpu::eval_float_node;
    graph::infer_shapes(trial, options);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class PassRunner {
 public:
  PassRunner(const LoadOptions& o, LoadedModel& m) : o_(o), m_(m) {
    if (!o.dump_dir.empty()) std::filesystem::create_directories(o.dump_dir);
  }

  template <class F>
  graph::Graph run(const std::string& name, F&& pass) {
    const auto t0 = std::chrono::steady_clock::now();
    graph::Graph g = pass();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m_.timings.push_back({name, s});
    dump(name, g);
    return g;
  }

  void dump(const std::string& name, const graph::Graph& g) {
    if (o_.dump_dir.empty()) return;
    const auto path = o_.dump_dir / fmt::format("{:02d}-{}.txt", ++count_, name);
    if (!o_.force && std::filesystem::exists(path)) {
      throw Error(fmt::format("{}: file exists; pass --force to overwrite it", path.string()));
    }
    write_file_atomic(path, graph::print_graph(g));
  }

  void time(const std::string& name, double seconds) { m_.timings.push_back({name, seconds}); }

 private:
  const LoadOptions& o_;
  LoadedModel& m_;
  int count_ = 0;
};

LoadedModel finish_quantized(PassRunner& p, LoadedModel& m) {
  p.dump("quantize", m.quant.graph);
  graph::verify_quantized(m.quant.graph);
  m.warnings.insert(m.warnings.end(), m.quant.warnings.begin(), m.quant.warnings.end());
  m.quantized = true;
  return std::move(m);
}

}  // namespace

LoadedModel load_model(const std::filesystem::path& path, const LoadOptions& o) {
  LoadedModel m;
  PassRunner p(o, m);
  graph::Graph g = p.run("import", [&] {
    // A quantized model's QDQ / QONNX nodes become FakeQuant nodes and weight formats.
    graph::FakeQuantImport fq = graph::fold_fake_quant(graph::import_onnx(path));
    m.weight_formats = std::move(fq.weights);
    m.warnings.insert(m.warnings.end(), fq.warnings.begin(), fq.warnings.end());
    graph::Graph imported = std::move(fq.graph);
    m.declared_inputs = declared_inputs(imported, o.batch);
    if (const std::string why = batch_pin_reason(imported); !why.empty()) {
      m.pinned_batch = default_batch(m);
      if (o.batch > 0 && o.batch != m.pinned_batch) {
        throw Error(fmt::format("{}: the model only runs at batch {} ({}), not at batch {}", path.string(),
                                m.pinned_batch, why, o.batch));
      }
      m.warnings.push_back(fmt::format("{}: the model only runs at the batch it declares, {} (at another: {}); "
                                       "it runs and calibrates at that batch",
                                       path.string(), m.pinned_batch, why));
      return set_batch(std::move(imported), m.pinned_batch);
    }
    return set_batch(std::move(imported), o.batch);
  });
  g = p.run("shape_inference", [&] {
    graph::ShapeInferenceOptions shape_options;
    shape_options.evaluate = cpu::eval_float_node;
    return graph::infer_shapes(g, shape_options);
  });
  g = p.run("fold_constants", [&] { return graph::fold_constants(g, cpu::eval_float_node); });
  g = p.run("fold_batch_norm", [&] { return graph::fold_batch_norm(g); });
  g = p.run("fuse_patterns", [&] { return graph::fuse_patterns(std::move(g)); });
  g = p.run("remove_dead_nodes", [&] { return graph::remove_dead_nodes(g); });
  m.float_graph = std::move(g);
  if (!o.quantize) return m;
  graph::refuse_sequences(m.float_graph);  // before calibration spends time on a graph quantize() refuses

  graph::QuantizeOptions q;
  q.act_bits = o.config.inp_width();
  q.wgt_bits = o.config.wgt_width();
  q.acc_bits = o.config.acc_width();
  q.act_stat = o.calib_stat;
  q.percentile = o.percentile;
  q.wgt_stat = o.weight_stat;
  q.per_channel = o.per_channel;
  q.weight_formats = m.weight_formats;
  m.quant_options = q;
  // An imported quantized model carries its formats: it is not recalibrated unless a value the
  // integer graph needs has none.
  const bool imported = !m.weight_formats.empty() ||
                        std::any_of(m.float_graph.nodes.begin(), m.float_graph.nodes.end(),
                                    [](const graph::Node& n) { return n.op_type == "FakeQuant"; });
  if (imported) {
    const auto t1 = std::chrono::steady_clock::now();
    try {
      m.quant = graph::quantize(m.float_graph, m.stats, q);
      m.calib_source = "none: formats from the model's quantization nodes";
      p.time("quantize", std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
      return finish_quantized(p, m);
    } catch (const graph::MissingStatistics&) {
      // some value has no imported format: calibrate as for any model
    }
  }

  const auto t0 = std::chrono::steady_clock::now();
  const SampleSet samples = load_samples(m.float_graph, o.calibrate, o.calib_samples,
                                           m.pinned_batch > 0 ? m.pinned_batch : o.calib_batch);
  m.warnings.insert(m.warnings.end(), samples.warnings.begin(), samples.warnings.end());
  m.calib_samples = samples.samples;
  m.calib_source = samples.source;
  m.stats =
      cpu::calibrate(m.float_graph, samples.batches, [&](int64_t done, int64_t total) {
        if (o.progress) o.progress(fmt::format("calibrating: batch {}/{}", done, total));
      });
  p.time("calibrate", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  const auto t1 = std::chrono::steady_clock::now();
  m.quant = graph::quantize(m.float_graph, m.stats, q);
  p.time("quantize", std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
  return finish_quantized(p, m);
}

int64_t default_batch(const LoadedModel& m) {
  std::vector<graph::Shape> shapes;
  for (const auto& [name, shape] : m.declared_inputs) shapes.push_back(shape);
  const std::vector<bool> carries = batch_inputs(shapes, std::vector<bool>(shapes.size(), false));
  int64_t batch = 0;
  bool agree = true;
  std::vector<std::string> declared;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const graph::Shape& shape = shapes[k];
    if (!carries[k] || shape.empty() || shape[0] < 1) continue;
    declared.push_back(fmt::format("'{}' {}", m.declared_inputs[k].first, graph::shape_string(shape)));
    agree = agree && (batch == 0 || shape[0] == batch);
    if (batch == 0) batch = shape[0];
  }
  if (!agree) {
    throw Error(fmt::format("the model's image inputs declare different batches ({}); pass --batch N to choose one",
                            fmt::join(declared, ", ")));
  }
  return batch > 0 ? batch : 1;
}

bool declares_batch(const LoadedModel& m) {
  std::vector<graph::Shape> shapes;
  for (const auto& [name, shape] : m.declared_inputs) shapes.push_back(shape);
  const std::vector<bool> carries = batch_inputs(shapes, std::vector<bool>(shapes.size(), false));
  for (size_t k = 0; k < shapes.size(); ++k) {
    if (carries[k] && !shapes[k].empty() && shapes[k][0] > 0) return true;
  }
  return false;
}

graph::QuantizeResult requantize(const LoadedModel& m, const std::map<std::string, int>& formats) {
  if (!m.quantized) throw InternalError("requantize: the model was not quantized");
  graph::QuantizeOptions q = m.quant_options;
  q.formats = formats;
  graph::QuantizeResult r = graph::quantize(m.float_graph, m.stats, q);
  graph::verify_quantized(r.graph);
  return r;
}

nlohmann::json quantization_settings(const LoadOptions& o, const LoadedModel& m) {
  nlohmann::json j;
  j["activation_bits"] = o.config.inp_width();
  j["weight_bits"] = o.config.wgt_width();
  j["accumulator_bits"] = o.config.acc_width();
  j["calibration_statistic"] = graph::calib_statistic_name(o.calib_stat);
  if (o.calib_stat == graph::CalibStatistic::kPercentile) j["percentile"] = o.percentile;
  j["weight_statistic"] = graph::calib_statistic_name(o.weight_stat);
  j["per_channel_weights"] = o.per_channel;
  j["calibration_source"] = m.calib_source;
  j["calibration_samples"] = m.calib_samples;
  j["rounding"] = "requantize: add 2^(shift-1), arithmetic shift right, clip (round half up); "
                  "float to fixed: nearest, ties to even";
  nlohmann::json layers = nlohmann::json::array();
  for (const graph::QuantLayer& l : m.quant.layers) {
    layers.push_back({{"node", l.node},
                      {"op", l.op_type},
                      {"output", l.output},
                      {"in_frac", l.in_frac},
                      {"weight_frac", l.wgt_frac},
                      {"out_frac", l.out_frac},
                      {"shift", l.shifts},
                      {"clip_min", l.clip_min},
                      {"clip_max", l.clip_max},
                      {"worst_case_accumulator", l.worst_case_acc}});
  }
  j["layers"] = layers;
  j["cpu_fallbacks"] = m.quant.cpu_fallbacks;
  j["warnings"] = m.warnings;
  return j;
}

}  // namespace tauvta::model
