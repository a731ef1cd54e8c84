// `tauvta tune` as a call (tune/tune_run.h): the tasks of a model (or one workload) tuned one after
// another with a searcher (random, grid, sa, xgb), every trial appended to an AutoTVM log that
// `tauvta run --tuning-log` and TVM read; the same call continues an interrupted run. Writes a
// progress line, a table per task (heuristic against tuned GOPS, trials to 95% of the best;
// "stopped": candidates timed only up to four times the best cycles, "errors": other failed
// trials), and for a model the end-to-end cycles before and after.
#include "tune/tune_run.h"

#include <iostream>
#include <set>

#include <fmt/format.h>

#include "backend/artifact.h"
#include "backend/network_report.h"
#include "backend/network_runner.h"
#include "cluster/array_options_io.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/progress.h"
#include "fpga/feasibility.h"
#include "hw/config_file.h"
#include "report/html_file.h"
#include "tune/trial_log.h"

namespace tauvta::tune {
namespace {

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

std::string task_table(const std::vector<TaskResult>& rs) {
  std::string s = fmt::format("{:<4} {:<52} {:>3} {:>6} {:>6} {:>9} {:>9} {:>7} {:>7} {:>6} {:>7} {:>6} {:>4} {:>9}\n",
                              "task", "workload", "n", "space", "trials", "heur GOPS", "tuned", "ceiling", "speedup",
                              "to95%", "stopped", "errors", "ver", "trials/s");
  for (size_t i = 0; i < rs.size(); ++i) {
    const TaskResult& r = rs[i];
    const double d = r.default_measure.gops, t = r.best_measure.gops;
    s += fmt::format("{:<4} {:<52} {:>3} {:>6} {:>6} {:>9.2f} {:>9.2f} {:>7.2f} {:>6.2f}x {:>6} {:>7} {:>6} {:>4} {:>9.0f}\n",
                     r.task.name.substr(0, r.task.name.find(' ')), r.task.workload().to_string().substr(0, 52),
                     std::max<size_t>(1, r.task.layers.size()), r.space_size, r.trials, d, t,
                     r.default_measure.ceiling_gops, d > 0 ? t / d : 0.0, r.trials_to_95, r.stopped,
                     r.errors - r.stopped, r.verified, r.trials_per_second());
  }
  return s;
}

nlohmann::json task_json(const TaskResult& r) {
  const lower::OpKind k = r.task.workload().kind;
  auto measure = [](const Measurement& m) {
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

TuneOptions resolved_tune_options(const TuneRequest& a) {
  if (a.options.trials < 1) throw Error(fmt::format("--trials {}: must be at least 1", a.options.trials));
  if (a.options.batch < 1) throw Error(fmt::format("--batch {}: must be at least 1", a.options.batch));
  if (a.options.searcher.epsilon < 0 || a.options.searcher.epsilon > 1) {
    throw Error(fmt::format("--epsilon {}: must be within [0, 1]", a.options.searcher.epsilon));
  }
  TuneOptions o = a.options;
  o.verify = !a.no_verify;
  o.searcher.analytic_prior = !a.no_prior;
  o.stop_slower = !a.full_timing;
  o.searcher.model.objective = parse_cost_objective(a.objective);
  o.searcher.model.seed = o.searcher.seed;
  if (std::set<std::string>{"random", "grid", "sa", "xgb"}.count(o.searcher.kind) == 0) {
    throw Error(fmt::format("--tuner '{}': expected one of {}", o.searcher.kind, searcher_kinds()));
  }
  return o;
}

TuneTasks make_tune_tasks(const TuneRequest& a) {
  TuneTasks t;
  if (!a.workload.empty()) {
    t.config = model::source_config(a.model);
    t.tasks.push_back(workload_task(t.config, parse_workload_spec(a.workload)));
  } else {
    if (backend::is_network_artifact(a.model.model)) {
      throw Error(fmt::format("{}: tune takes the ONNX model (a compiled artifact keeps no workloads' layers to time)",
                              a.model.model));
    }
    backend::NetworkRequest n;
    n.batch = a.batch;
    t.built = backend::build_network(a.model, n);
    t.config = t.built->net.config;
    t.tasks = extract_tasks(t.built->net);
    t.report = t.built->report;
  }
  if (!a.tasks.empty()) {
    const std::set<size_t> keep = parse_task_list(a.tasks);
    std::vector<TuneTask> kept;
    for (size_t i = 0; i < t.tasks.size(); ++i) {
      if (keep.count(i + 1)) kept.push_back(t.tasks[i]);
    }
    if (kept.empty()) throw Error(fmt::format("--tasks {}: the model has {} task(s)", a.tasks, t.tasks.size()));
    t.tasks = std::move(kept);
  }
  if (t.tasks.empty()) throw Error("tune: the model has no convolution or dense layer on the accelerator");
  return t;
}

nlohmann::json run_tune(const TuneRequest& a, std::ostream& out) {
  if (a.log.empty()) throw Error("tune: give the trial log with --log LOG.jsonl (appended to; an existing log resumes)");
  if (a.model.model.empty() && a.workload.empty()) throw Error("tune: give a model (MODEL.onnx) or --workload SPEC");
  if (!a.model.model.empty() && !a.workload.empty()) {
    throw Error("tune: give a model (MODEL.onnx) or --workload SPEC, not both");
  }
  if (!a.csv.empty()) check_can_write(a.csv, a.model.force);
  if (!a.report.empty()) check_can_write(a.report, a.model.force);
  if (!a.html.empty()) check_can_write(a.html, a.model.force);
  const TuneOptions o = resolved_tune_options(a);
  if (a.slurm) cluster::resolved_array_options(a.slurm_options);  // checked before the model is loaded

  TuneTasks setup = make_tune_tasks(a);
  nlohmann::json report = std::move(setup.report);
  std::optional<backend::BuiltNetwork>& built = setup.built;
  const std::vector<TuneTask>& tasks = setup.tasks;
  const hw::HwConfig& c = setup.config;
  if (a.slurm) tune_on_slurm(a, setup, out);

  TransferSet transfer;
  std::vector<lower::TuningRecord> given;  // the transfer log's records: a task's own are measured first
  if (!a.transfer.empty()) {
    given = lower::read_tuning_log(a.transfer).records;
    transfer = transfer_set(given, c, nullptr);
    std::cerr << fmt::format("transfer: {} measured records in {} groups from {}\n", transfer.size(),
                             transfer.groups.size(), a.transfer);
  }
  TrialLog log(a.log);
  if (!log.repair_note().empty()) std::cerr << "note: " << log.repair_note() << "\n";
  if (log.records() > 0) std::cerr << fmt::format("{}: {} records already there; finished trials are not measured again\n", a.log, log.records());
  Measurer measurer(c, a.threads);
  out << fmt::format("tuning {} task(s) on {} ({} MHz, peak {:.1f} GOPS) with {}, {} trials each, {} thread(s), "
                           "seed {}\n",
                           tasks.size(), c.name(), c.timing.clock_mhz, c.peak_gops(), o.searcher.kind, o.trials,
                           measurer.threads(), o.searcher.seed);
  const fpga::Feasibility feasible = fpga::feasibility(c);
  if (const std::string w = fpga::feasibility_warning(c, feasible); !w.empty()) out << w << "\n";

  std::vector<TaskResult> results;
  int64_t step = 0;
  ProgressFn progress = a.progress ? a.progress : [&](const TaskProgress& p, bool last) {
    if (a.quiet) return;
    ++step;
    show_progress(fmt::format("[{}/{}] {:<44} trials {:>5}/{:<5} best {:7.2f} GOPS  {:6.0f} trials/s", p.task + 1,
                              p.tasks, p.t->name.substr(0, 44), p.trials, p.budget, p.best_gops, p.trials_per_second),
                  step, last, 10);
  };
  for (size_t i = 0; i < tasks.size(); ++i) {
    TuneOptions ot = o;
    if (!given.empty()) ot.given = &given;
    if (!transfer.rows.empty()) {
      ot.searcher.transfer = &transfer;
    }
    results.push_back(tune_task(tasks[i], ot, measurer, &log, progress, i, tasks.size()));
  }
  out << "\n" << task_table(results);
  int64_t trials = 0, measured = 0;
  double wall = 0, measure_wall = 0;
  for (const TaskResult& r : results) {
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
  if (a.slurm) report["tune"]["slurm"] = cluster::to_json(cluster::resolved_array_options(a.slurm_options));
  nlohmann::json tj = nlohmann::json::array();
  for (const TaskResult& r : results) tj.push_back(task_json(r));
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
    for (const TaskResult& r : results) {
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
    for (const TaskResult& r : results) {
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

}  // namespace tauvta::tune
