// `tauvta tune` as a call: the CLI and the Python module (tauvta.tune) fill a TuneRequest and get
// the JSON report back; tables and the summary go to `out`.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/model_source.h"
#include "backend/build_network.h"
#include "cluster/array_round.h"
#include "tune/task.h"
#include "tune/tuner.h"

namespace tauvta::tune {

struct TuneRequest {
  model::ModelSource model;
  std::optional<int64_t> batch;  // unset: the batch the model declares
  std::string workload, log, csv, report, html, transfer, tasks, objective = "rank";
  TuneOptions options;
  int threads = 0;
  bool no_verify = false, no_prior = false, full_timing = false, quiet = false;
  ProgressFn progress;  // unset: the terminal's progress line (unless quiet)
  bool slurm = false;         // tune the tasks as a Slurm job array (docs/slurm.md)
  cluster::ArrayOptions slurm_options;
};

// The tuner's options as the arguments ask for them, checked (a bad value is a tauvta::Error).
TuneOptions resolved_tune_options(const TuneRequest& a);

// The tasks the arguments name (the model's, or --workload's; --tasks applied), on config `config`.
struct TuneTasks {
  hw::HwConfig config;
  std::vector<TuneTask> tasks;
  std::optional<backend::BuiltNetwork> built;  // for a model: the compiled network (end-to-end timing)
  nlohmann::json report;              // the model's report fields
};
TuneTasks make_tune_tasks(const TuneRequest& a);

// --slurm: tunes every task as a Slurm array task on a copy of the log, then appends what each
// added to a.log in task order (what a single-machine run appends), so the ordinary run that
// follows finds every trial finished. Rounds live in LOG.slurm/.
void tune_on_slurm(const TuneRequest& a, const TuneTasks& t, std::ostream& out);

// `tauvta tune worker ROUND_DIR`: one array task's share of the tasks.
struct TuneWorkerRequest {
  std::string round_dir;
  int task = -1;  // -1: $SLURM_ARRAY_TASK_ID
  int threads = 1;
};
void tune_worker(const TuneWorkerRequest& w, std::ostream& out);

// Tunes, appends every trial to a.log and returns the report --report writes (also writing
// --csv/--report/--html when given).
nlohmann::json run_tune(const TuneRequest& a, std::ostream& out);

}  // namespace tauvta::tune
