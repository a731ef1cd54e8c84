// The model pipeline: one linear list of passes from an .onnx file to the graph the references
// run. import -> shape inference -> constant folding -> batch-norm folding -> dead-node removal,
// then optionally calibrate (float reference over sample inputs) -> quantize. With a dump
// directory, print_graph() of the graph after each pass goes to DIR/NN-<pass>.txt.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "graph/graph.h"
#include "graph/quantize.h"
#include "hw/hw_config.h"

namespace tauvta::model {

struct LoadOptions {
  // > 0: the batch size every graph input's first dimension is set to (also when the file
  // fixes it to 1, as exporters often do). 0: the inputs' first dimension becomes dynamic, so
  // the references run any batch; the batch the file declares stays in declared_inputs.
  int64_t batch = 0;
  bool quantize = false;
  hw::HwConfig config;  // activation, weight and accumulator widths
  // Calibration data: a directory of .npy files, one .npy file, an IDX image file (pixels / 255,
  // NCHW), or empty for synthetic N(0, 1) inputs (with a warning).
  std::filesystem::path calibrate;
  int64_t calib_samples = 512;  // at most this many samples
  int64_t calib_batch = 64;     // samples per float run
  graph::CalibStatistic calib_stat = graph::CalibStatistic::kMax;
  double percentile = 99.99;
  graph::CalibStatistic weight_stat = graph::CalibStatistic::kMse;
  bool per_channel = false;
  std::filesystem::path dump_dir;  // empty: no dumps
  bool force = false;              // overwrite existing dump files
  // Progress lines ("calibrating: 3/8 batches"); may be empty.
  std::function<void(const std::string&)> progress;
};

struct PassTiming {
  std::string pass;
  double seconds = 0;
};

struct LoadedModel {
  graph::Graph float_graph;  // after dead-node removal: what the float reference runs
  bool quantized = false;
  graph::QuantizeResult quant;  // quant.graph: what the integer reference runs (when quantized)
  std::vector<std::string> warnings;  // calibration source, accumulator overflow risks, ...
  // Weight formats an imported quantized model fixes (graph/fake_quant.h); its activation
  // formats are the float graph's FakeQuant nodes.
  std::map<std::string, graph::WeightFormat> weight_formats;
  std::vector<PassTiming> timings;
  // What quantization started from, kept so the precision tools can quantize again at other
  // binary points without calibrating again.
  graph::CalibrationStats stats;
  graph::QuantizeOptions quant_options;
  int64_t calib_samples = 0;  // samples calibration saw
  std::string calib_source;   // what they were ("synthetic", a path)

  // The graph inputs' shapes as the file declares them (-1: a symbolic or unknown dimension),
  // with LoadOptions::batch as the first dimension when it is given; see default_batch().
  std::vector<std::pair<std::string, graph::Shape>> declared_inputs;
  // > 0 when the model only runs at the batch it declares (an exporter baked that batch into a
  // Reshape or Expand target): the graph keeps that batch and calibration runs at it.
  int64_t pinned_batch = 0;

  const graph::Graph& graph() const { return quantized ? quant.graph : float_graph; }
};

LoadedModel load_model(const std::filesystem::path& path, const LoadOptions& options);

// Which inputs carry the batch in their first dimension, given their declared shapes (empty:
// unknown) and which are shape operands (1-D integer inputs, never): all of them when their static
// first dimensions agree; when they do not (matrices of different heights: ONNX's
// test_operator_mm), only the image-like ones (rank 3 or more).
std::vector<bool> batch_inputs(const std::vector<graph::Shape>& shapes, const std::vector<bool>& shape_operand);

// An imported graph with the first dimension of its batch-carrying inputs set to `batch` (0: dynamic, so that
// the references run any batch size even when the exporter fixed it to 1); every other value
// whose declared shape starts with an input's old first dimension is left to shape inference.
graph::Graph set_batch(graph::Graph g, int64_t batch);

// The batch a model is compiled for unless told otherwise: the first dimension its batch-carrying
// inputs declare (LoadOptions::batch when that was given), 1 when none declares one (symbolic or
// unknown). Image inputs declaring different batches are an error naming them and their shapes.
int64_t default_batch(const LoadedModel& m);
// Whether any batch-carrying input declares a static first dimension (false: symbolic or none).
bool declares_batch(const LoadedModel& m);

// The model quantized again from its calibration statistics, with the given activation formats
// (float value name -> frac_bits) in place of calibration's choice; verified.
graph::QuantizeResult requantize(const LoadedModel& m, const std::map<std::string, int>& formats);

// The fully resolved quantization settings (widths, statistic, calibration source, per-layer
// shifts and clip bounds) as JSON, for reports.
nlohmann::json quantization_settings(const LoadOptions& options, const LoadedModel& m);

}  // namespace tauvta::model
