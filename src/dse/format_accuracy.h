// The exploration's accuracy step: for each numeric format a precision's design space contains
// (input and weight bits, accumulator bits; outputs are as wide as inputs), the best top-1 accuracy
// the model keeps on the accelerator. Calibrated quantization, then per-layer precision tuning
// (OTune's loop or the format search, precision/tuner.h) on a tuning split of a labelled dataset,
// then top-1 on a held-out split through the integer reference, which is bit-exact with the
// accelerator, so one run per format serves every design with that format. The same run counts
// every layer's accumulator wraps (cpu/accumulator_wraps.h) beside the compile-time worst case.
// A format whose held-out accuracy is below the bound makes its designs infeasible, with the
// reason. Results are kept per model, data, format and settings in DIR/accuracy.jsonl (the same
// command resumes from it; a tuning resumes from DIR/accuracy/FORMAT/checkpoint.json).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cpu/accumulator_wraps.h"
#include "dse/design_space.h"
#include "dse/result_cache.h"
#include "dse/workload.h"
#include "graph/tensor.h"

namespace tauvta::dse {

struct AccuracyBoundOptions {
  std::string images, labels;     // IDX files; empty: no accuracy step
  double max_drop_points = -1;     // bound = float held-out accuracy - this / 100
  double min_accuracy = -1;        // bound = this (when max_drop_points < 0)
  int64_t tune_images = 1000;      // tuning split [0, tune_images)
  int64_t holdout_images = 1000;   // held-out split [tune_images, tune_images + holdout_images)
  std::string mode = "otune";      // otune or search
  int limit = 8;                   // tuning evaluations per format at most
  int boards = 0;                  // simulated boards per tuning evaluation (0: every core)
  bool enabled() const { return !images.empty(); }
};

// Throws tauvta::Error naming the option when the options are inconsistent (a bound without data,
// data without a bound, both bounds, splits out of range); `dataset_images` < 0: not yet known.
void check_accuracy_options(const AccuracyBoundOptions& o, int64_t dataset_images = -1);

struct LayerWraps {
  std::string node;  // the integer graph's node
  cpu::WrapCount count;
};

struct FormatAccuracy {
  std::string key;  // "w4a4_acc16"
  int precision = 8, acc_bits = 32;
  int64_t holdout_begin = 0, holdout_images = 0;
  double float_accuracy = 0;       // the float model, held-out split
  double calibrated_accuracy = 0;  // calibrated formats, held-out split
  double tuned_accuracy = 0;       // tuned formats, held-out split (the format's accuracy)
  double tune_split_accuracy = 0;  // tuned formats, tuning split
  int tune_evaluations = 0, best_step = 0;
  std::map<std::string, int> tuned_formats;        // value -> frac_bits
  std::map<std::string, std::string> tuned_names;  // value -> "Qx.y"
  std::map<std::string, double> overflow_rate;     // value -> rate on the tuning split (best step)
  std::vector<LayerWraps> wraps;                   // held-out split, tuned formats, per layer
  std::vector<std::string> compile_warnings;       // the worst-case accumulator warnings
  // Why the model cannot be quantized at this format at all (an imported quantized model whose
  // ranges do not fit its widths); "" when it can. Such a format has no accuracy and misses any bound.
  std::string unrepresentable;
  double seconds = 0;
  bool cached = false;
  // Set against the bound (not cached: a new bound reuses the accuracies).
  double bound = -1;
  bool meets = true;
  std::string reason;  // why it misses the bound ("" when it meets it)
  cpu::WrapCount wrap_total() const;  // over the layers
  double wrap_rate() const { return wrap_total().rate(); }
};

nlohmann::json to_json(const FormatAccuracy& f);
FormatAccuracy format_accuracy_from_json(const nlohmann::json& j);
// "w4a4_acc16"
std::string format_key(int precision, int acc_bits);

class FormatAccuracyStep {
 public:
  // Reads the dataset now (a missing or malformed file fails before the search).
  FormatAccuracyStep(DseWorkload& workload, const AccuracyBoundOptions& options, const std::filesystem::path& out_dir,
                     std::function<void(const std::string&)> progress);

  // Every format of `space` (the accumulator widths its constraints allow), evaluated or read back,
  // each judged against the bound. Kept for verdict() until the step is destroyed.
  std::vector<FormatAccuracy> evaluate(const DesignSpace& space);
  // The evaluated format of a design, or null (not evaluated: no verdict).
  std::shared_ptr<const FormatAccuracy> find(int precision, int acc_bits) const;
  double float_accuracy();
  double bound();
  const AccuracyBoundOptions& options() const { return options_; }
  // The settings the cache key holds: data content, splits, tuning mode and limit.
  const std::string& settings() const { return settings_; }

 private:
  FormatAccuracy compute(const DesignSpace& space, int acc_bits);
  void judge(FormatAccuracy& f);

  DseWorkload& workload_;
  AccuracyBoundOptions options_;
  std::filesystem::path dir_;
  std::function<void(const std::string&)> progress_;
  graph::Tensor images_, labels_;
  std::string settings_;
  std::unique_ptr<ResultCache> cache_;  // opened once the options are known good (nothing written before)
  double float_accuracy_ = -1;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const FormatAccuracy>> done_;
};

}  // namespace tauvta::dse
