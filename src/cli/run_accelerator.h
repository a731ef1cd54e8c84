// `tauvta run` on the accelerator (its default mode): compile (or load a .tauvta), run on the
// simulated board with CPU fallbacks interleaved, print the per-layer table and totals, write
// --report JSON and --csv. With --images/--labels (and always for the built-in default model),
// top-1 accuracy of float, integer reference and accelerator, with a progress bar.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "backend/network_instruments.h"
#include "backend/network_runner.h"
#include "cli/model_args.h"
#include "cli/network_args.h"
#include "cpu/float_executor.h"

namespace tauvta::cli {

// --instrument SPEC (repeatable), --trace-out DIR and the instruments' settings.
struct InstrumentArgs {
  std::vector<std::string> specs;
  std::string trace_out;
  sim::InstrumentSettings settings;
};
void add_instrument_args(CLI::App* cmd, InstrumentArgs& a);
backend::InstrumentRequest instrument_request(const InstrumentArgs& a);  // throws on a bad spec

struct AcceleratorRunArgs {
  model::ModelSource model;
  backend::NetworkRequest network;
  std::vector<std::string> inputs;
  std::string output_dir, report, csv, images, labels, html;
  int64_t limit = -1;
  bool timing_only = false, check_hazards = false, compare = false, quiet = false;
  InstrumentArgs instruments;
  int boards = 0;  // 0: one per core
};

void run_on_accelerator(AcceleratorRunArgs a);

// The run's report: the per-layer figures and totals (backend::network_report_json) with what
// building the network noted (model, passes, quantization, tuning log, batch).
nlohmann::json run_report(const backend::CompiledNetwork& net, const backend::NetworkRun& run,
                          const nlohmann::json& build_report);

}  // namespace tauvta::cli
