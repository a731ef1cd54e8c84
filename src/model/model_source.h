// A model as a command or a library call asks for it: the file, the hardware config whose widths
// quantization targets, the calibration data and statistic, per-channel weights and pass dumps.
// `tauvta run`, `accuracy`, `compile`, `tune`, `dse` and `precision` and the Python module all
// build their networks from one of these, so the same options give the same quantized model.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "graph/tensor.h"
#include "hw/hw_config.h"
#include "model/pipeline.h"

namespace tauvta::model {

struct ModelSource {
  std::string model;
  std::string config;  // a file or VTA name (hw::load_config); empty: the built-in Pynq-Z1
  std::string calibrate;
  std::string calib_stat = "max";
  double percentile = 99.99;
  std::string weight_stat = "mse";
  bool per_channel = false;
  int64_t calib_samples = 512;
  std::string dump_passes;
  bool force = false;
  int64_t max_tensor_mib = graph::kDefaultTensorByteLimit >> 20;
  // A config given as a value (the Python module's HwConfig), used instead of `config`'s file.
  std::optional<hw::HwConfig> config_value;
  // The pipeline's progress lines (unset: the terminal's progress line).
  std::function<void(const std::string&)> progress;
  // Each warning of the import and quantization (unset: "warning: ..." lines on stderr).
  std::function<void(const std::string&)> warn;
};

// The config: config_value, else `config` (a file or VTA name), else the built-in Pynq-Z1.
hw::HwConfig source_config(const ModelSource& s);
// Whether a config was given at all.
inline bool has_config(const ModelSource& s) { return s.config_value || !s.config.empty(); }

// Sets the process-wide tensor size limit (MiB); throws on a value outside 1..2^40.
void apply_tensor_limit(int64_t mib);

// The pipeline options the source asks for (quantizing when `quantize`); applies the tensor size
// limit.
LoadOptions load_options(const ModelSource& s, bool quantize);

// Loads the model, reporting every warning through `s.warn`.
LoadedModel load_source(const ModelSource& s, const LoadOptions& o);

// Report fields every command writes: model, config (fully resolved), pass times, quantization.
nlohmann::json source_report(const ModelSource& s, const LoadOptions& o, const LoadedModel& m);

// The source as a Slurm worker rebuilds it (paths absolute, the config as its content), and back.
// Throws nlohmann::json's exceptions on a malformed spec.
nlohmann::json source_spec(const ModelSource& s);
ModelSource source_from_spec(const nlohmann::json& j);

}  // namespace tauvta::model
