// The tuning loop of one task (TVM's Tuner.tune, tau-VTA's Algorithm 1 lines 4-10): ask the
// searcher for a batch, measure it on the pool, log every trial, tell the searcher, until the
// trial budget, the space or the early-stopping patience runs out. Trials already in the log are
// read back first and never measured again. Then the best (and a random sample of the others)
// runs on the functional simulator against the integer reference; a best that differs is logged
// as a wrong answer and the next best takes its place, so a wrong schedule can never win. A
// library call with no global state, deterministic for a seed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "tune/measurer.h"
#include "tune/searcher.h"
#include "tune/task.h"
#include "tune/trial_log.h"

namespace tauvta::tune {

struct TuneOptions {
  SearcherOptions searcher;
  int64_t trials = 1000;        // per task, counting trials resumed from the log
  int64_t early_stopping = 0;   // stop after this many trials without a better one (0: never)
  size_t batch = 64;            // candidates per ask/tell round (TVM measures 64 per plan)
  bool verify = true;           // run the best functionally against the integer reference
  int64_t verify_sample = 1;    // ... and this many other successful trials, drawn at random
  // Stop timing a candidate once it is slower than the best so far (AutoTVM's RUN_TIMEOUT);
  // false: every candidate is timed to the end (its cycles logged, for models trained later).
  bool stop_slower = true;
  // Records a task is given (a transfer log such as TopHub's): those of the task's own workload on
  // its config are measured first, with the default heuristic, so the tuner never returns a
  // schedule slower than what it was given. Null: the heuristic alone. Must outlive the tuning.
  const std::vector<lower::TuningRecord>* given = nullptr;
};

struct TaskProgress {
  size_t task = 0, tasks = 1;   // 0-based index, count
  const TuneTask* t = nullptr;
  int64_t trials = 0, budget = 0;
  double best_gops = 0;
  double trials_per_second = 0;  // this run's measured trials over its wall time
};
using ProgressFn = std::function<void(const TaskProgress&, bool last)>;

struct TaskResult {
  TuneTask task;
  std::string tuner;
  size_t space_size = 0;
  lower::Schedule default_schedule;
  Measurement default_measure;
  std::optional<lower::Schedule> best;
  Measurement best_measure;
  bool best_verified = false;
  int64_t trials = 0;          // in all, resumed included
  int64_t resumed = 0;         // read back from the log
  int64_t errors = 0;          // failed trials (AutoTVM error_no != 0, stopped ones included)
  int64_t stopped = 0;         // of which stopped at four times the best cycles (RUN_TIMEOUT)
  int64_t verified = 0;        // trials run functionally and bit-exact
  int64_t wrong = 0;           // trials run functionally that differed (never a best)
  int64_t trials_to_95 = 0;    // first trial reaching 95% of the best found
  bool early_stopped = false;
  std::vector<double> best_so_far;  // GOPS after each trial
  std::vector<std::pair<std::string, double>> importance;  // xgb: the final model's, best first
  double wall_seconds = 0;
  double measure_seconds = 0;  // in Measurer::measure
  int64_t measured = 0;        // trials measured in this run
  double trials_per_second() const { return wall_seconds > 0 ? double(measured) / wall_seconds : 0; }
};

// `log` may be null (nothing recorded, nothing resumed). `index`/`count` place the task in the
// progress line.
TaskResult tune_task(const TuneTask& task, const TuneOptions& o, Measurer& m, TrialLog* log,
                     const ProgressFn& progress = {}, size_t index = 0, size_t count = 1);

// A transfer set from measured records of other workloads or configs (a log read with
// lower::read_tuning_log), skipping `exclude` on `c` (the task being tuned) and records whose
// config name is unknown. Scores are GOPS normalized per (config, workload) group.
TransferSet transfer_set(const std::vector<lower::TuningRecord>& records, const hw::HwConfig& c,
                         const lower::ConvWorkload* exclude);

}  // namespace tauvta::tune
