// tauvta tune: the schedule autotuner's options; the tuning itself is tune::run_tune
// (tune/tune_run.h), its Slurm rounds tune/tune_slurm_round.cpp.
// `tauvta tune pick-best LOG -o BEST` keeps the best record per workload.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/model_args.h"
#include "cli/slurm_args.h"
#include "common/error.h"
#include "tune/trial_log.h"
#include "tune/tune_run.h"

namespace tauvta::cli {
namespace {

struct PickArgs {
  std::string in, out;
  bool force = false;
};

void run_pick_best(const PickArgs& a) {
  if (a.out.empty()) throw Error("pick-best: give the output with -o BEST.log");
  const tune::PickBestSummary s = tune::pick_best(a.in, a.out, a.force);
  std::cout << fmt::format("{}: {} records, {} without a successful measurement; kept the best of each workload: {} "
                           "record(s) in {}\n",
                           a.in, s.lines, s.failed, s.kept, a.out);
}

}  // namespace

// `tauvta tune worker ROUND_DIR`: one Slurm array task of `tune --slurm`.
void add_tune_worker(CLI::App* tune) {
  auto w = std::make_shared<tune::TuneWorkerRequest>();
  CLI::App* cmd = tune->add_subcommand(
      "worker", "one Slurm array task of `tauvta tune --slurm`: tune its share of the tasks (docs/slurm.md)");
  cmd->add_option("round", w->round_dir, "the round's directory (LOG.slurm/round-HASH, holding work.json)")->required();
  cmd->add_option("--task", w->task, "the array task (default: $SLURM_ARRAY_TASK_ID)");
  cmd->add_option("--threads", w->threads, "measurement threads")->capture_default_str();
  cmd->callback([w] { tune::tune_worker(*w, std::cout); });
}

void add_tune_command(CLI::App& app) {
  auto args = std::make_shared<tune::TuneRequest>();
  CLI::App* cmd = app.add_subcommand("tune", "Tune the schedules of a model's (or one workload's) accelerator layers");
  add_model_args(cmd, args->model, /*model_required=*/false);
  cmd->add_option("--workload", args->workload,
                  "One workload instead of a model: OP,key=value,... e.g. conv2d,ci=256,h=14,w=14,co=256,k=3,s=1,p=0");
  cmd->add_option_function<int64_t>(
         "--batch", [args](const int64_t& n) { args->batch = n; },
         "Batch size the model is compiled for (default: the batch its inputs declare; 1 when symbolic)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--log", args->log, "AutoTVM log every trial is appended to; an existing log resumes");
  cmd->add_option("--trials", args->options.trials, "Trials per task, resumed ones included (default 1000)");
  cmd->add_option("--tuner", args->options.searcher.kind, "random, grid, sa or xgb (default xgb)");
  cmd->add_option("--epsilon", args->options.searcher.epsilon, "xgb: share of each batch chosen at random (default 0.05)");
  cmd->add_option("--early-stopping", args->options.early_stopping, "Stop a task after N trials without improvement");
  cmd->add_option("--seed", args->options.searcher.seed, "Seed of the search (default 1)");
  cmd->add_option("--threads", args->threads, "Measurement threads (default: every core)");
  cmd->add_option("--batch-size", args->options.batch, "Candidates per ask/tell round (default 64)");
  cmd->add_option("--objective", args->objective, "xgb cost model objective: rank or regression (default rank)");
  cmd->add_option("--transfer", args->transfer, "Warm-start the cost model from another log's measurements");
  cmd->add_option("--tasks", args->tasks, "Only these tasks (1-based numbers and ranges: 1,3-5)");
  cmd->add_option("--verify-sample", args->options.verify_sample,
                  "Successful trials besides the best also run functionally, drawn at random (default 1)");
  cmd->add_flag("--no-verify", args->no_verify, "Do not run candidates functionally against the integer reference");
  cmd->add_flag("--full-timing", args->full_timing,
                "Time every candidate to the end (default: stop one at four times the best cycles so far)");
  cmd->add_flag("--no-prior", args->no_prior,
                "xgb: first batches at random (as AutoTVM) instead of annealing over the analytic estimate");
  cmd->add_option("--csv", args->csv, "Convergence CSV: task, trial, best GOPS so far");
  cmd->add_option("--report", args->report, "JSON report: resolved config and options, per task results, end to end");
  cmd->add_option("--html", args->html, "Self-contained HTML report: convergence per task, per-task table, heuristic vs tuned");
  cmd->add_flag("-q,--quiet", args->quiet, "No progress line");
  add_slurm_args(cmd, args->slurm, args->slurm_options);
  add_tune_worker(cmd);
  cmd->callback([args, cmd] {
    if (cmd->got_subcommand("pick-best") || cmd->got_subcommand("worker")) return;
    tune::run_tune(*args, std::cout);
  });

  auto pick = std::make_shared<PickArgs>();
  CLI::App* pb = cmd->add_subcommand("pick-best", "Keep the best record per workload of a tuning log");
  pb->add_option("log", pick->in, "The tuning log")->required()->check(CLI::ExistingFile);
  pb->add_option("-o,--output", pick->out, "Output log of the best records")->required();
  pb->add_flag("--force", pick->force, "Replace an existing output");
  pb->callback([pick] { run_pick_best(*pick); });
}

static const CommandRegistrar kTuneRegistrar("tune", add_tune_command);

}  // namespace tauvta::cli
