// A network run on the simulated accelerator, as `tauvta run` (its default mode) does it: compile
// (or load a .tauvta), run on the simulated board with CPU fallbacks interleaved, write the
// per-layer table and totals to a stream, and --report JSON, --csv and --html. With images and
// labels, top-1 accuracy of float, integer reference and accelerator over parallel boards, with a
// progress bar; with instruments, what they observed.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/build_network.h"
#include "backend/network_instruments.h"
#include "backend/network_runner.h"
#include "model/model_source.h"

namespace tauvta::backend {

// Which layers are observed and how (--instrument SPEC, --trace-out DIR, the settings).
struct InstrumentOptions {
  std::vector<std::string> specs;
  std::string trace_out;
  sim::InstrumentSettings settings;
};
InstrumentRequest instrument_request(const InstrumentOptions& o);  // throws on a bad spec

struct AcceleratorRunRequest {
  model::ModelSource model;
  NetworkRequest network;
  std::vector<std::string> inputs;  // NAME=FILE (.npy or .pb)
  std::string output_dir, report, csv, images, labels, html;
  int64_t begin = 0;   // first image of --images
  int64_t limit = -1;
  bool timing_only = false, check_hazards = false, compare = false, quiet = false;
  bool rtl = false;  // also run every accelerator program on the generated RTL (Verilator)
  // With images: skip the integer reference that checks every image's outputs bit for bit
  // (throughput runs; the accelerator's accuracy is the same either way).
  bool no_check = false;
  InstrumentOptions instruments;
  int boards = 0;  // 0: one per core
};

// Throws tauvta::Error when the accelerator's outputs differ from the integer reference or the
// run found hazards (after writing the reports). Returns the report --report writes.
nlohmann::json run_on_accelerator(const AcceleratorRunRequest& a, std::ostream& out);

// The run's report: the per-layer JSON with the build's fields (model, batch, passes, ...).
nlohmann::json run_report(const CompiledNetwork& net, const NetworkRun& run, const nlohmann::json& build_report);

}  // namespace tauvta::backend
