// `tauvta op --log FILE`: every VTA record of an AutoTVM/TopHub log run as `op --record` would
// run it, one table row per record (the model's cycles and GOPS beside the board's recorded time).
#pragma once

#include <string>

namespace tauvta::cli {

struct OpLogArgs {
  std::string log;
  std::string config;  // empty: each record's own config (from its -model= name)
  std::string timing;  // --timing: TIMING keys replaced in every record's config
  std::string report, csv;
  bool timing_only = false, check_hazards = false, force = false, bias = false;
  uint64_t seed = 1;
};

// Throws tauvta::Error (exit 1) when any record failed, after printing every row.
void run_op_log(const OpLogArgs& a);

}  // namespace tauvta::cli
