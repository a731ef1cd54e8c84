// `tauvta tune` as a call: the CLI and the Python module (tauvta.tune) fill TuneArgs and get the
// JSON report back; tables and the summary go to `out`.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/model_args.h"
#include "tune/tuner.h"

namespace tauvta::cli {

struct TuneArgs {
  ModelArgs model;
  std::optional<int64_t> batch;  // unset: the batch the model declares
  std::string workload, log, csv, report, html, transfer, tasks, objective = "rank";
  tune::TuneOptions options;
  int threads = 0;
  bool no_verify = false, no_prior = false, full_timing = false, quiet = false;
  tune::ProgressFn progress;  // unset: the terminal's progress line (unless quiet)
};

// Tunes, appends every trial to a.log and returns the report --report writes (also writing
// --csv/--report/--html when given).
nlohmann::json tune_command(const TuneArgs& a, std::ostream& out);

}  // namespace tauvta::cli
