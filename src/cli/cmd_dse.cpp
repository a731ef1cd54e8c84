// tauvta dse [MODEL | --workload SPEC] --device D --precisions 8,4,2,1 --strategy S --out DIR:
// hardware design-space exploration. Per precision: the raw and pruned space sizes, a progress
// line, then an end table of the best design per precision; DIR holds every evaluated design
// (CSV, and the JSON-lines cache the same command resumes from), the best design's
// vta_config.json and tuning log, importance, Pareto fronts and convergence (dse/dse_report.h).
#include <chrono>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "cli/dse_command.h"
#include "cli/dse_setup.h"
#include "report/html_file.h"
#include "cli/model_args.h"
#include "common/progress.h"
#include "cli/slurm_args.h"
#include "common/error.h"
#include "dse/dse_report.h"
#include "dse/explorer.h"
#include "dse/slurm_runner.h"
#include "fpga/device.h"

namespace tauvta::cli {

nlohmann::json read_evaluations(const std::string& dir, size_t limit) {
  nlohmann::json rows = nlohmann::json::array();
  std::istringstream lines(read_text(std::filesystem::path(dir) / "evaluations.jsonl"));
  std::string line;
  while (rows.size() < limit && std::getline(lines, line)) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded()) rows.push_back(std::move(j));  // a torn last line is the cache's to repair
  }
  return rows;
}

nlohmann::json dse_command(const DseArgs& a, std::ostream& out) {
  if (a.out.empty()) throw Error("--out is required (see tauvta dse --help)");
  check_can_write(a.html, a.model.force);
  if (a.model.model.empty() == a.workload.empty()) throw Error("dse: give a model or --workload SPEC (one of them)");
  dse::check_strategy(a.strategy);  // before anything is loaded or written
  if (a.slurm) resolved_slurm_options(a.slurm_options);
  DseSetup setup = make_dse_setup(a);
  const fpga::Device& device = *setup.device;
  const std::vector<int>& precisions = setup.precisions;
  dse::DseWorkload* workload = setup.workload.get();
  const dse::EvaluatorOptions& eo = setup.evaluator;
  dse::ResultCache cache(std::filesystem::path(a.out) / "evaluations.jsonl");
  if (!cache.repair_note().empty()) std::cerr << "note: " << cache.repair_note() << "\n";
  if (cache.size() > 0) std::cerr << fmt::format("resuming: {} evaluations in {}\n", cache.size(), cache.path().string());
  dse::Evaluator evaluator(*workload, eo, &cache);
  // --slurm: every batch a job array; the rounds live under OUT/slurm.
  std::unique_ptr<dse::SlurmRunner> slurm;
  if (a.slurm) {
    slurm = std::make_unique<dse::SlurmRunner>(std::filesystem::absolute(a.out) / "slurm", dse_job_spec(a),
                                               resolved_slurm_options(a.slurm_options),
                                               cluster::SlurmClient{}, [&a](const std::string& line) {
                                                 if (a.progress) {
                                                   a.progress(line);
                                                 } else if (!a.quiet) {
                                                   std::cerr << line << "\n";
                                                 }
                                               });
  }

  nlohmann::json options = {{"workload", workload->label()},
                            {"workload_id", workload->id()},
                            {"device", device.name},
                            {"precisions", precisions},
                            {"strategy", a.strategy.kind},
                            {"budget", a.strategy.budget},
                            {"seed", a.strategy.seed},
                            {"finalists", a.strategy.finalists},
                            {"candidates", a.strategy.candidates},
                            {"overlays", a.strategy.overlays},
                            {"sprint", a.strategy.sprint},
                            {"initial", a.strategy.initial},
                            {"tuner", eo.tuner},
                            {"board", eo.board.to_json()}};
  std::vector<std::unique_ptr<dse::DesignSpace>> spaces;
  std::vector<const dse::DesignSpace*> space_ptrs;
  std::vector<dse::PrecisionResult> results;
  for (int p : precisions) {
    spaces.push_back(std::make_unique<dse::DesignSpace>(setup.space(p)));
    const dse::DesignSpace& space = *spaces.back();
    space_ptrs.push_back(&space);
    dse::ExploreOptions xo;
    xo.strategy = a.strategy;
    xo.threads = a.threads;
    xo.runner = slurm.get();
    int64_t step = 0;
    auto last = std::chrono::steady_clock::now() - std::chrono::hours(1);
    if (!a.quiet || a.progress) xo.progress = [&](const dse::ExploreProgress& q) {
      // A line a second on a terminal, one every 15 s in a log.
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::seconds(stderr_is_terminal() ? 1 : 15)) return;
      last = now;
      const std::string line = fmt::format("W{}A{} {}: {} of {} pruned designs priced, {} timed, {} feasible, best "
                                           "{:.2f} GOPS, {:.0f} designs/s",
                                           p, p, a.strategy.kind, q.evaluated - q.timed, q.pruned, q.timed, q.feasible,
                                           q.best_gops, q.designs_per_second);
      a.progress ? a.progress(line) : show_progress(line, ++step, false, 1);
    };
    if (!a.quiet) std::cerr << fmt::format("W{}A{} on {}: raw space {:.3g} designs\n", p, p, device.board, space.raw_size());
    results.push_back(dse::explore(space, evaluator, xo));
    const dse::PrecisionResult& r = results.back();
    const std::string done = fmt::format("W{}A{} {}: {} designs evaluated ({} pruned), {} feasible, {:.1f} s", p, p,
                                         a.strategy.kind, r.evaluations.size(), r.pruned_size, r.feasible(), r.wall_seconds);
    if (a.progress) {
      a.progress(done);
    } else if (!a.quiet) {
      show_progress(done, ++step, true);
    }
  }
  if (slurm) {
    const dse::SlurmRunner::Stats& st = slurm->stats();
    options["slurm"] = {{"rounds", st.rounds},
                        {"submissions", st.submissions},
                        {"array_tasks", st.tasks},
                        {"evaluations", st.evaluations},
                        {"resubmitted_tasks", st.resubmitted_tasks},
                        {"wait_seconds", st.wait_seconds},
                        {"options", to_json(resolved_slurm_options(a.slurm_options))}};
  }
  const nlohmann::json summary = dse::write_outputs(a.out, results, space_ptrs, evaluator, options);

  out << fmt::format("{} on {} ({}), strategy {}\n\n", workload->label(), device.board, device.part,
                           a.strategy.kind);
  out << fmt::format("{:<6} {:>10} {:>8} {:>9} {:>8}  {:<28} {:>6} {:>7} {:>5} {:>6} {:>8} {:>8}\n", "prec",
                           "raw", "pruned", "evaluated", "feasible", "best design", "MHz", "LUT", "DSP", "BRAM",
                           "GOPS", "ms");
  for (size_t i = 0; i < results.size(); ++i) {
    const dse::PrecisionResult& r = results[i];
    std::string name = "-", mhz = "-", lut = "-", dsp = "-", bram = "-", gops = "-", ms = "-";
    if (r.best) {
      const dse::Evaluation& b = r.evaluations[*r.best];
      name = b.config.name();
      mhz = fmt::format("{:.0f}", b.clock_mhz);
      lut = fmt::format("{:.0f}", b.resources.lut);
      dsp = fmt::format("{:.0f}", b.resources.dsp);
      bram = fmt::format("{:.1f}", b.resources.bram36);
      gops = fmt::format("{:.2f}", b.gops);
      ms = fmt::format("{:.3f}", b.latency_ms);
    }
    out << fmt::format("W{}A{:<3} {:>10.3g} {:>8} {:>9} {:>8}  {:<28} {:>6} {:>7} {:>5} {:>6} {:>8} {:>8}\n",
                             r.precision, r.precision, r.raw_size, r.pruned_size, r.evaluations.size(), r.feasible(),
                             name, mhz, lut, dsp, bram, gops, ms);
  }
  for (const dse::PrecisionResult& r : results) {
    if (r.importance.targets.empty()) continue;
    out << fmt::format("\nW{}A{} feature importance (held-out: share within 10%, median error)\n", r.precision,
                             r.precision);
    for (const dse::TargetReport& t : r.importance.targets) {
      std::string top;
      for (size_t k = 0; k < t.importance.size() && k < 4; ++k) {
        if (t.importance[k].second <= 0) break;
        top += fmt::format("{}{} {:.2f}", k ? ", " : "", t.importance[k].first, t.importance[k].second);
      }
      out << fmt::format("  {:<5} {:>5.0f}% {:>6.1f}%  {}\n", dse::target_name(t.target), 100 * t.within10,
                               100 * t.median_error, top);
    }
  }
  out << fmt::format("\nwrote {}/designs.csv, summary.json, importance.csv, pareto.csv, convergence.csv, best/\n",
                           a.out);
  if (!a.html.empty()) {
    report::Page page;
    page.kind = report::PageKind::kDse;
    page.title = fmt::format("tauvta dse: {} on {} ({})", workload->label(), device.board, a.strategy.kind);
    page.config = eo.board.to_json();  // the board's memory side every design shares
    page.report = summary;
    page.extra = {{"evaluations", read_evaluations(a.out, 20000)}};
    report::write_html_report(a.html, std::move(page), a.model.force);
    out << fmt::format("html: {}\n", a.html);
  }
  return summary;
}

namespace {
void add_dse(CLI::App& app) {
  auto a = std::make_shared<DseArgs>();
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
  cmd->add_option("--out", a->out, "output directory (the same command resumes from it)");
  cmd->add_option("--html", a->html, "Self-contained HTML report: designs by resources and GOPS, Pareto fronts, convergence");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress lines");
  add_slurm_args(cmd, a->slurm, a->slurm_options);
  add_dse_worker(cmd);
  cmd->callback([a, cmd] {
    if (cmd->got_subcommand("worker")) return;  // `dse worker` ran in its own callback
    dse_command(*a, std::cout);
  });
}

const CommandRegistrar reg("dse", add_dse);

}  // namespace
}  // namespace tauvta::cli
