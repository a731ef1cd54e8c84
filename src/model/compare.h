// Float vs integer reference on the same inputs: per output the largest absolute error, cosine
// similarity and top-1 agreement; per quantized layer the quantization error of its output
// (dequantized) against the float value it stands for, and how much of the float value fell
// outside the format's range (the overflow rate the precision tools tune against).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cpu/int_executor.h"
#include "model/pipeline.h"

namespace tauvta::model {

struct OutputComparison {
  std::string name;
  int64_t elements = 0;
  double max_abs_error = 0;
  double cosine = 0;
  int64_t rows = 0;        // rows of the last axis (samples)
  int64_t top1_agree = 0;  // rows whose argmax is the same
};

struct LayerComparison {
  std::string value;  // float graph value
  std::string node;   // producing node in the quantized graph
  std::string op;
  int bits = 0, frac_bits = 0;
  double float_abs_max = 0;
  double max_abs_error = 0;
  double rms_error = 0;
  double cosine = 0;
  double out_of_range = 0;  // fraction of float values beyond the format's range
};

struct Comparison {
  std::vector<OutputComparison> outputs;
  std::vector<LayerComparison> layers;
};

// Runs both references on `inputs` (the model must be quantized) and compares. The outputs of
// both runs are returned through the two maps.
Comparison compare_with_float(const LoadedModel& m, const cpu::TensorMap& inputs, cpu::TensorMap& float_outputs,
                              cpu::TensorMap& int_outputs, const cpu::IntRunOptions& options = {});

// Two readable tables (outputs, then layers in graph order).
std::string format_comparison(const Comparison& c);

double cosine_similarity(std::span<const float> a, std::span<const float> b);

}  // namespace tauvta::model
