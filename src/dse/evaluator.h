// Evaluating one design for the workload: the resource model first (feasible: fits the device and
// closes its implementation clock), then, for a feasible design, its conv/dense tasks timed
// timing-only (budget 0: the compiler's default heuristic schedule per task; budget N: N tuner
// trials per task, resumed from the design's tuning log). Time = the tasks' cycles times their
// layers, at the design's clock. A tuning works on a copy of the design's log that replaces it
// only when the tuning is done, so a killed evaluation leaves the log as the last finished one
// left it and its rerun tunes exactly as the first attempt would have. Results are kept in an on-disk cache (dse/result_cache.h) by
// design, workload and tuner settings, so a killed run resumes and a run with more budget reuses
// the tuning logs of the first. Thread-safe: every worker calls evaluate().
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dse/design_mapping.h"
#include "dse/design_space.h"
#include "dse/format_accuracy.h"
#include "dse/result_cache.h"
#include "dse/workload.h"
#include "fpga/resources.h"
#include "lower/schedule.h"

namespace tauvta::dse {

struct TaskTime {
  std::string name;
  int64_t layers = 1;
  uint64_t cycles = 0;  // one layer's (layers of a task with different epilogues are separate entries)
  uint64_t macs = 0;    // one layer's useful MACs
  lower::Schedule schedule;
  bool tuned = false;   // the tuner's best beat the heuristic
};

struct Evaluation {
  std::string key;   // DesignSpace::key
  int precision = 8;
  Design design{};
  int64_t budget = 0;  // tuner trials per task (0: default heuristic schedules)
  bool feasible = false;
  std::string reason;  // "fits", or what makes it infeasible (resource, clock, a layer)
  std::string verdict;  // its kind: "fits", "over LUT" (FF, DSP, BRAM36), "misses clock", "workload"
  fpga::Resources resources;
  double fmax_mhz = 0, clock_mhz = 0, peak_gops = 0;
  std::string critical_stage;
  uint64_t cycles = 0;  // all conv/dense layers
  uint64_t macs = 0;
  double gops = 0;        // conv/dense GOPS at the design's clock
  double latency_ms = 0;  // of the conv/dense layers
  std::vector<TaskTime> tasks;
  hw::HwConfig config;    // the mapped design (vta_config.json of the best)
  rtl::RtlOptions rtl;
  double wall_seconds = 0;
  bool cached = false;    // read back from the cache, not computed in this run
  double accuracy = -1;   // its format's held-out top-1 (dse/format_accuracy.h); -1: no accuracy step
  // Its format's accumulator: wrapped sums / sums on the held-out images, and the layers the
  // compile-time worst case warns about (-1: no accuracy step).
  double wrap_rate = -1;
  int accumulator_warnings = -1;
};

// The cache's form: tuned evaluations in full; screened ones (budget <= 0) without the mapped
// config and with per-task cycles only (the evaluator maps the design again when it reads one).
nlohmann::json to_json(const Evaluation& e);
Evaluation evaluation_from_json(const nlohmann::json& j);

struct EvaluatorOptions {
  hw::HwConfig board;               // the board's memory side (dse/design_mapping.h)
  std::string tuner = "xgb";        // searcher for budgets above 0
  uint64_t seed = 1;
  std::filesystem::path log_dir;    // tuning logs, one per timing-distinct design (empty: none kept)
  bool verify_best = false;         // run each tuned task's best functionally (tune::TuneOptions::verify)
  // The accuracy step's verdicts (may be null): a design whose format misses the bound is
  // infeasible ("accuracy") and not timed. Only formats it has evaluated are judged.
  const FormatAccuracyStep* accuracy = nullptr;
};

class Evaluator {
 public:
  // `cache` may be null (nothing kept between runs).
  Evaluator(DseWorkload& workload, const EvaluatorOptions& options, ResultCache* cache);

  // Throws tauvta::Error naming the constraint when `d` is outside the pruned space.
  Evaluation evaluate(const DesignSpace& space, const Design& d, int64_t budget);
  // Resources and feasibility only (no timing): what the model-guided strategies train on.
  Evaluation cost_only(const DesignSpace& space, const Design& d) const;

  const EvaluatorOptions& options() const { return options_; }
  ResultCache* cache() const { return cache_; }
  // The tuning log of a design mapped to `config` (empty path when no log directory).
  std::filesystem::path log_path(const hw::HwConfig& config) const;
  // The key the result cache keeps this evaluation under.
  std::string cache_key(const DesignSpace& space, const Design& d, int64_t budget) const;
  // Asks whose evaluations share state and so must run one after another, in order: tuned asks
  // (budget > 0) of designs with the same timing share one tuning log, which each tuning resumes
  // from. Empty for an ask that shares nothing (resources only, heuristic schedules).
  std::string sharing_key(const DesignSpace& space, const Design& d, int64_t budget) const;
  // Evaluations timed in this run (not read from the cache; resource-only verdicts not counted).
  int64_t computed() const { return computed_; }

 private:
  Evaluation priced(const DesignSpace& space, const Design& d, const MappedDesign& m) const;
  // Its format's accuracy, and infeasible when that misses the bound.
  void judge_accuracy(const DesignSpace& space, Evaluation& e) const;
  std::vector<TaskTime> time_tasks(const hw::HwConfig& c, const std::vector<WorkloadTask>& tasks, int64_t budget);
  // One entry per distinct layer of `wt` (equal specs counted in `layers`), each timed with the
  // schedule the network gives it: `chosen` where `tuned` and legal for the layer, else its heuristic.
  static std::vector<TaskTime> variant_times(const hw::HwConfig& c, const WorkloadTask& wt, const lower::Schedule& chosen,
                                             bool tuned);

  DseWorkload& workload_;
  EvaluatorOptions options_;
  ResultCache* cache_;
  std::string settings_;  // tuner settings in the cache key
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const std::vector<TaskTime>>> screened_;  // by timing key
  std::map<std::filesystem::path, std::unique_ptr<std::mutex>> log_locks_;  // one tuning per log at a time
  std::atomic<int64_t> computed_{0};
};

}  // namespace tauvta::dse
