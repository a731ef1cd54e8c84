// Evaluating one assignment of per-layer formats: quantize the model again from its calibration
// statistics at those binary points, compile it for the config, classify a split of a labelled
// dataset on simulated boards (bit-exact) with the overflow instrument on every accelerator layer,
// and report accuracy plus each format slot's overflow rate (OTune's Eq. 1). The graph input's
// Quantize runs on the host; its overflow is counted there, from the same images.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "backend/compile_network.h"
#include "backend/network.h"
#include "model/pipeline.h"
#include "precision/formats.h"

namespace tauvta::precision {

struct EvaluatorSettings {
  int64_t batch = 50;  // images per simulated run
  int boards = 2;      // simulated boards running batches in parallel
  backend::CompileOptions compile;  // schedules (batch is set from `batch`)
};

struct Evaluation {
  Formats formats;
  int64_t begin = 0, images = 0, correct = 0;
  double accuracy = 0;
  std::map<std::string, double> overflow_rate;  // by slot value
  std::map<std::string, int64_t> pre_cast_max;  // largest value before the cast (output units)
  double seconds = 0;
  // The largest overflow rate over the slots.
  double max_overflow_rate() const;
};

class PrecisionEvaluator {
 public:
  // `m` must be quantized for `config`'s widths and outlive the evaluator. images: IDX uint8
  // [N, rows, cols] (fed as pixels / 255), labels uint8 [N].
  PrecisionEvaluator(const model::LoadedModel& m, const hw::HwConfig& config, const graph::Tensor& images,
                     const graph::Tensor& labels, EvaluatorSettings settings);

  const std::vector<FormatSlot>& slots() const { return slots_; }  // at the calibrated formats
  const hw::HwConfig& config() const { return config_; }
  int64_t dataset_images() const { return images_.shape()[0]; }

  // Slots missing from `f` keep their calibrated format.
  Formats complete(const Formats& f) const;
  backend::CompiledNetwork compile(const Formats& f) const;
  Evaluation evaluate(const Formats& f, int64_t begin, int64_t count,
                      const std::function<void(int64_t, int64_t)>& progress = {}) const;

 private:
  const model::LoadedModel& m_;
  hw::HwConfig config_;
  const graph::Tensor& images_;
  const graph::Tensor& labels_;
  EvaluatorSettings settings_;
  std::vector<FormatSlot> slots_;
};

}  // namespace tauvta::precision
