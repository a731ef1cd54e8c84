// `tauvta precision tune` as a call: the CLI and the Python module (tauvta.precision_tune) fill
// PrecisionTuneRequest and get result.json's content back; tables go to `out`.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model_source.h"

namespace tauvta::precision {

struct PrecisionTuneRequest {
  model::ModelSource model;
  std::string images, labels, out, html, start = "calibrated", mode = "otune";
  double threshold = 1e-4, min_gain = 0;
  int limit = 64, radius = 2, boards = 0;
  int64_t tune_images = 2000, holdout = -1, batch = 50;
  bool quiet = false;
  std::function<void(const std::string&)> progress;  // unset: lines on stderr (unless quiet)
};

// `precision show`: every slot's format ({model, config, slots: [{index, value, node, op, bits,
// format, frac_bits, on}]}) of a model quantized for a config, or of a .tauvta; the table to `out`.
nlohmann::json show_formats(const model::ModelSource& a, std::ostream& out);

struct FormatSetRequest {
  std::string artifact, out;
  std::vector<std::string> changes;  // LAYER=Qx.y
  bool force = false;
};

// `precision set`: patches the artifact's formats; returns {artifact, changes: {value: {from, to}},
// patched_layers, cpu_layers}.
nlohmann::json set_formats_in_artifact(const FormatSetRequest& a, std::ostream& out);

// Tunes, writes DIR/tuned.tauvta, result.json, tables.md, steps.csv, layers.csv (and --html), and
// returns result.json's content.
nlohmann::json tune_formats(const PrecisionTuneRequest& a, std::ostream& out);

}  // namespace tauvta::precision
