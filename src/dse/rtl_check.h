// `dse --rtl-check K`: the exploration's K best designs of each precision run their network on the
// generated accelerator in Verilator (backend::RtlDriver): every program compared with the
// simulator bit for bit, the conv/dense layers' RTL cycles beside the cycles the exploration
// ranked the design by. The check the exploration's own timing rests on, for the designs it
// recommends.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dse/evaluator.h"
#include "dse/explorer.h"
#include "dse/workload.h"

namespace tauvta::dse {

struct RtlCheck {
  int precision = 8;
  std::string design;        // the config's name
  double gops = 0;           // as the exploration ranked it
  uint64_t explored_cycles = 0;  // conv/dense cycles the exploration timed
  uint64_t rtl_cycles = 0;       // the same layers on the RTL
  uint64_t model_cycles = 0;     // the timing model with the RTL's depths (backend::rtl_timing)
  bool bit_exact = false;
  std::string problem;       // why not, when not
  double seconds = 0;
};

// Runs the check for the `k` feasible designs of highest GOPS of every precision, on one input
// (MODEL_input.npy beside the model when there is one, else a fixed pseudo-random input).
// `progress` gets a line per design.
std::vector<RtlCheck> rtl_check(DseWorkload& workload, const Evaluator& evaluator,
                                const std::vector<PrecisionResult>& results, int k,
                                const std::function<void(const std::string&)>& progress);
std::string rtl_check_table(const std::vector<RtlCheck>& checks);
nlohmann::json rtl_check_json(const std::vector<RtlCheck>& checks);

}  // namespace tauvta::dse
