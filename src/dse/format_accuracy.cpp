#include "dse/format_accuracy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "common/elapsed.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/fnv1a.h"
#include "cpu/accumulator_wraps.h"
#include "graph/quantize.h"
#include "io/tensor_files.h"
#include "model/accuracy.h"
#include "precision/evaluator.h"
#include "precision/formats.h"
#include "precision/tuner.h"

namespace tauvta::dse {

namespace fs = std::filesystem;
using nlohmann::json;

cpu::WrapCount FormatAccuracy::wrap_total() const {
  cpu::WrapCount t;
  for (const LayerWraps& w : wraps) {
    t.wrapped += w.count.wrapped;
    t.elements += w.count.elements;
  }
  return t;
}

std::string format_key(int precision, int acc_bits) { return fmt::format("w{0}a{0}_acc{1}", precision, acc_bits); }

void check_accuracy_options(const AccuracyBoundOptions& o, int64_t dataset_images) {
  const bool bound = o.max_drop_points >= 0 || o.min_accuracy >= 0;
  if (o.images.empty() != o.labels.empty()) throw Error("dse: --images and --labels go together");
  if (o.images.empty()) {
    if (bound) throw Error("dse: --max-accuracy-drop / --min-accuracy need --images and --labels");
    return;
  }
  if (!bound) throw Error("dse: --images needs a bound: --max-accuracy-drop PTS or --min-accuracy A");
  if (o.max_drop_points >= 0 && o.min_accuracy >= 0) {
    throw Error("dse: give --max-accuracy-drop or --min-accuracy, not both");
  }
  if (o.min_accuracy > 1) throw Error(fmt::format("--min-accuracy {}: a fraction in [0, 1]", o.min_accuracy));
  if (o.max_drop_points > 100) throw Error(fmt::format("--max-accuracy-drop {}: points in [0, 100]", o.max_drop_points));
  if (o.tune_images < 1) throw Error(fmt::format("--accuracy-tune-images {}: at least 1", o.tune_images));
  if (o.holdout_images < 1) throw Error(fmt::format("--accuracy-holdout {}: at least 1", o.holdout_images));
  if (o.limit < 1) throw Error(fmt::format("--accuracy-limit {}: at least 1", o.limit));
  precision::parse_tune_mode(o.mode);  // throws naming the mode
  if (dataset_images >= 0 && o.tune_images + o.holdout_images > dataset_images) {
    throw Error(fmt::format("{}: {} images, fewer than --accuracy-tune-images {} + --accuracy-holdout {}", o.images,
                            dataset_images, o.tune_images, o.holdout_images));
  }
}

json to_json(const FormatAccuracy& f) {
  json wraps = json::array();
  for (const LayerWraps& w : f.wraps) {
    wraps.push_back({{"node", w.node}, {"wrapped", w.count.wrapped}, {"elements", w.count.elements},
                     {"rate", w.count.rate()}});
  }
  const cpu::WrapCount total = f.wrap_total();
  return {{"key", f.key},
          {"precision", f.precision},
          {"acc_bits", f.acc_bits},
          {"holdout", {f.holdout_begin, f.holdout_begin + f.holdout_images}},
          {"float_accuracy", f.float_accuracy},
          {"calibrated_accuracy", f.calibrated_accuracy},
          {"tuned_accuracy", f.tuned_accuracy},
          {"tune_split_accuracy", f.tune_split_accuracy},
          {"tune_evaluations", f.tune_evaluations},
          {"best_step", f.best_step},
          {"tuned_formats", f.tuned_formats},
          {"tuned_format_names", f.tuned_names},
          {"overflow_rate", f.overflow_rate},
          {"accumulator_wraps", wraps},
          {"wrapped", total.wrapped},
          {"accumulated", total.elements},
          {"wrap_rate", total.rate()},
          {"compile_warnings", f.compile_warnings},
          {"unrepresentable", f.unrepresentable},
          {"seconds", f.seconds},
          {"bound", f.bound},
          {"meets_bound", f.meets},
          {"reason", f.reason}};
}

FormatAccuracy format_accuracy_from_json(const json& j) {
  FormatAccuracy f;
  f.key = j.at("key").get<std::string>();
  f.precision = j.at("precision").get<int>();
  f.acc_bits = j.at("acc_bits").get<int>();
  f.holdout_begin = j.at("holdout").at(0).get<int64_t>();
  f.holdout_images = j.at("holdout").at(1).get<int64_t>() - f.holdout_begin;
  f.float_accuracy = j.at("float_accuracy").get<double>();
  f.calibrated_accuracy = j.at("calibrated_accuracy").get<double>();
  f.tuned_accuracy = j.at("tuned_accuracy").get<double>();
  f.tune_split_accuracy = j.at("tune_split_accuracy").get<double>();
  f.tune_evaluations = j.at("tune_evaluations").get<int>();
  f.best_step = j.at("best_step").get<int>();
  f.tuned_formats = j.at("tuned_formats").get<std::map<std::string, int>>();
  f.tuned_names = j.at("tuned_format_names").get<std::map<std::string, std::string>>();
  f.overflow_rate = j.at("overflow_rate").get<std::map<std::string, double>>();
  for (const json& w : j.at("accumulator_wraps")) {
    f.wraps.push_back({w.at("node").get<std::string>(), {w.at("wrapped").get<int64_t>(), w.at("elements").get<int64_t>()}});
  }
  f.compile_warnings = j.at("compile_warnings").get<std::vector<std::string>>();
  f.unrepresentable = j.at("unrepresentable").get<std::string>();
  f.seconds = j.at("seconds").get<double>();
  return f;
}

namespace {

graph::Tensor read_dataset(const std::string& path, const char* what) {
  if (!fs::is_regular_file(path)) throw Error(fmt::format("{} {}: no such file", what, path));
  return io::read_idx(path);
}

// Whether the space's accumulator-too-narrow constraint prunes `d`'s accumulator (the constraint
// itself, not a copy of its rule; the other constraints concern other knobs).
bool accumulator_pruned(const DesignSpace& space, const Design& d) {
  for (const DesignSpace::Constraint& c : space.constraints()) {
    if (c.last == Knob::kAccWidth && c.why(space, d)) return true;
  }
  return false;
}

std::string content_hash(const std::string& path) {
  const std::vector<uint8_t> bytes = read_binary(path);
  return fmt::format("{:016x}", fnv1a64(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
}

}  // namespace

FormatAccuracyStep::FormatAccuracyStep(DseWorkload& workload, const AccuracyBoundOptions& options,
                                       const fs::path& out_dir, std::function<void(const std::string&)> progress)
    : workload_(workload),
      options_(options),
      dir_(out_dir),
      progress_(std::move(progress)),
      images_(read_dataset(options.images, "--images")),
      labels_(read_dataset(options.labels, "--labels")) {
  if (!workload.is_model()) throw Error("dse: an accuracy bound needs a model, not --workload");
  if (images_.rank() != 3 || labels_.rank() != 1 || labels_.shape()[0] != images_.shape()[0]) {
    throw Error(fmt::format("{} / {}: expected IDX images [N, rows, cols] and N labels", options.images, options.labels));
  }
  check_accuracy_options(options_, images_.shape()[0]);
  if (options_.boards <= 0) options_.boards = int(std::max(1u, std::thread::hardware_concurrency()));
  // The boards do not change a result (the simulator is deterministic), so they are not in the key.
  settings_ = fmt::format("images={} labels={} tune={} holdout={} mode={} limit={}", content_hash(options.images),
                          content_hash(options.labels), options_.tune_images, options_.holdout_images, options_.mode,
                          options_.limit);
  cache_ = std::make_unique<ResultCache>(out_dir / "accuracy.jsonl");
}

double FormatAccuracyStep::float_accuracy() {
  if (float_accuracy_ >= 0) return float_accuracy_;
  // The float graph is the same at every width: any loaded model has it.
  const hw::HwConfig c;
  const auto m = workload_.loaded(c);
  model::AccuracyOptions ao;
  ao.begin = options_.tune_images;
  ao.limit = options_.holdout_images;
  float_accuracy_ = model::evaluate_accuracy(m->float_graph, images_, labels_, ao).accuracy;
  return float_accuracy_;
}

double FormatAccuracyStep::bound() {
  if (options_.min_accuracy >= 0) return options_.min_accuracy;
  return float_accuracy() - options_.max_drop_points / 100.0;
}

void FormatAccuracyStep::judge(FormatAccuracy& f) {
  f.bound = bound();
  // Accuracies are counts over the same split: compare counts, not rounded fractions.
  const double need = std::ceil(f.bound * double(f.holdout_images) - 1e-9);
  f.meets = f.unrepresentable.empty() && std::llround(f.tuned_accuracy * double(f.holdout_images)) >= int64_t(need);
  f.reason = f.meets                     ? ""
             : !f.unrepresentable.empty() ? fmt::format("W{0}A{0} acc{1}: {2}", f.precision, f.acc_bits, f.unrepresentable)
                     : fmt::format("W{0}A{0} acc{1}: held-out top-1 {2:.4f} < bound {3:.4f}", f.precision, f.acc_bits,
                                   f.tuned_accuracy, f.bound);
}

std::shared_ptr<const FormatAccuracy> FormatAccuracyStep::find(int precision, int acc_bits) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = done_.find(format_key(precision, acc_bits));
  return it == done_.end() ? nullptr : it->second;
}

std::vector<FormatAccuracy> FormatAccuracyStep::evaluate(const DesignSpace& space) {
  std::vector<FormatAccuracy> out;
  Design d = space.default_design();
  for (size_t i = 0; i < space.values(Knob::kAccWidth).size(); ++i) {
    d[size_t(Knob::kAccWidth)] = uint8_t(i);
    const int acc = space.value(d, Knob::kAccWidth);
    if (accumulator_pruned(space, d)) continue;  // no design of the pruned space has this accumulator
    const std::string key = format_key(space.precision(), acc);
    const std::string ckey = ResultCache::make_key(key, workload_.id(), 0, settings_);
    FormatAccuracy f;
    if (auto j = cache_->find(ckey)) {
      f = format_accuracy_from_json(*j);
      f.cached = true;
      // Same data and splits (they are in the key): the float model's accuracy needs no new run.
      if (float_accuracy_ < 0) float_accuracy_ = f.float_accuracy;
    } else {
      try {
        f = compute(space, acc);
      } catch (const graph::ImportedWidthError& e) {
        // An imported quantized model trained for wider values: no design of this format runs it.
        f = FormatAccuracy{};
        f.key = key;
        f.precision = space.precision();
        f.acc_bits = acc;
        f.holdout_begin = options_.tune_images;
        f.holdout_images = options_.holdout_images;
        f.float_accuracy = float_accuracy();
        f.unrepresentable = e.what();
      }
      cache_->put(ckey, to_json(f));
    }
    judge(f);
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_[key] = std::make_shared<const FormatAccuracy>(f);
    }
    out.push_back(std::move(f));
  }
  return out;
}

FormatAccuracy FormatAccuracyStep::compute(const DesignSpace& space, int acc_bits) {
  const auto t0 = std::chrono::steady_clock::now();
  Design d = space.default_design();
  d[size_t(Knob::kAccWidth)] = *space.index_of(Knob::kAccWidth, acc_bits);
  // The format's numbers do not depend on the blocking or the buffers: every feasible design runs
  // every layer on the accelerator, bit-exact with the integer reference at these widths.
  const hw::HwConfig config = space.task_host(d);
  const auto m = workload_.loaded(config);
  FormatAccuracy f;
  f.key = format_key(space.precision(), acc_bits);
  f.precision = space.precision();
  f.acc_bits = acc_bits;
  f.holdout_begin = options_.tune_images;
  f.holdout_images = options_.holdout_images;
  f.float_accuracy = float_accuracy();
  for (const std::string& w : m->warnings) {
    if (w.find("accumulator can overflow") != std::string::npos) f.compile_warnings.push_back(w);
  }

  precision::EvaluatorSettings es;
  es.boards = options_.boards;
  const precision::PrecisionEvaluator ev(*m, config, images_, labels_, es);
  precision::PrecisionTuneOptions to;
  to.mode = precision::parse_tune_mode(options_.mode);
  to.limit = options_.limit;
  to.radius = 1;
  to.tune_begin = 0;
  to.tune_count = options_.tune_images;
  to.checkpoint = dir_ / "accuracy" / f.key / "checkpoint.json";
  fs::create_directories(to.checkpoint.parent_path());
  if (progress_) to.progress = [this, &f](const std::string& line) { progress_(fmt::format("accuracy {}: {}", f.key, line)); };
  const precision::Formats start = precision::formats_of(ev.slots());
  const precision::PrecisionTuneResult r = precision::tune_precision(ev, start, to);
  const precision::TuneStep& best = r.steps.at(r.best);
  f.tune_evaluations = int(r.steps.size());
  f.best_step = int(r.best);
  f.tune_split_accuracy = best.eval.accuracy;
  f.tuned_formats = best.eval.formats;
  f.overflow_rate = best.eval.overflow_rate;
  for (const precision::FormatSlot& s : ev.slots()) {
    f.tuned_names[s.value] = precision::q_name(s.bits, best.eval.formats.at(s.value));
  }

  // The held-out split through the integer reference: the accuracy and every layer's wraps.
  auto holdout = [&](const precision::Formats& formats, cpu::AccumulatorWraps* wraps) {
    const graph::QuantizeResult q = model::requantize(*m, formats);
    model::AccuracyOptions ao;
    ao.begin = options_.tune_images;
    ao.limit = options_.holdout_images;
    ao.integer = true;
    ao.int_options.threads = options_.boards;
    ao.int_options.wraps = wraps;
    return model::evaluate_accuracy(q.graph, images_, labels_, ao).accuracy;
  };
  cpu::AccumulatorWraps wraps;
  f.tuned_accuracy = holdout(best.eval.formats, &wraps);
  f.calibrated_accuracy = r.best == 0 ? f.tuned_accuracy : holdout(r.steps.front().eval.formats, nullptr);
  for (const auto& [node, c] : wraps.by_node()) f.wraps.push_back({node, c});
  f.seconds = seconds_since(t0);
  return f;
}

}  // namespace tauvta::dse
