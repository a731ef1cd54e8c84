// tauvta tune: the schedule autotuner. Tunes every convolution-family task of a model (or one
// --workload) on a config with a searcher (random, grid, sa, xgb), appending every trial to an
// AutoTVM log that `tauvta run --tuning-log` and TVM read; the same command continues an
// interrupted run. Prints a progress line, a table per task (heuristic against tuned GOPS,
// trials to 95% of the best; "stopped": candidates timed only up to four times the best cycles,
// "errors": other failed trials), and for a model the end-to-end cycles before and after.
// `tauvta tune pick-best LOG -o BEST` keeps the best record per workload.
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fpga/feasibility.h"
#include "backend/artifact.h"
#include "backend/network_report.h"
#include "backend/network_runner.h"
#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "cli/model_args.h"
#include "report/html_file.h"
#include "cli/network_args.h"
#include "cli/tune_command.h"
#include "common/progress.h"
#include "cli/slurm_args.h"
#include "common/error.h"
#include "tune/task.h"
#include "tune/trial_log.h"
#include "tune/tuner.h"

namespace tauvta::cli {
namespace {

struct PickArgs {
  std::string in, out;
  bool force = false;
};

// "1,3-5" -> {1, 3, 4, 5}
std::set<size_t> parse_task_list(const std::string& s) {
  std::set<size_t> out;
  size_t at = 0;
  while (at < s.size()) {
    const size_t end = std::min(s.find(',', at), s.size());
    const std::string part = s.substr(at, end - at);
    const size_t dash = part.find('-');
    try {
      size_t used = 0;
      const size_t a = std::stoul(dash == std::string::npos ? part : part.substr(0, dash), &used);
      const size_t b = dash == std::string::npos ? a : std::stoul(part.substr(dash + 1));
      if (a < 1 || b < a) throw std::invalid_argument("range");
      for (size_t i = a; i <= b; ++i) out.insert(i);
    } catch (const std::exception&) {
      throw Error(fmt::format("--tasks '{}': '{}' is not a task number or range (1-based)", s, part));
    }
    at = end + 1;
  }
  return out;
}

std::string task_table(const std::vector<tune::TaskResult>& rs) {
  std::string s = fmt::format("{:<4} {:<52} {:>3} {:>6} {:>6} {:>9} {:>9} {:>7} {:>7} {:>6} {:>7} {:>6} {:>4} {:>9}\n",
                              "task", "workload", "n", "space", "trials", "heur GOPS", "tuned", "ceiling", "speedup",
                              "to95%", "stopped", "errors", "ver", "trials/s");
  for (size_t i = 0; i < rs.size(); ++i) {
    const tune::TaskResult& r = rs[i];
    const double d = r.default_measure.gops, t = r.best_measure.gops;
    s += fmt::format("{:<4} {:<52} {:>3} {:>6} {:>6} {:>9.2f} {:>9.2f} {:>7.2f} {:>6.2f}x {:>6} {:>7} {:>6} {:>4} {:>9.0f}\n",
                     r.task.name.substr(0, r.task.name.find(' ')), r.task.workload().to_string().substr(0, 52),
                     std::max<size_t>(1, r.task.layers.size()), r.space_size, r.trials, d, t,
                     r.default_measure.ceiling_gops, d > 0 ? t / d : 0.0, r.trials_to_95, r.stopped,
                     r.errors - r.stopped, r.verified, r.trials_per_second());
  }
  return s;
}

nlohmann::json task_json(const tune::TaskResult& r) {
  const lower::OpKind k = r.task.workload().kind;
  auto measure = [](const tune::Measurement& m) {
    return nlohmann::json{{"cycles", m.cycles},         {"seconds", m.seconds},
                          {"gops", m.gops},             {"insns", m.insns},
                          {"floor_cycles", m.floor_cycles}, {"ceiling_gops", m.ceiling_gops}};
  };
  nlohmann::json j = {{"name", r.task.name},
                      {"workload", lower::workload_to_json(r.task.workload())},
                      {"layers", r.task.layers},
                      {"needs", {{"acc_vectors", r.task.needs.acc_vectors}, {"residual", r.task.needs.residual}}},
                      {"tuner", r.tuner},
                      {"space", r.space_size},
                      {"trials", r.trials},
                      {"resumed", r.resumed},
                      {"measured", r.measured},
                      {"errors", r.errors},
                      {"stopped", r.stopped},
                      {"verified", r.verified},
                      {"wrong", r.wrong},
                      {"trials_to_95", r.trials_to_95},
                      {"early_stopped", r.early_stopped},
                      {"wall_seconds", r.wall_seconds},
                      {"measure_seconds", r.measure_seconds},
                      {"trials_per_second", r.trials_per_second()},
                      {"best_so_far", r.best_so_far},
                      {"default", {{"schedule", r.default_schedule.to_string(k)}, {"measure", measure(r.default_measure)}}}};
  if (!r.importance.empty()) {
    nlohmann::json imp = nlohmann::json::array();
    for (size_t i = 0; i < r.importance.size() && i < 12; ++i) imp.push_back({r.importance[i].first, r.importance[i].second});
    j["feature_importance"] = imp;  // the cost model's (gain), best first
  }
  if (r.best) {
    j["best"] = {{"schedule", r.best->to_string(k)},
                 {"entity", r.best->to_entity(k)},
                 {"verified", r.best_verified},
                 {"measure", measure(r.best_measure)}};
  }
  return j;
}

}  // namespace

tune::TuneOptions resolved_tune_options(const TuneArgs& a) {
  if (a.options.trials < 1) throw Error(fmt::format("--trials {}: must be at least 1", a.options.trials));
  if (a.options.batch < 1) throw Error(fmt::format("--batch {}: must be at least 1", a.options.batch));
  if (a.options.searcher.epsilon < 0 || a.options.searcher.epsilon > 1) {
    throw Error(fmt::format("--epsilon {}: must be within [0, 1]", a.options.searcher.epsilon));
  }
  tune::TuneOptions o = a.options;
  o.verify = !a.no_verify;
  o.searcher.analytic_prior = !a.no_prior;
  o.stop_slower = !a.full_timing;
  o.searcher.model.objective = tune::parse_cost_objective(a.objective);
  o.searcher.model.seed = o.searcher.seed;
  if (std::set<std::string>{"random", "grid", "sa", "xgb"}.count(o.searcher.kind) == 0) {
    throw Error(fmt::format("--tuner '{}': expected one of {}", o.searcher.kind, tune::searcher_kinds()));
  }
  return o;
}

TuneTasks make_tune_tasks(const TuneArgs& a) {
  TuneTasks t;
  if (!a.workload.empty()) {
    t.config = model::source_config(a.model);
    t.tasks.push_back(tune::workload_task(t.config, tune::parse_workload_spec(a.workload)));
  } else {
    if (backend::is_network_artifact(a.model.model)) {
      throw Error(fmt::format("{}: tune takes the ONNX model (a compiled artifact keeps no workloads' layers to time)",
                              a.model.model));
    }
    backend::NetworkRequest n;
    n.batch = a.batch;
    t.built = backend::build_network(a.model, n);
    t.config = t.built->net.config;
    t.tasks = tune::extract_tasks(t.built->net);
    t.report = t.built->report;
  }
  if (!a.tasks.empty()) {
    const std::set<size_t> keep = parse_task_list(a.tasks);
    std::vector<tune::TuneTask> kept;
    for (size_t i = 0; i < t.tasks.size(); ++i) {
      if (keep.count(i + 1)) kept.push_back(t.tasks[i]);
    }
    if (kept.empty()) throw Error(fmt::format("--tasks {}: the model has {} task(s)", a.tasks, t.tasks.size()));
    t.tasks = std::move(kept);
  }
  if (t.tasks.empty()) throw Error("tune: the model has no convolution or dense layer on the accelerator");
  return t;
}

nlohmann::json tune_command(const TuneArgs& a, std::ostream& out) {
  if (a.log.empty()) throw Error("tune: give the trial log with --log LOG.jsonl (appended to; an existing log resumes)");
  if (a.model.model.empty() && a.workload.empty()) throw Error("tune: give a model (MODEL.onnx) or --workload SPEC");
  if (!a.model.model.empty() && !a.workload.empty()) {
    throw Error("tune: give a model (MODEL.onnx) or --workload SPEC, not both");
  }
  if (!a.csv.empty()) check_can_write(a.csv, a.model.force);
  if (!a.report.empty()) check_can_write(a.report, a.model.force);
  if (!a.html.empty()) check_can_write(a.html, a.model.force);
  const tune::TuneOptions o = resolved_tune_options(a);
  if (a.slurm) resolved_slurm_options(a.slurm_options);  // checked before the model is loaded

  TuneTasks setup = make_tune_tasks(a);
  nlohmann::json report = std::move(setup.report);
  std::optional<backend::BuiltNetwork>& built = setup.built;
  const std::vector<tune::TuneTask>& tasks = setup.tasks;
  const hw::HwConfig& c = setup.config;
  if (a.slurm) tune_on_slurm(a, setup, out);

  tune::TransferSet transfer;
  std::vector<lower::TuningRecord> given;  // the transfer log's records: a task's own are measured first
  if (!a.transfer.empty()) {
    given = lower::read_tuning_log(a.transfer).records;
    transfer = tune::transfer_set(given, c, nullptr);
    std::cerr << fmt::format("transfer: {} measured records in {} groups from {}\n", transfer.size(),
                             transfer.groups.size(), a.transfer);
  }
  tune::TrialLog log(a.log);
  if (!log.repair_note().empty()) std::cerr << "note: " << log.repair_note() << "\n";
  if (log.records() > 0) std::cerr << fmt::format("{}: {} records already there; finished trials are not measured again\n", a.log, log.records());
  tune::Measurer measurer(c, a.threads);
  out << fmt::format("tuning {} task(s) on {} ({} MHz, peak {:.1f} GOPS) with {}, {} trials each, {} thread(s), "
                           "seed {}\n",
                           tasks.size(), c.name(), c.timing.clock_mhz, c.peak_gops(), o.searcher.kind, o.trials,
                           measurer.threads(), o.searcher.seed);
  const fpga::Feasibility feasible = fpga::feasibility(c);
  if (const std::string w = fpga::feasibility_warning(c, feasible); !w.empty()) out << w << "\n";

  std::vector<tune::TaskResult> results;
  int64_t step = 0;
  tune::ProgressFn progress = a.progress ? a.progress : [&](const tune::TaskProgress& p, bool last) {
    if (a.quiet) return;
    ++step;
    show_progress(fmt::format("[{}/{}] {:<44} trials {:>5}/{:<5} best {:7.2f} GOPS  {:6.0f} trials/s", p.task + 1,
                              p.tasks, p.t->name.substr(0, 44), p.trials, p.budget, p.best_gops, p.trials_per_second),
                  step, last, 10);
  };
  for (size_t i = 0; i < tasks.size(); ++i) {
    tune::TuneOptions ot = o;
    if (!given.empty()) ot.given = &given;
    if (!transfer.rows.empty()) {
      ot.searcher.transfer = &transfer;
    }
    results.push_back(tune::tune_task(tasks[i], ot, measurer, &log, progress, i, tasks.size()));
  }
  out << "\n" << task_table(results);
  int64_t trials = 0, measured = 0;
  double wall = 0, measure_wall = 0;
  for (const tune::TaskResult& r : results) {
    trials += r.trials;
    measured += r.measured;
    wall += r.wall_seconds;
    measure_wall += r.measure_seconds;
  }
  out << fmt::format("{} trials ({} measured in this run) in {:.2f} s: {:.0f} trials/s overall, {:.0f} trials/s "
                           "in measurement; log {}\n",
                           trials, measured, wall, wall > 0 ? double(measured) / wall : 0.0,
                           measure_wall > 0 ? double(measured) / measure_wall : 0.0, a.log);

  report["feasibility"] = fpga::to_json(feasible);
  report["tune"] = {{"config", c.to_json()},
                    {"config_name", c.name()},
                    {"tuner", o.searcher.kind},
                    {"trials", o.trials},
                    {"batch", o.batch},
                    {"epsilon", o.searcher.epsilon},
                    {"early_stopping", o.early_stopping},
                    {"seed", o.searcher.seed},
                    {"threads", measurer.threads()},
                    {"objective", a.objective},
                    {"analytic_prior", o.searcher.analytic_prior},
                    {"stop_slower", o.stop_slower},
                    {"verify", o.verify},
                    {"verify_sample", o.verify_sample},
                    {"log", a.log},
                    {"transfer", a.transfer}};
  if (a.slurm) report["tune"]["slurm"] = to_json(resolved_slurm_options(a.slurm_options));
  nlohmann::json tj = nlohmann::json::array();
  for (const tune::TaskResult& r : results) tj.push_back(task_json(r));
  report["tasks"] = tj;
  report["totals"] = {{"trials", trials}, {"measured", measured}, {"wall_seconds", wall},
                      {"trials_per_second", wall > 0 ? double(measured) / wall : 0.0},
                      {"measure_trials_per_second", measure_wall > 0 ? double(measured) / measure_wall : 0.0}};

  if (built) {
    // The whole network before and after: the heuristic's compile, then one with the tuned bests.
    const backend::NetworkRun before_run = backend::time_network(built->net);
    const backend::NetworkTotals before = backend::network_totals(built->net, before_run);
    backend::CompileOptions co;
    co.batch = built->batch;
    for (const tune::TaskResult& r : results) {
      if (r.best) co.schedules[r.task.workload()] = backend::ScheduleChoice{*r.best, "tuned (" + a.log + ")"};
    }
    const backend::CompiledNetwork tuned = backend::compile_network(built->model->graph(), c, co);
    const backend::NetworkTotals after = backend::network_totals(tuned, backend::time_network(tuned));
    const double hz = c.timing.clock_mhz * 1e6;
    out << fmt::format("\nend to end on {}: {} -> {} cycles ({:.3f} -> {:.3f} ms at {} MHz, {:.2f}x); conv/dense "
                             "GOPS {:.2f} -> {:.2f} (ceiling of the lowered instructions: {:.2f}, whatever the schedule)\n",
                             c.name(), before.cycles, after.cycles, double(before.cycles) / hz * 1e3,
                             double(after.cycles) / hz * 1e3, c.timing.clock_mhz,
                             after.cycles ? double(before.cycles) / double(after.cycles) : 0.0, before.conv_gops,
                             after.conv_gops, after.conv_ceiling_gops);
    report["end_to_end"] = {
        {"before", {{"cycles", before.cycles}, {"gops", before.gops}, {"conv_gops", before.conv_gops}}},
        {"after", {{"cycles", after.cycles}, {"gops", after.gops}, {"conv_gops", after.conv_gops}}},
        {"conv_ceiling_gops", after.conv_ceiling_gops}};
  }
  if (!a.csv.empty()) {
    std::string csv = "task,trial,best_gops\n";
    for (const tune::TaskResult& r : results) {
      const std::string id = r.task.name.substr(0, r.task.name.find(' '));
      for (size_t i = 0; i < r.best_so_far.size(); ++i) csv += fmt::format("{},{},{:.4f}\n", id, i + 1, r.best_so_far[i]);
    }
    write_text(a.csv, csv, true);  // refused up front without --force (check_can_write)
    out << fmt::format("convergence: {}\n", a.csv);
  }
  if (!a.report.empty()) {
    write_text(a.report, report.dump(2) + "\n", a.model.force);
    out << fmt::format("report: {}\n", a.report);
  }
  if (!a.html.empty()) {
    report::Page page;
    page.kind = report::PageKind::kTune;
    page.title = fmt::format("tauvta tune: {} on {}", a.workload.empty() ? a.model.model : a.workload, c.name());
    page.config = c.to_json();
    page.report = report;
    report::write_html_report(a.html, std::move(page), a.model.force);
    out << fmt::format("html: {}\n", a.html);
  }
  return report;
}

namespace {


void run_pick_best(const PickArgs& a) {
  if (a.out.empty()) throw Error("pick-best: give the output with -o BEST.log");
  const tune::PickBestSummary s = tune::pick_best(a.in, a.out, a.force);
  std::cout << fmt::format("{}: {} records, {} without a successful measurement; kept the best of each workload: {} "
                           "record(s) in {}\n",
                           a.in, s.lines, s.failed, s.kept, a.out);
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto args = std::make_shared<TuneArgs>();
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
    tune_command(*args, std::cout);
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
