// The options `tauvta run` and `tauvta accuracy` share: the model, the hardware config whose
// widths quantization targets, calibration data and statistic, per-channel weights, pass dumps.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>

#include "graph/tensor.h"
#include "hw/hw_config.h"
#include "model/pipeline.h"

namespace tauvta::cli {

struct ModelArgs {
  std::string model;
  std::string config;
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
};

// The config these arguments name: config_value, else --config (a file or VTA name), else Pynq.
hw::HwConfig model_config(const ModelArgs& a);
// Whether a config was given at all.
inline bool has_config(const ModelArgs& a) { return a.config_value || !a.config.empty(); }

// `model_required` false: the positional model may be omitted (the command supplies a default).
void add_model_args(CLI::App* cmd, ModelArgs& a, bool model_required = true);

// Sets the process-wide tensor size limit from --max-tensor-mib; throws on a non-positive value.
void apply_tensor_limit(int64_t mib);

// The pipeline options these arguments ask for (quantizing when `quantize`); applies the tensor
// size limit.
model::LoadOptions load_options(const ModelArgs& a, bool quantize);

// The arguments as a Slurm worker rebuilds them (paths absolute, the config as its content), and
// back. Throws nlohmann::json's exceptions on a malformed spec.
nlohmann::json model_args_spec(const ModelArgs& a);
ModelArgs model_args_from_spec(const nlohmann::json& j);

// Loads the model, printing progress and every warning ("warning: ...") to stderr.
model::LoadedModel load_for_cli(const ModelArgs& a, const model::LoadOptions& o);

// Report fields both commands write: model, config (fully resolved), pass times, quantization.
nlohmann::json model_report(const ModelArgs& a, const model::LoadOptions& o, const model::LoadedModel& m);

}  // namespace tauvta::cli
