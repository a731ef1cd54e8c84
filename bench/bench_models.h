// What the end-to-end benchmarks share: a model scripts/make-models wrote, quantized for a config
// and calibrated on the sample input it wrote beside it (MODEL_input.npy), as the tests do.
#pragma once

#include <filesystem>
#include <string>

#include "hw/hw_config.h"
#include "model/pipeline.h"

namespace tauvta::bench {

// MODEL_input.npy beside `model`; empty when there is none.
inline std::filesystem::path sample_input(const std::string& model) {
  const std::filesystem::path input = std::filesystem::path(model).replace_extension("").string() + "_input.npy";
  return std::filesystem::exists(input) ? input : std::filesystem::path();
}

inline model::LoadedModel load_quantized(const std::string& model, const hw::HwConfig& c) {
  model::LoadOptions lo;
  lo.quantize = true;
  lo.config = c;
  lo.calibrate = sample_input(model);
  return model::load_model(model, lo);
}

}  // namespace tauvta::bench
