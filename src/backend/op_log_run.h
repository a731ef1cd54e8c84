// `tauvta op`: one workload's JSON report, and `op --log FILE`: every VTA record of an AutoTVM/TopHub
// log run as `op --record` would run it, one table row per record (the model's cycles and GOPS
// beside the board's recorded time).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <vector>

#include <nlohmann/json.hpp>

#include "backend/op_runner.h"
#include "hw/hw_config.h"
#include "lower/tuning_record.h"
#include "lower/workload.h"

namespace tauvta::backend {

// What `op --report` writes for one run of workload `w` (source: where its schedule came from;
// recorded_seconds: the board's time from a record, 0 when none).
nlohmann::json op_report_json(const hw::HwConfig& config, const lower::ConvWorkload& w, const std::string& source,
                              const OpRun& r, const std::vector<std::string>& notes, double recorded_seconds);

// The -model= config of the board a record ran: its own, or, when its tensors are blocked for
// another GEMM shape, the known board config of that shape (hw::board_config_with_shape; a note
// in `notes` says so). Without one, its own (record_schedule then rescales its tiles).
std::string record_board_model(const lower::TuningRecord& r, std::vector<std::string>* notes);

struct OpLogRequest {
  std::string log;
  std::string config;  // empty: each record's own config (from its -model= name)
  std::string timing;  // --timing: TIMING keys replaced in every record's config
  std::string report, csv, html;
  bool timing_only = false, check_hazards = false, force = false, bias = false;
  uint64_t seed = 1;
  // Time each record with the bitstream it was measured on (hw/bitstreams.h) when its hardware
  // differs from the HLS design; false: every record with its config's HLS design. Not with
  // `config` (the user's config is what is timed).
  bool bitstreams = true;
};

// Prints every row to `out`, writes --report/--csv/--html, and returns the report. Throws
// tauvta::Error (exit 1) when any record failed, after all of that.
nlohmann::json run_op_log(const OpLogRequest& a, std::ostream& out);

}  // namespace tauvta::backend
