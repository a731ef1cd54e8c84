#include "fpga/feasibility.h"
#include "cli/run_accelerator.h"

#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/network_accuracy.h"
#include "backend/network_report.h"
#include "backend/network_runner.h"
#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "report/html_file.h"
#include "model/model_inputs.h"
#include "common/progress.h"
#include "common/error.h"
#include "cpu/int_executor.h"
#include "io/tensor_files.h"
#include "model/accuracy.h"
#include "model/compare.h"

namespace tauvta::cli {

namespace {

const char* kFashionMnist = "/usr/share/datasets/fashion-mnist";

std::string file_name_for(const std::string& value) {
  std::string s = value;
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-') ch = '_';
  }
  return s + ".npy";
}

void progress_bar(int64_t done, int64_t total) {
  constexpr int kWidth = 40;
  static int64_t updates = 0;
  const int filled = total > 0 ? int(kWidth * done / total) : kWidth;
  show_progress(fmt::format("[{}{}] {}/{} images on the accelerator", std::string(size_t(filled), '#'),
                            std::string(size_t(kWidth - filled), '.'), done, total),
                ++updates, done == total);
}

}  // namespace

void add_instrument_args(CLI::App* cmd, InstrumentArgs& a) {
  cmd->add_option("--instrument", a.specs,
                  "Accelerator: observe the cast of every (or the named) layer: KINDS[:LAYER,...] with KINDS from "
                  "overflow, histogram, sparsity, stats, trace, all; repeatable");
  cmd->add_option("--trace-out", a.trace_out, "Write the instruments' JSON, CSVs and .npy maps to DIR");
  cmd->add_option("--hist-bins", a.settings.histogram_bins, "Histogram bins (default 64)")->check(CLI::Range(1, 65536));
  cmd->add_option("--zero-threshold", a.settings.zero_threshold, "Sparsity: |output| at most this counts as zero (default 0)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--trace-capacity", a.settings.trace_capacity, "Events the shared trace buffer keeps (default 65536)");
}

backend::InstrumentRequest instrument_request(const InstrumentArgs& a) {
  backend::InstrumentRequest r;
  r.settings = a.settings;
  for (const std::string& s : a.specs) r.specs.push_back(backend::parse_instrument_spec(s));
  if (!a.trace_out.empty() && r.specs.empty()) throw Error("--trace-out needs --instrument");
  return r;
}

nlohmann::json run_report(const backend::CompiledNetwork& net, const backend::NetworkRun& run,
                          const nlohmann::json& build_report) {
  nlohmann::json j = backend::network_report_json(net, run);
  for (auto& [k, v] : build_report.items()) {
    if (k != "config") j[k] = v;
  }
  return j;
}

void run_on_accelerator(AcceleratorRunArgs a) {
  const bool demo = a.model.model.empty();
  if (demo) {
    // The main job: the committed trained VGG-7 on Fashion-MNIST test images.
    a.model.model = default_model_path();
    if (a.model.calibrate.empty()) a.model.calibrate = std::string(kFashionMnist) + "/train-images-idx3-ubyte.gz";
    if (a.images.empty() && a.inputs.empty()) {
      a.images = std::string(kFashionMnist) + "/t10k-images-idx3-ubyte.gz";
      a.labels = std::string(kFashionMnist) + "/t10k-labels-idx1-ubyte.gz";
      if (a.limit < 0) a.limit = 1000;
      if (!a.network.batch) a.network.batch = 50;
    }
    std::cout << fmt::format("tauvta run: {} on Fashion-MNIST test images ({} of them), calibrated on the "
                             "training images\n",
                             a.model.model, a.limit < 0 ? std::string("all") : std::to_string(a.limit));
  }
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
  if (a.timing_only && (a.compare || !a.images.empty() || !a.output_dir.empty())) {
    throw Error("run: --timing-only computes no values: drop --compare-float, --images and --output-dir");
  }
  check_can_write(a.report, a.model.force);
  check_can_write(a.csv, a.model.force);
  check_can_write(a.html, a.model.force);
  const backend::InstrumentRequest inst = instrument_request(a.instruments);
  if (!inst.empty() && a.timing_only) throw Error("run: --timing-only computes no values for --instrument to observe");
  if (!a.instruments.trace_out.empty()) check_can_write(std::filesystem::path(a.instruments.trace_out) / "instruments.json", a.model.force);
  std::unique_ptr<backend::NetworkInstruments> observed;
  const backend::BuiltNetwork b = backend::build_network(a.model, a.network);
  const backend::CompiledNetwork& net = b.net;
  nlohmann::json report = b.report;
  backend::NetworkRun run;

  if (a.timing_only) {
    run = backend::time_network(net);
  } else if (!a.images.empty()) {
    const graph::Tensor images = io::read_idx(a.images), labels = io::read_idx(a.labels);
    backend::NetworkAccuracyOptions o;
    o.limit = a.limit;
    o.check_hazards = a.check_hazards;
    o.threads = a.boards > 0 ? a.boards : int(std::max(1u, std::thread::hardware_concurrency()));
    if (!inst.empty()) o.instruments = &inst;
    if (b.model) o.float_graph = &b.model->float_graph;
    if (!a.quiet) o.progress = progress_bar;
    backend::NetworkAccuracy acc = backend::evaluate_network_accuracy(net, images, labels, o);
    run = acc.last_batch;
    observed = std::move(acc.instruments);
    std::cout << fmt::format("\n{:<34}{:>8}\n", "top-1 accuracy", fmt::format("{} images", acc.images));
    if (b.model) std::cout << fmt::format("  {:<32}{:>8.4f}\n", "float reference", acc.float_accuracy);
    std::cout << fmt::format("  {:<32}{:>8.4f}\n", "integer reference", acc.int_accuracy);
    std::cout << fmt::format("  {:<32}{:>8.4f}\n", "accelerator (" + net.config.name() + ")", acc.accuracy);
    const std::string flag = model::accuracy_warning(acc.accuracy, model::classifier_classes(net.graph),
                                                     b.model ? acc.float_accuracy : -1.0);
    if (!flag.empty()) std::cout << flag << "\n";
    std::cout << fmt::format("accelerator outputs identical to the integer reference: {} ({} of {} images differ)\n",
                             acc.mismatched_images == 0 ? "yes" : "NO", acc.mismatched_images, acc.images);
    std::cout << fmt::format("per-layer figures below are for one batch of {}; {} images took {:.1f} s\n\n",
                             net.graph.info(net.graph.inputs[0])->shape[0], acc.images, acc.seconds);
    report["accuracy"] = {{"images", acc.images}, {"accelerator", acc.accuracy}, {"integer_reference", acc.int_accuracy},
                          {"float_reference", b.model ? nlohmann::json(acc.float_accuracy) : nlohmann::json(nullptr)},
                          {"mismatched_images", acc.mismatched_images}, {"seconds", acc.seconds},
                          {"warning", flag}};
    if (acc.mismatched_images != 0) {
      throw Error(fmt::format("{} images' accelerator outputs differ from the integer reference", acc.mismatched_images));
    }
  } else {
    const cpu::TensorMap inputs = model::read_input_files(a.inputs, net.graph);
    backend::NetworkRunner runner(net);
    backend::NetworkRunOptions o;
    o.check_hazards = a.check_hazards;
    runner.enable_instruments(inst);
    run = runner.run(inputs, o);
    if (runner.instruments()) observed = std::make_unique<backend::NetworkInstruments>(*runner.instruments());
    if (!a.output_dir.empty()) {
      std::filesystem::create_directories(a.output_dir);
      for (const auto& [name, t] : run.outputs) check_can_write(std::filesystem::path(a.output_dir) / file_name_for(name), a.model.force);
      for (const auto& [name, t] : run.outputs) io::write_npy(std::filesystem::path(a.output_dir) / file_name_for(name), t, a.model.force);
    }
    for (const auto& [name, t] : run.outputs) {
      std::cout << fmt::format("output {}: {}{}\n", name, graph::dtype_name(t.dtype()), graph::shape_string(t.shape()));
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
        std::cout << fmt::format("compare {}: identical to the integer reference: {}; vs float: cosine {:.6f}, max abs error {:.4g}\n",
                                 name, same ? "yes" : "NO", cosine, maxerr);
        report["compare_float"][name] = {{"identical_to_integer_reference", same}, {"cosine", cosine}, {"max_abs_error", maxerr}};
      }
    }
  }
  if (!run.total.hazards.empty()) {
    for (const sim::Hazard& h : run.total.hazards) std::cerr << "hazard: " << h.message() << "\n";
  }
  std::cout << backend::network_report_table(net, run);
  const fpga::Feasibility feasible = fpga::feasibility(net.config);
  report["feasibility"] = fpga::to_json(feasible);
  if (const std::string w = fpga::feasibility_warning(net.config, feasible); !w.empty()) std::cout << w << "\n";
  if (observed) {
    std::cout << fmt::format("\ninstruments over {} image(s): the cast from accumulator to output of each observed layer\n",
                             observed->images())
              << observed->summary_table();
    if (!a.instruments.trace_out.empty()) {
      observed->write(a.instruments.trace_out, a.model.force);
      std::cout << fmt::format("instruments written to {}/ (instruments.json, layers.csv, channels.csv, histograms.csv, "
                               "trace.csv, maps/)\n", a.instruments.trace_out);
    }
    report["instruments"] = observed->to_json();
    report["instruments"].erase("config");
  }
  const nlohmann::json j = run_report(net, run, report);
  if (!a.report.empty()) write_text(a.report, j.dump(2) + "\n", a.model.force);
  if (!a.csv.empty()) write_text(a.csv, backend::network_report_csv(net, run), a.model.force);
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
}

}  // namespace tauvta::cli
