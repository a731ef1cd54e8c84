// The tools as calls returning plain Python data: op and op_log (one workload, an AutoTVM log),
// tune, precision_show / precision_set / precision_tune, dse, resources. Each fills the same
// arguments its command does and returns the JSON report that command writes; with verbose=True
// the command's tables are printed through Python (so notebooks show them).
#include <sstream>

#include <optional>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "backend/op_runner.h"
#include "backend/op_log_run.h"
#include "common/error.h"
#include "dse/exploration_run.h"
#include "dse/strategy.h"
#include "fpga/resource_report.h"
#include "hw/implementation_overrides.h"
#include "precision/precision_run.h"
#include "tune/task.h"
#include "tune/tuner.h"
#include "tune/tune_run.h"
#include "python/bindings.h"
#include "python/progress.h"
#include "python/py_convert.h"

namespace tauvta::python {

namespace {

model::ModelSource model_args(const std::string& model, const py::handle& config, const std::string& calibrate,
                          int64_t calib_samples = model::ModelSource{}.calib_samples) {
  model::ModelSource m;
  m.model = model;
  if (!config.is_none()) m.config_value = config_arg(config);
  m.calibrate = calibrate;
  m.calib_samples = calib_samples;
  m.progress = [](const std::string&) {};
  return m;
}

// Runs a command's call without the GIL, its terminal text kept and printed through Python when
// `verbose`.
template <class F>
py::object command(bool verbose, F&& f) {
  std::ostringstream text;
  const nlohmann::json j = without_gil([&] { return f(text); });
  if (verbose) py::print(text.str(), py::arg("end") = "");
  return to_python(j);
}

py::object op(const std::string& workload, const py::handle& config, const std::string& schedule, bool timing_only,
              uint64_t seed, bool bias, bool check_hazards) {
  const hw::HwConfig c = config_arg(config);
  lower::ConvWorkload w = tune::parse_workload_spec(workload);
  w.validate();
  std::optional<lower::Schedule> s;
  if (!schedule.empty()) s = lower::Schedule::parse(schedule);
  backend::OpRunOptions o;
  o.timing_only = timing_only;
  o.check_hazards = check_hazards;
  o.seed = seed;
  o.bias = bias;
  const backend::OpRun r = without_gil([&] { return backend::run_op(c, w, s, o); });
  if (!timing_only && !r.verified) throw Error("op result mismatch: " + r.mismatch);
  if (!r.report.hazards.empty()) throw Error(fmt::format("{} hazard(s) found", r.report.hazards.size()));
  return to_python(backend::op_report_json(c, w, s ? "given" : "default heuristic", r, {}, 0));
}

}  // namespace

void bind_tools(py::module_& m) {
  m.def("op", &op, py::arg("workload"), py::arg("config") = py::none(), py::arg("schedule") = "",
        py::arg("timing_only") = false, py::arg("seed") = 1, py::arg("bias") = false, py::arg("check_hazards") = false,
        "Run one workload ('conv2d,ci=256,h=14,w=14,co=256,k=3,s=1,p=1') with a schedule (default: the heuristic) "
        "on the simulated board, verified against the integer reference: `tauvta op --report`'s JSON");

  m.def("op_log",
        [](const std::string& log, const py::handle& config, bool timing_only, const std::string& html, bool force,
           bool verbose) {
          backend::OpLogRequest a;
          a.log = log;
          if (!config.is_none()) a.config = py::str(config).cast<std::string>();
          a.timing_only = timing_only;
          a.html = html;
          a.force = force;
          return command(verbose, [&](std::ostream& out) { return backend::run_op_log(a, out); });
        },
        py::arg("log"), py::arg("config") = py::none(), py::arg("timing_only") = true, py::arg("html") = "",
        py::arg("force") = false, py::arg("verbose") = false,
        "Every VTA record of an AutoTVM/TopHub log, timed (or run) as `tauvta op --log` does: its report as a dict");

  m.def("tune",
        [](const std::string& model, const std::string& log, const std::string& workload, const py::handle& config,
           const std::string& calibrate, int64_t trials, const std::string& tuner, uint64_t seed, int threads,
           int64_t early_stopping, const std::string& tasks, const std::string& html, bool force,
           const py::object& progress, bool verbose) {
          tune::TuneRequest a;
          a.model = model_args(model, config, calibrate);
          a.model.force = force;
          a.workload = workload;
          a.log = log;
          a.html = html;
          a.tasks = tasks;
          a.options.trials = trials;
          a.options.searcher.kind = tuner;
          a.options.searcher.seed = seed;
          a.options.early_stopping = early_stopping;
          a.threads = threads;
          a.quiet = true;
          if (!progress.is_none()) {
            auto line = line_progress(progress);
            a.progress = [line](const tune::TaskProgress& p, bool) {
              line(fmt::format("task {}/{} {}: {}/{} trials, best {:.2f} GOPS", p.task + 1, p.tasks, p.t->name, p.trials,
                               p.budget, p.best_gops));
            };
          } else {
            a.progress = [](const tune::TaskProgress&, bool) {};
          }
          return command(verbose, [&](std::ostream& out) { return tune::run_tune(a, out); });
        },
        py::arg("model") = "", py::arg("log") = "", py::arg("workload") = "", py::arg("config") = py::none(),
        py::arg("calibrate") = "", py::arg("trials") = tune::TuneOptions{}.trials,
        py::arg("tuner") = tune::TuneOptions{}.searcher.kind, py::arg("seed") = 1,
        py::arg("threads") = 0, py::arg("early_stopping") = 0, py::arg("tasks") = "", py::arg("html") = "",
        py::arg("force") = false, py::arg("progress") = py::none(), py::arg("verbose") = false,
        "Tune a model's (or one workload's) accelerator layers, appending every trial to `log` (an existing log "
        "resumes): `tauvta tune --report`'s JSON. progress(line) is called as trials finish.");

  m.def("precision_show",
        [](const std::string& model, const py::handle& config, const std::string& calibrate, int64_t calib_samples,
           bool verbose) {
          const model::ModelSource a = model_args(model, config, calibrate, calib_samples);
          return command(verbose, [&](std::ostream& out) { return precision::show_formats(a, out); });
        },
        py::arg("model"), py::arg("config") = py::none(), py::arg("calibrate") = "", py::arg("calib_samples") = model::ModelSource{}.calib_samples,
        py::arg("verbose") = false, "Every layer's output format of a model quantized for a config, or of a .tauvta");

  m.def("precision_set",
        [](const std::string& artifact, const std::map<std::string, std::string>& changes, const std::string& output,
           bool force, bool verbose) {
          precision::FormatSetRequest a;
          a.artifact = artifact;
          a.out = output;
          a.force = force;
          for (const auto& [layer, q] : changes) a.changes.push_back(layer + "=" + q);
          return command(verbose, [&](std::ostream& out) { return precision::set_formats_in_artifact(a, out); });
        },
        py::arg("artifact"), py::arg("changes"), py::arg("output") = "", py::arg("force") = false,
        py::arg("verbose") = false,
        "Set layers' formats ({layer: 'Q3.4'}) in a .tauvta: patched in place (output='' and force=True) or "
        "written to output");

  m.def("precision_tune",
        [](const std::string& model, const std::string& images, const std::string& labels, const std::string& out_dir,
           const py::handle& config, const std::string& start, const std::string& mode, double threshold, int limit,
           int64_t tune_images, int64_t holdout, int64_t batch, int boards, const std::string& html, bool force,
           const py::object& progress, bool verbose) {
          precision::PrecisionTuneRequest a;
          a.model = model_args(model, config, "");
          a.model.force = force;
          a.images = images;
          a.labels = labels;
          a.out = out_dir;
          a.html = html;
          a.start = start;
          a.mode = mode;
          a.threshold = threshold;
          a.limit = limit;
          a.tune_images = tune_images;
          a.holdout = holdout;
          a.batch = batch;
          a.boards = boards;
          a.progress = line_progress(progress);
          return command(verbose, [&](std::ostream& out) { return precision::tune_formats(a, out); });
        },
        py::arg("model"), py::arg("images"), py::arg("labels"), py::arg("out"), py::arg("config") = py::none(),
        py::arg("start") = precision::PrecisionTuneRequest{}.start, py::arg("mode") = precision::PrecisionTuneRequest{}.mode,
        py::arg("threshold") = precision::PrecisionTuneRequest{}.threshold, py::arg("limit") = precision::PrecisionTuneRequest{}.limit,
        py::arg("tune_images") = precision::PrecisionTuneRequest{}.tune_images, py::arg("holdout") = precision::PrecisionTuneRequest{}.holdout,
        py::arg("batch") = precision::PrecisionTuneRequest{}.batch, py::arg("boards") = 0,
        py::arg("html") = "", py::arg("force") = false, py::arg("progress") = py::none(), py::arg("verbose") = false,
        "Tune per-layer formats on the simulated accelerator (OTune's loop or a search): result.json's content");

  m.def("dse",
        [](const std::string& model, const std::string& workload, const std::string& out_dir, const std::string& device,
           const std::string& precisions, const std::string& strategy, int64_t budget, uint64_t seed, int threads,
           int finalists, int candidates, int overlays, int sprint, int initial, const py::handle& config,
           const std::string& calibrate, const std::string& images, const std::string& labels, double max_accuracy_drop,
           double min_accuracy, int64_t accuracy_tune_images, int64_t accuracy_holdout, const std::string& accuracy_mode,
           int accuracy_limit, const std::string& html, bool force, const py::object& progress, bool verbose) {
          dse::ExplorationRequest a;
          a.model = model_args(model, config, calibrate);
          a.accuracy.images = images;
          a.accuracy.labels = labels;
          a.accuracy.max_drop_points = max_accuracy_drop;
          a.accuracy.min_accuracy = min_accuracy;
          a.accuracy.tune_images = accuracy_tune_images;
          a.accuracy.holdout_images = accuracy_holdout;
          a.accuracy.mode = accuracy_mode;
          a.accuracy.limit = accuracy_limit;
          a.model.force = force;
          a.workload = workload;
          a.out = out_dir;
          a.device = device;
          a.precisions = precisions;
          a.strategy.kind = strategy;
          a.strategy.budget = budget;
          a.strategy.seed = seed;
          a.strategy.finalists = finalists;
          a.strategy.candidates = candidates;
          a.strategy.overlays = overlays;
          a.strategy.sprint = sprint;
          a.strategy.initial = initial;
          a.threads = threads;
          a.html = html;
          a.quiet = true;
          if (!progress.is_none()) a.progress = line_progress(progress);
          return command(verbose, [&](std::ostream& out) { return dse::run_exploration(a, out); });
        },
        py::arg("model") = "", py::arg("workload") = "", py::arg("out") = "", py::arg("device") = dse::ExplorationRequest{}.device,
        py::arg("precisions") = dse::ExplorationRequest{}.precisions, py::arg("strategy") = dse::StrategyOptions{}.kind,
        py::arg("budget") = dse::StrategyOptions{}.budget, py::arg("seed") = dse::StrategyOptions{}.seed,
        py::arg("threads") = 0, py::arg("finalists") = dse::StrategyOptions{}.finalists,
        py::arg("candidates") = dse::StrategyOptions{}.candidates, py::arg("overlays") = dse::StrategyOptions{}.overlays,
        py::arg("sprint") = dse::StrategyOptions{}.sprint, py::arg("initial") = dse::StrategyOptions{}.initial,
        py::arg("config") = py::none(), py::arg("calibrate") = "", py::arg("images") = "", py::arg("labels") = "",
        py::arg("max_accuracy_drop") = -1.0, py::arg("min_accuracy") = -1.0,
        py::arg("accuracy_tune_images") = dse::AccuracyBoundOptions{}.tune_images,
        py::arg("accuracy_holdout") = dse::AccuracyBoundOptions{}.holdout_images,
        py::arg("accuracy_mode") = dse::AccuracyBoundOptions{}.mode, py::arg("accuracy_limit") = dse::AccuracyBoundOptions{}.limit,
        py::arg("html") = "", py::arg("force") = false, py::arg("progress") = py::none(),
        py::arg("verbose") = false,
        "Hardware design-space exploration across precisions (with images, labels and a bound: only formats that keep "
        "the accuracy are feasible): summary.json's content (DIR resumes)");

  m.def("resources",
        [](const py::handle& config, const std::string& device, double max_utilization, std::optional<std::string> binding,
           std::optional<int> tree_levels, std::optional<int> acc_ports, const py::handle& dsp_limit,
           std::optional<int> alu_lanes, std::optional<bool> alu_mul) {
          hw::ImplementationOverrides o;
          o.binding = binding;
          o.tree_levels = tree_levels;
          o.acc_ports = acc_ports;
          if (!dsp_limit.is_none()) o.dsp_limit = py::str(dsp_limit).cast<std::string>();
          o.alu_lanes = alu_lanes;
          o.alu_mul = alu_mul;
          fpga::ResourceReportRequest a;
          a.config = hw::with_overrides(config_arg(config), o);
          a.device = device;
          a.max_util = max_utilization;
          return to_python(without_gil([&] { return fpga::resource_report(a, nullptr); }));
        },
        py::arg("config") = py::none(), py::arg("device") = "", py::arg("max_utilization") = 1.0,
        py::arg("binding") = py::none(), py::arg("tree_levels") = py::none(), py::arg("acc_ports") = py::none(),
        py::arg("dsp_limit") = py::none(), py::arg("alu_lanes") = py::none(), py::arg("alu_mul") = py::none(),
        "FPGA resources, clock and fit of a config on a device (or 'all'): `tauvta hw resources --json`; the "
        "implementation options replace the config's IMPLEMENTATION keys ('fits' is False when it fits none)");
}

}  // namespace tauvta::python
