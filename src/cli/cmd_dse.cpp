// tauvta dse [MODEL | --workload SPEC] --device D --precisions 8,4,2,1 --strategy S --out DIR:
// hardware design-space exploration. Per precision: the raw and pruned space sizes, a progress
// line, then an end table of the best design per precision; DIR holds every evaluated design
// (CSV, and the JSON-lines cache the same command resumes from), the best design's
// vta_config.json and tuning log, importance, Pareto fronts and convergence (dse/dse_report.h).
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/model_args.h"
#include "cli/slurm_args.h"
#include "dse/exploration_run.h"
#include "dse/strategy.h"

namespace tauvta::cli {

namespace {

// `tauvta dse worker ROUND_DIR`: one Slurm array task of `dse --slurm`.
void add_dse_worker(CLI::App* dse) {
  auto w = std::make_shared<dse::ExplorationWorkerRequest>();
  CLI::App* cmd = dse->add_subcommand(
      "worker", "one Slurm array task of `tauvta dse --slurm`: evaluate its shard of a round (docs/slurm.md)");
  cmd->add_option("round", w->round_dir, "the round's directory (OUT/slurm/pP-HASH, holding work.json)")->required();
  cmd->add_option("--task", w->task, "the shard (default: $SLURM_ARRAY_TASK_ID)");
  cmd->add_option("--threads", w->threads, "designs evaluated in parallel")->capture_default_str();
  cmd->callback([w] { dse::run_exploration_worker(*w, std::cout); });
}

void add_dse(CLI::App& app) {
  auto a = std::make_shared<dse::ExplorationRequest>();
  CLI::App* cmd = app.add_subcommand(
      "dse", "hardware design-space exploration across precisions: the best design and schedules for a model or "
             "workload on an FPGA (docs/dse.md)");
  add_model_args(cmd, a->model, false);
  cmd->get_option("--config")->description(
      "the board's memory side (latencies, bandwidth, port limits) designs are timed with "
      "(default: the device's preset; the designs' own knobs come from the space)");
  cmd->add_option("--workload", a->workload, "one operator instead of a model, e.g. conv2d,ci=256,h=14,w=14,co=256,k=3,s=1,p=0");
  cmd->add_option("--device", a->device, "pynq-z1, ultra96 or zcu104")->capture_default_str();
  cmd->add_option("--precisions", a->precisions, "input and weight bits to explore, comma-separated")
      ->capture_default_str();
  cmd->add_option("--strategy", a->strategy.kind, std::string("search: ") + dse::strategy_kinds())
      ->capture_default_str();
  cmd->add_option("--budget", a->strategy.budget,
                  "tuner trials per task for tuned designs (halving: the winner's total); 0 screens only")
      ->capture_default_str();
  cmd->add_option("--seed", a->strategy.seed, "seed of every random choice")->capture_default_str();
  cmd->add_option("--threads", a->threads, "designs evaluated in parallel (0: every core)")->capture_default_str();
  cmd->add_option("--finalists", a->strategy.finalists, "exhaustive: best screened designs tuned")->capture_default_str();
  cmd->add_option("--candidates", a->strategy.candidates, "halving: designs in the first round")->capture_default_str();
  cmd->add_option("--overlays", a->strategy.overlays, "tau, vta: tuned designs at most")->capture_default_str();
  cmd->add_option("--sprint", a->strategy.sprint, "tau: overlays per sprint; vta: designs per batch")
      ->capture_default_str();
  cmd->add_option("--initial", a->strategy.initial, "tau: screened random designs the models start from")
      ->capture_default_str();
  cmd->add_flag("--verify", a->verify, "run every tuned task's best schedule functionally against the integer reference");
  cmd->add_option("--rtl-check", a->rtl_check,
                  "run the K best designs of each precision on the generated accelerator in Verilator: "
                  "bit-exactness and RTL cycles beside the explored cycles")
      ->check(CLI::Range(0, 100));
  cmd->add_option("--images", a->accuracy.images,
                  "IDX images for the accuracy step: each format's tuned held-out top-1; formats below the bound "
                  "are infeasible (docs/dse.md, 'Accuracy')");
  cmd->add_option("--labels", a->accuracy.labels, "IDX labels for --images");
  cmd->add_option("--max-accuracy-drop", a->accuracy.max_drop_points,
                  "bound: at most this many points below the float model's held-out top-1");
  cmd->add_option("--min-accuracy", a->accuracy.min_accuracy, "bound: at least this held-out top-1 (a fraction)");
  cmd->add_option("--accuracy-tune-images", a->accuracy.tune_images, "tuning split: images [0, N)")
      ->capture_default_str();
  cmd->add_option("--accuracy-holdout", a->accuracy.holdout_images, "held-out split: the N images after the tuning split")
      ->capture_default_str();
  cmd->add_option("--accuracy-mode", a->accuracy.mode, "per-layer format tuning: otune or search")->capture_default_str();
  cmd->add_option("--accuracy-limit", a->accuracy.limit, "tuning evaluations per format at most")->capture_default_str();
  cmd->add_option("--out", a->out, "output directory (the same command resumes from it)");
  cmd->add_option("--html", a->html, "Self-contained HTML report: designs by resources and GOPS, Pareto fronts, convergence");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress lines");
  add_slurm_args(cmd, a->slurm, a->slurm_options);
  add_dse_worker(cmd);
  cmd->callback([a, cmd] {
    if (cmd->got_subcommand("worker")) return;  // `dse worker` ran in its own callback
    dse::run_exploration(*a, std::cout);
  });
}

const CommandRegistrar reg("dse", add_dse);

}  // namespace
}  // namespace tauvta::cli
