// `tauvta dse` as a call: the CLI and the Python module (tauvta.dse) fill ExplorationRequest and get
// summary.json's content back; the end table goes to `out`.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/model_source.h"
#include "dse/format_accuracy.h"
#include "dse/slurm_runner.h"
#include "dse/strategy.h"

namespace tauvta::dse {

struct ExplorationRequest {
  model::ModelSource model;
  std::string workload;
  std::string device = "pynq-z1";
  std::string precisions = "8,4,2,1";
  StrategyOptions strategy;
  int threads = 0;
  std::string out, html;
  bool verify = false, quiet = false;
  int rtl_check = 0;           // run the K best designs' networks on the generated RTL (dse/rtl_check.h)
  AccuracyBoundOptions accuracy;  // --images/--labels and a bound: only formats that keep it are feasible
  bool slurm = false;          // evaluate every batch as a Slurm job array (docs/slurm.md)
  cluster::ArrayOptions slurm_options;
  std::function<void(const std::string&)> progress;  // unset: the terminal's progress line (unless quiet)
};

nlohmann::json run_exploration(const ExplorationRequest& a, std::ostream& out);

// What a Slurm worker needs to rebuild the coordinator's workload and evaluator: the options
// that decide results, with paths made absolute and the --config resolved to its content.
nlohmann::json exploration_job_spec(const ExplorationRequest& a);
ExplorationRequest exploration_from_job(const nlohmann::json& job);

// `tauvta dse worker ROUND_DIR`: one array task's shard of a round (dse/slurm_runner.h).
struct ExplorationWorkerRequest {
  std::string round_dir;
  int task = -1;    // -1: $SLURM_ARRAY_TASK_ID
  int threads = 1;
};
void run_exploration_worker(const ExplorationWorkerRequest& a, std::ostream& out);

// The evaluated designs an HTML page plots (DIR/evaluations.jsonl), at most `limit` of them.
nlohmann::json read_evaluations(const std::string& dir, size_t limit);

}  // namespace tauvta::dse
