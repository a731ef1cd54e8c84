// `tauvta dse` as a call: the CLI and the Python module (tauvta.dse) fill DseArgs and get
// summary.json's content back; the end table goes to `out`.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/model_args.h"
#include "dse/slurm_runner.h"
#include "dse/strategy.h"

namespace tauvta::cli {

struct DseArgs {
  model::ModelSource model;
  std::string workload;
  std::string device = "pynq-z1";
  std::string precisions = "8,4,2,1";
  dse::StrategyOptions strategy;
  int threads = 0;
  std::string out, html;
  bool verify = false, quiet = false;
  bool slurm = false;          // evaluate every batch as a Slurm job array (docs/slurm.md)
  cluster::ArrayOptions slurm_options;
  std::function<void(const std::string&)> progress;  // unset: the terminal's progress line (unless quiet)
};

nlohmann::json dse_command(const DseArgs& a, std::ostream& out);

// What a Slurm worker needs to rebuild the coordinator's workload and evaluator: the options
// that decide results, with paths made absolute and the --config resolved to its content.
nlohmann::json dse_job_spec(const DseArgs& a);
DseArgs dse_args_from_job(const nlohmann::json& job);

// `tauvta dse worker ROUND_DIR`: one array task's shard of a round (dse/slurm_runner.h).
struct DseWorkerArgs {
  std::string round_dir;
  int task = -1;    // -1: $SLURM_ARRAY_TASK_ID
  int threads = 1;
};
void dse_worker(const DseWorkerArgs& a, std::ostream& out);

// The evaluated designs an HTML page plots (DIR/evaluations.jsonl), at most `limit` of them.
nlohmann::json read_evaluations(const std::string& dir, size_t limit);

}  // namespace tauvta::cli
