#include "backend/accelerator_run.h"

#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/network_accuracy.h"
#include "fpga/feasibility.h"
#include "backend/network_report.h"
#include "backend/network_runner.h"
#include "backend/rtl_report.h"
#include "common/file_io.h"
#include "hw/config_file.h"
#include "report/html_file.h"
#include "model/model_inputs.h"
#include "common/progress.h"
#include "common/error.h"
#include "cpu/int_executor.h"
#include "io/tensor_files.h"
#include "model/accuracy.h"
#include "model/compare.h"

namespace tauvta::backend {

namespace {

void accelerator_progress_bar(int64_t done, int64_t total) {
  static int64_t updates = 0;
  show_progress(progress_bar_line(done, total, "images on the accelerator"), ++updates, done == total);
}

}  // namespace

InstrumentRequest instrument_request(const InstrumentOptions& a) {
  InstrumentRequest r;
  r.settings = a.settings;
  for (const std::string& s : a.specs) r.specs.push_back(parse_instrument_spec(s));
  if (!a.trace_out.empty() && r.specs.empty()) throw Error("--trace-out needs --instrument");
  return r;
}

nlohmann::json run_report(const CompiledNetwork& net, const NetworkRun& run,
                          const nlohmann::json& build_report) {
  nlohmann::json j = network_report_json(net, run);
  for (auto& [k, v] : build_report.items()) {
    if (k != "config") j[k] = v;
  }
  if (run.on_rtl) j["rtl"] = rtl_comparison_json(net, run);
  return j;
}

nlohmann::json run_on_accelerator(const AcceleratorRunRequest& request, std::ostream& out) {
  AcceleratorRunRequest a = request;
  if (a.images.empty() != a.labels.empty()) throw Error("run: --images and --labels go together");
  // Said before compiling and calibrating, not after.
  if (!a.timing_only && a.images.empty() && a.inputs.empty()) {
    throw Error("run: give the inputs (--input NAME=FILE, .npy or .pb), or --images and --labels, or --timing-only");
  }
  // A model with a symbolic batch runs at the batch of the inputs given.
  if (!a.network.batch && !a.inputs.empty()) {
    const std::string& spec = a.inputs.front();
    const size_t eq = spec.find('=');
    // A file that cannot be read is reported where the inputs are read, after the model's errors.
    try {
      a.network.input_shape = io::read_tensor_file(eq == std::string::npos ? spec : spec.substr(eq + 1)).shape();
    } catch (const Error&) {
    }
  }
  if (a.timing_only && a.rtl) throw Error("run: --rtl runs the data on the generated accelerator: drop --timing-only");
  if (a.timing_only && (a.compare || !a.images.empty() || !a.output_dir.empty())) {
    throw Error("run: --timing-only computes no values: drop --compare-float, --images and --output-dir");
  }
  if (a.no_check && a.images.empty()) {
    throw Error("run: --no-check skips the integer reference's check of each of --images; no --images were given");
  }
  check_can_write(a.report, a.model.force);
  check_can_write(a.csv, a.model.force);
  check_can_write(a.html, a.model.force);
  const InstrumentRequest inst = instrument_request(a.instruments);
  if (!inst.empty() && a.timing_only) throw Error("run: --timing-only computes no values for --instrument to observe");
  if (!a.instruments.trace_out.empty()) check_can_write(std::filesystem::path(a.instruments.trace_out) / "instruments.json", a.model.force);
  std::unique_ptr<NetworkInstruments> observed;
  const BuiltNetwork b = build_network(a.model, a.network);
  const CompiledNetwork& net = b.net;
  nlohmann::json report = b.report;
  NetworkRun run;

  if (a.timing_only) {
    run = time_network(net);
  } else if (!a.images.empty()) {
    const graph::Tensor images = io::read_idx(a.images), labels = io::read_idx(a.labels);
    NetworkAccuracyOptions o;
    o.begin = a.begin;
    o.limit = a.limit;
    o.check_hazards = a.check_hazards;
    o.rtl = a.rtl;
    o.check_reference = !a.no_check;
    o.threads = a.boards > 0 ? a.boards : int(std::max(1u, std::thread::hardware_concurrency()));
    if (!inst.empty()) o.instruments = &inst;
    if (b.model) o.float_graph = &b.model->float_graph;
    if (!a.quiet) o.progress = accelerator_progress_bar;
    NetworkAccuracy acc = evaluate_network_accuracy(net, images, labels, o);
    run = acc.last_batch;
    observed = std::move(acc.instruments);
    out << fmt::format("\n{:<34}{:>8}\n", "top-1 accuracy", fmt::format("{} images", acc.images));
    if (b.model) out << fmt::format("  {:<32}{:>8.4f}\n", "float reference", acc.float_accuracy);
    if (o.check_reference) out << fmt::format("  {:<32}{:>8.4f}\n", "integer reference", acc.int_accuracy);
    out << fmt::format("  {:<32}{:>8.4f}\n", "accelerator (" + net.config.name() + ")", acc.accuracy);
    const std::string flag = model::accuracy_warning(acc.accuracy, model::classifier_classes(net.graph),
                                                     b.model ? acc.float_accuracy : -1.0);
    if (!flag.empty()) out << flag << "\n";
    if (o.check_reference) {
      out << fmt::format("accelerator outputs identical to the integer reference: {} ({} of {} images differ)\n",
                         acc.mismatched_images == 0 ? "yes" : "NO", acc.mismatched_images, acc.images);
    } else {
      out << "accelerator outputs not checked against the integer reference (--no-check)\n";
    }
    const double rate = acc.seconds > 0 ? double(acc.images) / acc.seconds : 0.0;
    out << fmt::format("per-layer figures below are for one batch of {}; {} images took {:.1f} s ({:.0f} images/s on {} boards)\n\n",
                       net.graph.info(net.graph.inputs[0])->shape[0], acc.images, acc.seconds, rate, o.threads);
    const nlohmann::json unchecked(nullptr);
    report["accuracy"] = {{"images", acc.images}, {"accelerator", acc.accuracy},
                          {"integer_reference", o.check_reference ? nlohmann::json(acc.int_accuracy) : unchecked},
                          {"float_reference", b.model ? nlohmann::json(acc.float_accuracy) : unchecked},
                          {"mismatched_images", o.check_reference ? nlohmann::json(acc.mismatched_images) : unchecked},
                          {"seconds", acc.seconds}, {"images_per_second", rate}, {"boards", o.threads},
                          {"warning", flag}};
    if (acc.mismatched_images != 0) {
      throw Error(fmt::format("{} images' accelerator outputs differ from the integer reference", acc.mismatched_images));
    }
  } else {
    const cpu::TensorMap inputs = model::read_input_files(a.inputs, net.graph);
    if (a.rtl && !a.quiet) std::cerr << "building the Verilated accelerator (cached once built)...\n";
    NetworkRunner runner(net, 1, a.rtl);
    NetworkRunOptions o;
    o.check_hazards = a.check_hazards;
    runner.enable_instruments(inst);
    run = runner.run(inputs, o);
    if (runner.instruments()) observed = std::make_unique<NetworkInstruments>(*runner.instruments());
    if (!a.output_dir.empty()) {
      std::filesystem::create_directories(a.output_dir);
      for (const auto& [name, t] : run.outputs) check_can_write(std::filesystem::path(a.output_dir) / io::npy_file_name(name), a.model.force);
      for (const auto& [name, t] : run.outputs) io::write_npy(std::filesystem::path(a.output_dir) / io::npy_file_name(name), t, a.model.force);
    }
    for (const auto& [name, t] : run.outputs) {
      out << fmt::format("output {}: {}{}\n", name, graph::dtype_name(t.dtype()), graph::shape_string(t.shape()));
    }
    if (a.compare) {
      if (!b.model) throw Error("run: --compare-float needs the ONNX model (a .tauvta holds no float graph)");
      const cpu::TensorMap want = cpu::run_int(net.graph, inputs);
      const cpu::TensorMap fl = cpu::run_float(b.model->float_graph, inputs);
      for (const auto& [name, t] : run.outputs) {
        const bool same = want.count(name) && want.at(name) == t;
        const std::vector<float> x = t.to_float(), y = fl.at(name).to_float();
        double dot = 0, nx = 0, ny = 0, maxerr = 0;
        for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
          dot += double(x[i]) * y[i];
          nx += double(x[i]) * x[i];
          ny += double(y[i]) * y[i];
          maxerr = std::max(maxerr, std::abs(double(x[i]) - y[i]));
        }
        const double cosine = nx > 0 && ny > 0 ? dot / std::sqrt(nx * ny) : 0;
        out << fmt::format("compare {}: identical to the integer reference: {}; vs float: cosine {:.6f}, max abs error {:.4g}\n",
                                 name, same ? "yes" : "NO", cosine, maxerr);
        report["compare_float"][name] = {{"identical_to_integer_reference", same}, {"cosine", cosine}, {"max_abs_error", maxerr}};
      }
    }
  }
  if (!run.total.hazards.empty()) {
    for (const sim::Hazard& h : run.total.hazards) std::cerr << "hazard: " << h.message() << "\n";
  }
  out << network_report_table(net, run);
  if (run.on_rtl) out << rtl_comparison_table(net, run);
  const fpga::Feasibility feasible = fpga::feasibility(net.config);
  report["feasibility"] = fpga::to_json(feasible);
  if (const std::string w = fpga::feasibility_warning(net.config, feasible); !w.empty()) out << w << "\n";
  if (observed) {
    out << fmt::format("\ninstruments over {} image(s): the cast from accumulator to output of each observed layer\n",
                             observed->images())
              << observed->summary_table();
    if (!a.instruments.trace_out.empty()) {
      observed->write(a.instruments.trace_out, a.model.force);
      out << fmt::format("instruments written to {}/ (instruments.json, layers.csv, channels.csv, histograms.csv, "
                               "trace.csv, maps/)\n", a.instruments.trace_out);
    }
    report["instruments"] = observed->to_json();
    report["instruments"].erase("config");
  }
  const nlohmann::json j = run_report(net, run, report);
  if (!a.report.empty()) write_text(a.report, j.dump(2) + "\n", a.model.force);
  if (!a.csv.empty()) write_text(a.csv, network_report_csv(net, run), a.model.force);
  if (!a.html.empty()) {
    report::Page page;
    page.kind = report::PageKind::kRun;
    page.title = fmt::format("tauvta run: {} on {}", a.model.model, net.config.name());
    page.config = net.config.to_json();
    page.report = j;
    page.extra = hw::roofline_json(net.config);
    report::write_html_report(a.html, std::move(page), a.model.force);
  }
  if (!run.total.hazards.empty()) throw Error(fmt::format("{} hazard(s) found", run.total.hazards.size()));
  return j;
}

}  // namespace tauvta::backend
