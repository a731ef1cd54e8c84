// How the accuracy step's results are shown and kept: a progress line per format, the terminal
// table (float vs calibrated vs tuned held-out accuracy, the bound, accumulator wraps), the
// summary.json section, and the chosen design's runnable network with its tuned formats.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dse/format_accuracy.h"
#include "hw/hw_config.h"

namespace tauvta::dse {

// "W4A4 acc16: held-out top-1 0.7920 (calibrated 0.7810, float 0.8920), bound 0.8820: misses; 12.3 s"
std::string format_accuracy_line(const FormatAccuracy& f);
std::string format_accuracy_table(const std::vector<FormatAccuracy>& formats, FormatAccuracyStep& step);
nlohmann::json accuracy_options_json(FormatAccuracyStep& step);
nlohmann::json accuracy_summary(const std::vector<FormatAccuracy>& formats, FormatAccuracyStep& step);

// DIR/formats.txt (LAYER=Qx.y lines, `precision tune --start` reads them) and DIR/network.tauvta:
// the model quantized at `f`'s tuned formats and compiled for `config` (batch 1), so
// `tauvta run DIR/network.tauvta --images I --labels L --begin B --limit N` gives the held-out
// accuracy the exploration reports.
void write_best_network(DseWorkload& workload, const FormatAccuracy& f, const hw::HwConfig& config,
                        const std::filesystem::path& dir);

}  // namespace tauvta::dse
