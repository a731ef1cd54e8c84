// The options every model-taking command shares (model::ModelSource): the model, the hardware
// config whose widths quantization targets, calibration data and statistic, per-channel weights,
// pass dumps.
#pragma once

#include <CLI/CLI.hpp>

#include "model/model_source.h"

namespace tauvta::cli {

// `model_required` false: the positional model may be omitted (the command supplies a default).
void add_model_args(CLI::App* cmd, model::ModelSource& a, bool model_required = true);

}  // namespace tauvta::cli
