// tauvta.compile / tauvta.load and tauvta.Network: a model compiled for a config (or a .tauvta
// artifact) run on the simulated board, timed, or run on the integer and float references.
#include <filesystem>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "backend/artifact.h"
#include "backend/network_report.h"
#include "backend/network_runner.h"
#include "common/file_io.h"
#include "hw/config_file.h"
#include "report/html_file.h"
#include "backend/accelerator_run.h"
#include "backend/build_network.h"
#include "common/error.h"
#include "cpu/int_executor.h"
#include "python/bindings.h"
#include "python/progress.h"
#include "python/py_convert.h"

namespace tauvta::python {

namespace {

// The simulated board a network runs on, loaded on the first run and kept for the next ones
// (loading the program costs as much as a small network's run). One run at a time.
struct Board {
  std::mutex mu;
  std::unique_ptr<backend::NetworkRunner> runner;
  std::unique_ptr<backend::NetworkRunner> rtl_runner;  // the RTL backend's (run(..., rtl=True))
};

// A compiled network and what building it noted; the source names it in reports and errors.
// Lives in Python's holder from construction on, so the board's reference to `built.net` holds.
struct Network {
  backend::BuiltNetwork built;
  std::string source;
  std::unique_ptr<Board> board = std::make_unique<Board>();
};

Network compile_model(const std::string& model, const py::handle& config, const std::string& calibrate,
                      const std::string& tuning_log, std::optional<int64_t> batch, int64_t calib_samples,
                      const std::string& calib_stat, bool per_channel, const py::object& progress) {
  model::ModelSource m;
  m.model = model;
  if (!config.is_none()) m.config_value = config_arg(config);
  m.calibrate = calibrate;
  m.calib_samples = calib_samples;
  m.calib_stat = calib_stat;
  m.per_channel = per_channel;
  m.progress = line_progress(progress);
  backend::NetworkRequest n;
  n.tuning_log = tuning_log;
  n.batch = batch;
  Network net;
  net.built = without_gil([&] { return backend::build_network(m, n); });
  net.source = model;
  return net;
}

const graph::Graph& float_graph(const Network& n) {
  if (!n.built.model) throw Error(fmt::format("{}: a compiled artifact holds no float graph; compile the ONNX model", n.source));
  return n.built.model->float_graph;
}

void write_run_page(const Network& n, const nlohmann::json& report, const std::string& html, bool force,
                    const std::string& call) {
  report::Page page;
  page.kind = report::PageKind::kRun;
  page.title = fmt::format("tauvta run: {} on {}", n.source, n.built.net.config.name());
  page.command = call;
  page.config = n.built.net.config.to_json();
  page.report = report;
  page.extra = hw::roofline_json(n.built.net.config);
  report::write_html_report(html, std::move(page), force);
}

py::tuple run_network(const Network& n, const py::handle& inputs, bool check_hazards, const std::string& html,
                      bool force, bool rtl) {
  if (!html.empty()) check_can_write(html, force);
  cpu::TensorMap in = inputs_from_python(inputs, n.built.net.graph);
  backend::NetworkRun run = without_gil([&] {
    std::lock_guard lock(n.board->mu);
    std::unique_ptr<backend::NetworkRunner>& runner = rtl ? n.board->rtl_runner : n.board->runner;
    if (!runner) runner = std::make_unique<backend::NetworkRunner>(n.built.net, 1, rtl);
    backend::NetworkRunOptions o;
    o.check_hazards = check_hazards;
    return runner->run(in, o);
  });
  const nlohmann::json report = backend::run_report(n.built.net, run, n.built.report);
  if (!html.empty()) write_run_page(n, report, html, force, fmt::format("tauvta.compile('{}').run(...)", n.source));
  if (!run.total.hazards.empty()) {
    throw Error(fmt::format("{} hazard(s) found; first: {}", run.total.hazards.size(), run.total.hazards[0].message()));
  }
  return py::make_tuple(to_numpy_dict(std::move(run.outputs)), to_python(report));
}

py::object time_network(const Network& n, const std::string& html, bool force) {
  if (!html.empty()) check_can_write(html, force);
  const backend::NetworkRun run = without_gil([&] { return backend::time_network(n.built.net); });
  const nlohmann::json report = backend::run_report(n.built.net, run, n.built.report);
  if (!html.empty()) write_run_page(n, report, html, force, fmt::format("tauvta.compile('{}').time()", n.source));
  return to_python(report);
}

}  // namespace

void bind_network(py::module_& m) {
  py::class_<Network>(m, "Network", "A network compiled for one hardware config (tauvta.compile or tauvta.load)")
      .def("run", &run_network, py::arg("inputs"), py::arg("check_hazards") = false, py::arg("html") = "",
           py::arg("force") = false, py::arg("rtl") = false,
           "Run on the simulated board: inputs is {name: array} (or one array for a one-input model). Returns "
           "(outputs as {name: array}, the run report as a dict, as `tauvta run --report` writes it). rtl=True "
           "also runs every accelerator program on the generated accelerator in Verilator, checked bit for bit; "
           "the report's 'rtl' entry has its cycles per layer beside the timing model's.")
      .def("time", &time_network, py::arg("html") = "", py::arg("force") = false,
           "Cycles from the timing model only (nothing computed): the run report as a dict")
      .def("run_int",
           [](const Network& n, const py::handle& inputs) {
             cpu::TensorMap in = inputs_from_python(inputs, n.built.net.graph);
             return to_numpy_dict(without_gil([&] { return cpu::run_int(n.built.net.graph, in); }));
           },
           py::arg("inputs"), "The integer reference: exactly what the accelerator computes")
      .def("run_float",
           [](const Network& n, const py::handle& inputs) {
             const graph::Graph& g = float_graph(n);
             cpu::TensorMap in = inputs_from_python(inputs, g);
             return to_numpy_dict(without_gil([&] { return cpu::run_float(g, in); }));
           },
           py::arg("inputs"), "The float reference (equal to PyTorch's outputs)")
      .def("save",
           [](const Network& n, const std::string& path, bool force) {
             without_gil([&] { backend::save_network(n.built.net, path, force); return 0; });
           },
           py::arg("path"), py::arg("force") = false, "Write a .tauvta artifact (tauvta.load and `tauvta run` read it)")
      .def_property_readonly("config", [](const Network& n) { return n.built.net.config; })
      .def_property_readonly("batch", [](const Network& n) { return n.built.batch; })
      .def_property_readonly("inputs", [](const Network& n) { return n.built.net.graph.inputs; })
      .def_property_readonly("outputs", [](const Network& n) { return n.built.net.graph.outputs; })
      .def_property_readonly("placement", [](const Network& n) { return to_python(backend::placement_json(n.built.net)); },
                             "Every layer: where it runs and why, its workload and schedule")
      .def_property_readonly("build_report", [](const Network& n) { return to_python(n.built.report); },
                             "Model, resolved config, pass times, quantization settings, tuning-log use")
      .def_property_readonly("warnings",
                             [](const Network& n) {
                               return n.built.model ? n.built.model->warnings : std::vector<std::string>{};
                             })
      .def("placement_table", [](const Network& n) { return backend::placement_table(n.built.net); })
      .def("__repr__", [](const Network& n) {
        return fmt::format("<tauvta.Network {} on {}: {} layers, {} on the accelerator>", n.source,
                           n.built.net.config.name(), n.built.net.layers.size(), n.built.net.vta_layers());
      });

  m.def("compile", &compile_model, py::arg("model"), py::arg("config") = py::none(), py::arg("calibrate") = "",
        py::arg("tuning_log") = "", py::arg("batch") = py::none(),
        py::arg("calib_samples") = model::ModelSource{}.calib_samples, py::arg("calib_stat") = model::ModelSource{}.calib_stat,
        py::arg("per_channel") = false, py::arg("progress") = py::none(),
        "Quantize an ONNX model for a config (calibrating on an IDX/.npy file when given) and compile it; "
        "tuning_log: AutoTVM records whose best schedules are used. A .tauvta path is loaded instead.");
  m.def("load",
        [](const std::string& path, const py::handle& config) {
          if (!backend::is_network_artifact(path)) throw Error(fmt::format("{}: not a compiled network (.tauvta)", path));
          const model::ModelSource defaults;
          return compile_model(path, config, "", "", std::nullopt, defaults.calib_samples, defaults.calib_stat, false,
                               py::none());
        },
        py::arg("path"), py::arg("config") = py::none(), "Load a .tauvta artifact (config: check it was compiled for it)");
}

}  // namespace tauvta::python
