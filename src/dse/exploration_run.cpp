// The exploration as a call (dse/exploration_run.h). Per precision: the raw and pruned space
// sizes, a progress line, then an end table of the best design per precision; the output
// directory holds every evaluated design (CSV, and the JSON-lines cache the same call resumes
// from), the best design's vta_config.json and tuning log, importance, Pareto fronts and
// convergence (dse/dse_report.h).
#include "dse/exploration_run.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cluster/array_options_io.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/progress.h"
#include "dse/dse_report.h"
#include "dse/exploration_setup.h"
#include "dse/explorer.h"
#include "dse/format_accuracy_report.h"
#include "common/atomic_file.h"
#include "dse/rtl_check.h"
#include "dse/slurm_runner.h"
#include "fpga/device.h"
#include "report/html_file.h"

namespace tauvta::dse {

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

nlohmann::json run_exploration(const ExplorationRequest& a, std::ostream& out) {
  if (a.out.empty()) throw Error("--out is required (see tauvta dse --help)");
  check_can_write(a.html, a.model.force);
  if (a.model.model.empty() == a.workload.empty()) throw Error("dse: give a model or --workload SPEC (one of them)");
  check_strategy(a.strategy);  // before anything is loaded or written
  check_accuracy_options(a.accuracy);
  if (a.slurm) cluster::resolved_array_options(a.slurm_options);
  ExplorationSetup setup = make_exploration_setup(a);
  const fpga::Device& device = *setup.device;
  const std::vector<int>& precisions = setup.precisions;
  DseWorkload* workload = setup.workload.get();
  auto say = [&a](const std::string& line) {
    if (a.progress) {
      a.progress(line);
    } else if (!a.quiet) {
      std::cerr << line << "\n";
    }
  };
  // The accuracy step judges each precision's formats before its designs are explored.
  std::unique_ptr<FormatAccuracyStep> accuracy;
  if (a.accuracy.enabled()) {
    accuracy = std::make_unique<FormatAccuracyStep>(*workload, a.accuracy, a.out, say);
    setup.evaluator.accuracy = accuracy.get();
  }
  const EvaluatorOptions& eo = setup.evaluator;
  ResultCache cache(std::filesystem::path(a.out) / "evaluations.jsonl");
  if (!cache.repair_note().empty()) std::cerr << "note: " << cache.repair_note() << "\n";
  if (cache.size() > 0) std::cerr << fmt::format("resuming: {} evaluations in {}\n", cache.size(), cache.path().string());
  Evaluator evaluator(*workload, eo, &cache);
  // --slurm: every batch a job array; the rounds live under OUT/slurm.
  std::unique_ptr<SlurmRunner> slurm;
  if (a.slurm) {
    slurm = std::make_unique<SlurmRunner>(std::filesystem::absolute(a.out) / "slurm", exploration_job_spec(a),
                                               cluster::resolved_array_options(a.slurm_options),
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
  std::vector<std::unique_ptr<DesignSpace>> spaces;
  std::vector<const DesignSpace*> space_ptrs;
  std::vector<PrecisionResult> results;
  std::vector<FormatAccuracy> formats;  // every precision's, in order
  for (int p : precisions) {
    spaces.push_back(std::make_unique<DesignSpace>(setup.space(p)));
    const DesignSpace& space = *spaces.back();
    space_ptrs.push_back(&space);
    if (accuracy) {
      for (FormatAccuracy& f : accuracy->evaluate(space)) {
        say(format_accuracy_line(f));
        formats.push_back(std::move(f));
      }
    }
    ExploreOptions xo;
    xo.strategy = a.strategy;
    xo.threads = a.threads;
    xo.runner = slurm.get();
    int64_t step = 0;
    auto last = std::chrono::steady_clock::now() - std::chrono::hours(1);
    if (!a.quiet || a.progress) xo.progress = [&](const ExploreProgress& q) {
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
    results.push_back(explore(space, evaluator, xo));
    const PrecisionResult& r = results.back();
    const std::string done = fmt::format("W{}A{} {}: {} designs evaluated ({} pruned), {} feasible, {:.1f} s", p, p,
                                         a.strategy.kind, r.evaluations.size(), r.pruned_size, r.feasible(), r.wall_seconds);
    if (a.progress) {
      a.progress(done);
    } else if (!a.quiet) {
      show_progress(done, ++step, true);
    }
  }
  if (slurm) {
    const SlurmRunner::Stats& st = slurm->stats();
    options["slurm"] = {{"rounds", st.rounds},
                        {"submissions", st.submissions},
                        {"array_tasks", st.tasks},
                        {"evaluations", st.evaluations},
                        {"resubmitted_tasks", st.resubmitted_tasks},
                        {"wait_seconds", st.wait_seconds},
                        {"options", cluster::to_json(cluster::resolved_array_options(a.slurm_options))}};
  }
  if (accuracy) options["accuracy"] = accuracy_options_json(*accuracy);
  nlohmann::json summary = write_outputs(a.out, results, space_ptrs, evaluator, options);
  if (accuracy) {
    summary["accuracy"] = accuracy_summary(formats, *accuracy);
    for (size_t i = 0; i < results.size(); ++i) {
      nlohmann::json& p = summary["precisions"][i];
      p["formats"] = nlohmann::json::array();
      for (const FormatAccuracy& f : formats) {
        if (f.precision == results[i].precision) {
          p["formats"].push_back({{"key", f.key}, {"tuned_accuracy", f.tuned_accuracy}, {"meets_bound", f.meets},
                                  {"reason", f.reason}});
        }
      }
      if (!results[i].best) continue;
      // The chosen design's network with its format's tuned binary points, ready to run.
      const Evaluation& b = results[i].evaluations[*results[i].best];
      const auto f = accuracy->find(b.precision, b.config.acc_width());
      if (!f) continue;
      const std::filesystem::path bdir = std::filesystem::path(a.out) / "best" / fmt::format("p{}", b.precision);
      write_best_network(*workload, *f, b.config, bdir);
      p["best"]["network"] = (bdir / "network.tauvta").string();
      p["best"]["formats_file"] = (bdir / "formats.txt").string();
    }
    write_file_atomic(std::filesystem::path(a.out) / "summary.json", summary.dump(2) + "\n");
  }
  std::vector<RtlCheck> checks;
  if (a.rtl_check > 0) {
    int64_t step = 0;
    checks = rtl_check(*workload, evaluator, results, a.rtl_check, [&](const std::string& line) {
      a.progress ? a.progress(line) : (a.quiet ? void() : show_progress(line, ++step, false, 1));
    });
    summary["rtl_check"] = rtl_check_json(checks);
    write_file_atomic(std::filesystem::path(a.out) / "summary.json", summary.dump(2) + "\n");
  }

  out << fmt::format("{} on {} ({}), strategy {}\n\n", workload->label(), device.board, device.part,
                           a.strategy.kind);
  out << fmt::format("{:<6} {:>10} {:>8} {:>9} {:>8}  {:<28} {:>6} {:>7} {:>5} {:>6} {:>8} {:>8}{}\n", "prec",
                           "raw", "pruned", "evaluated", "feasible", "best design", "MHz", "LUT", "DSP", "BRAM",
                           "GOPS", "ms", accuracy ? fmt::format(" {:>7}", "top-1") : "");
  for (size_t i = 0; i < results.size(); ++i) {
    const PrecisionResult& r = results[i];
    std::string name = "-", mhz = "-", lut = "-", dsp = "-", bram = "-", gops = "-", ms = "-", top1 = "-";
    if (r.best) {
      const Evaluation& b = r.evaluations[*r.best];
      name = b.config.name();
      mhz = fmt::format("{:.0f}", b.clock_mhz);
      lut = fmt::format("{:.0f}", b.resources.lut);
      dsp = fmt::format("{:.0f}", b.resources.dsp);
      bram = fmt::format("{:.1f}", b.resources.bram36);
      gops = fmt::format("{:.2f}", b.gops);
      ms = fmt::format("{:.3f}", b.latency_ms);
      if (b.accuracy >= 0) top1 = fmt::format("{:.4f}", b.accuracy);
    }
    out << fmt::format("W{}A{:<3} {:>10.3g} {:>8} {:>9} {:>8}  {:<28} {:>6} {:>7} {:>5} {:>6} {:>8} {:>8}{}\n",
                             r.precision, r.precision, r.raw_size, r.pruned_size, r.evaluations.size(), r.feasible(),
                             name, mhz, lut, dsp, bram, gops, ms, accuracy ? fmt::format(" {:>7}", top1) : "");
  }
  if (accuracy) out << "\n" << format_accuracy_table(formats, *accuracy);
  for (const PrecisionResult& r : results) {
    if (r.importance.targets.empty()) continue;
    out << fmt::format("\nW{}A{} feature importance (held-out: share within 10%, median error)\n", r.precision,
                             r.precision);
    for (const TargetReport& t : r.importance.targets) {
      std::string top;
      for (size_t k = 0; k < t.importance.size() && k < 4; ++k) {
        if (t.importance[k].second <= 0) break;
        top += fmt::format("{}{} {:.2f}", k ? ", " : "", t.importance[k].first, t.importance[k].second);
      }
      out << fmt::format("  {:<5} {:>5.0f}% {:>6.1f}%  {}\n", target_name(t.target), 100 * t.within10,
                               100 * t.median_error, top);
    }
  }
  if (!checks.empty()) out << rtl_check_table(checks);
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

}  // namespace tauvta::dse
