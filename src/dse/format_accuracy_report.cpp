#include "dse/format_accuracy_report.h"

#include <fmt/format.h>

#include "backend/artifact.h"
#include "backend/compile_network.h"
#include "backend/network_formats.h"
#include "common/atomic_file.h"

namespace tauvta::dse {

using nlohmann::json;

std::string format_accuracy_line(const FormatAccuracy& f) {
  if (!f.unrepresentable.empty()) return f.reason;
  return fmt::format("W{0}A{0} acc{1}: held-out top-1 {2:.4f} (calibrated {3:.4f}, float {4:.4f}), bound {5:.4f}: {6}; "
                     "accumulator wraps {7} of {8}; {9}",
                     f.precision, f.acc_bits, f.tuned_accuracy, f.calibrated_accuracy, f.float_accuracy, f.bound,
                     f.meets ? "keeps it" : "misses it", f.wrap_total().wrapped, f.wrap_total().elements,
                     f.cached ? "cached" : fmt::format("{:.1f} s", f.seconds));
}

std::string format_accuracy_table(const std::vector<FormatAccuracy>& formats, FormatAccuracyStep& step) {
  const AccuracyBoundOptions& o = step.options();
  std::string t = fmt::format(
      "accuracy per format: held-out images [{}, {}), tuned ({}, at most {} evaluations) on [0, {}); bound {:.4f}\n",
      o.tune_images, o.tune_images + o.holdout_images, o.mode, o.limit, o.tune_images, step.bound());
  t += fmt::format("{:<14} {:>7} {:>10} {:>7} {:>7} {:>7}  {:>14} {:>8}  {}\n", "format", "float", "calibrated", "tuned",
                   "drop", "steps", "acc. wraps", "warned", "verdict");
  for (const FormatAccuracy& f : formats) {
    if (!f.unrepresentable.empty()) {
      t += fmt::format("{:<14} {:>7.4f} {:>10} {:>7} {:>7} {:>7}  {:>14} {:>8}  {}\n",
                       fmt::format("W{0}A{0} acc{1}", f.precision, f.acc_bits), f.float_accuracy, "-", "-", "-", "-", "-",
                       "-", "infeasible: the model's formats do not fit");
      continue;
    }
    t += fmt::format("{:<14} {:>7.4f} {:>10.4f} {:>7.4f} {:>7.2f} {:>7}  {:>14} {:>8}  {}\n",
                     fmt::format("W{0}A{0} acc{1}", f.precision, f.acc_bits), f.float_accuracy, f.calibrated_accuracy,
                     f.tuned_accuracy, 100 * (f.float_accuracy - f.tuned_accuracy), f.tune_evaluations,
                     fmt::format("{:.2e}", f.wrap_rate()), f.compile_warnings.size(),
                     !f.meets ? "infeasible" : f.wrap_total().wrapped > 0 ? "keeps the bound; its accumulator wraps" : "keeps the bound");
  }
  // The formats each feasible format was tuned to, and where its accumulator wrapped.
  for (const FormatAccuracy& f : formats) {
    if (!f.meets) continue;
    t += fmt::format("\nW{0}A{0} acc{1}, tuned per-layer formats (overflow rate on the tuning split):\n", f.precision,
                     f.acc_bits);
    for (const auto& [value, name] : f.tuned_names) {
      const auto r = f.overflow_rate.find(value);
      t += fmt::format("  {:<56} {:<8} {}\n", value, name, r == f.overflow_rate.end() ? "-" : fmt::format("{:.2e}", r->second));
    }
    std::string wrapped;
    for (const LayerWraps& w : f.wraps) {
      if (w.count.wrapped > 0) wrapped += fmt::format("  {:<56} {} of {}\n", w.node, w.count.wrapped, w.count.elements);
    }
    t += wrapped.empty() ? "  accumulator wraps on the held-out images: none\n"
                         : "  accumulator wraps on the held-out images, by layer:\n" + wrapped;
  }
  return t;
}

json accuracy_options_json(FormatAccuracyStep& step) {
  const AccuracyBoundOptions& o = step.options();
  return {{"images", o.images},
          {"labels", o.labels},
          {"max_accuracy_drop_points", o.max_drop_points},
          {"min_accuracy", o.min_accuracy},
          {"tuning_split", {0, o.tune_images}},
          {"holdout_split", {o.tune_images, o.tune_images + o.holdout_images}},
          {"mode", o.mode},
          {"limit", o.limit},
          {"settings", step.settings()}};
}

json accuracy_summary(const std::vector<FormatAccuracy>& formats, FormatAccuracyStep& step) {
  json fs = json::array();
  for (const FormatAccuracy& f : formats) fs.push_back(to_json(f));
  return {{"float_accuracy", step.float_accuracy()}, {"bound", step.bound()}, {"formats", fs}};
}

void write_best_network(DseWorkload& workload, const FormatAccuracy& f, const hw::HwConfig& config,
                        const std::filesystem::path& dir) {
  std::string text = fmt::format("# {}: tuned formats (held-out top-1 {:.4f}), from tauvta dse\n", f.key, f.tuned_accuracy);
  for (const auto& [value, name] : f.tuned_names) text += fmt::format("{}={}\n", value, name);
  std::filesystem::create_directories(dir);
  write_file_atomic(dir / "formats.txt", text);
  const auto m = workload.loaded(config);
  const graph::QuantizeResult q = model::requantize(*m, f.tuned_formats);
  backend::CompiledNetwork net = backend::compile_network(q.graph, config);
  backend::attach_quant_source(net, m->float_graph, q, m->quant_options);
  backend::save_network(net, dir / "network.tauvta", /*force=*/true);
}

}  // namespace tauvta::dse
