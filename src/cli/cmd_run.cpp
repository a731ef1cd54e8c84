// tauvta run: a model on the float reference or, quantized to the config's widths, on the integer
// reference; every output goes to DIR/<name>.npy. --compare-float runs both and prints per output
// the largest error, cosine similarity and top-1 agreement, and per layer the quantization error.
#include <chrono>
#include <iostream>
#include <memory>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "cli/model_args.h"
#include "model/model_inputs.h"
#include "backend/accelerator_run.h"
#include "cli/instrument_args.h"
#include "cli/network_args.h"
#include "common/error.h"
#include "cpu/int_executor.h"
#include "io/tensor_files.h"
#include "model/compare.h"

namespace tauvta::cli {
namespace {

struct RunArgs {
  model::ModelSource model;
  std::vector<std::string> inputs;
  std::string output_dir, report;
  bool use_float = false, use_int = false, compare = false;
  int threads = 0;
  // The accelerator (default mode).
  backend::NetworkRequest network;
  std::string csv, images, labels, html;
  int64_t begin = 0;
  int64_t limit = -1;
  bool timing_only = false, check_hazards = false, quiet = false, rtl = false, no_check = false;
  backend::InstrumentOptions instruments;
  int boards = 0;
};

std::string describe(const graph::Tensor& t) {
  std::string s = fmt::format("{}{}", graph::dtype_name(t.dtype()), graph::shape_string(t.shape()));
  if (t.size() == 0) return s;
  const std::vector<float> v = t.to_float();
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  s += fmt::format("  min {:.6g}  max {:.6g}", *lo, *hi);
  if (t.rank() >= 1 && t.shape().back() > 1 && t.size() / t.shape().back() == 1) {
    s += fmt::format("  argmax {}", std::max_element(v.begin(), v.end()) - v.begin());
  }
  return s;
}

void run_run(const RunArgs& a) {
  if (!a.use_float && !a.use_int) {
    backend::AcceleratorRunRequest r;
    r.model = a.model;
    r.network = a.network;
    r.inputs = a.inputs;
    r.output_dir = a.output_dir;
    r.report = a.report;
    r.csv = a.csv;
    r.html = a.html;
    r.images = a.images;
    r.labels = a.labels;
    r.begin = a.begin;
    r.limit = a.limit;
    r.timing_only = a.timing_only;
    r.check_hazards = a.check_hazards;
    r.rtl = a.rtl;
    r.no_check = a.no_check;
    r.compare = a.compare;
    r.quiet = a.quiet;
    r.instruments = a.instruments;
    r.boards = a.boards;
    if (r.model.model.empty()) {
      // The main job: the committed trained VGG-7 on Fashion-MNIST test images.
      const std::string fashion_mnist = "/usr/share/datasets/fashion-mnist";
      r.model.model = default_model_path();
      if (r.model.calibrate.empty()) r.model.calibrate = fashion_mnist + "/train-images-idx3-ubyte.gz";
      if (r.images.empty() && r.inputs.empty() && !r.timing_only) {
        r.images = fashion_mnist + "/t10k-images-idx3-ubyte.gz";
        r.labels = fashion_mnist + "/t10k-labels-idx1-ubyte.gz";
        if (r.limit < 0) r.limit = 1000;
      }
      if (!r.network.batch) r.network.batch = 50;
      std::cout << fmt::format("tauvta run: {} {}, calibrated on the training images\n", r.model.model,
                               r.images.empty() ? std::string("(timing only)")
                                                : fmt::format("on Fashion-MNIST test images ({} of them)",
                                                              r.limit < 0 ? std::string("all") : std::to_string(r.limit)));
    }
    backend::run_on_accelerator(r, std::cout);
    return;
  }
  if (a.use_float && a.use_int) throw Error("run: pass at most one of --float and --int");
  if (a.model.model.empty()) throw Error("run: --float and --int need a model file");
  if (!a.csv.empty() || !a.html.empty() || !a.images.empty() || a.timing_only || a.check_hazards || !a.network.tuning_log.empty() ||
      !a.instruments.specs.empty() || a.no_check) {
    throw Error("run: --csv, --html, --images, --no-check, --timing-only, --check-hazards and --tuning-log are for the "
                "accelerator (drop --float/--int)");
  }
  if (a.compare && !a.use_int) throw Error("run: --compare-float compares the integer reference; add --int");
  check_can_write(a.report, a.model.force);
  model::LoadOptions o = model::load_options(a.model, a.use_int);
  const model::LoadedModel m = model::load_source(a.model, o);
  // The float reference takes and returns sequences of tensors too; the integer path tensors only.
  const bool values = !a.use_int;
  const cpu::ValueMap input_values = values ? model::read_input_values(a.inputs, m.float_graph) : cpu::ValueMap{};
  const cpu::TensorMap inputs = values ? cpu::TensorMap{} : model::read_input_files(a.inputs, m.float_graph);
  std::vector<std::string> times;
  for (const model::PassTiming& t : m.timings) times.push_back(fmt::format("{} {:.3f} s", t.pass, t.seconds));
  std::cout << fmt::format("pipeline: {}\n", fmt::join(times, ", "));
  if (!a.output_dir.empty()) {
    std::filesystem::create_directories(a.output_dir);
    for (const std::string& out : m.graph().outputs) {
      const auto path = std::filesystem::path(a.output_dir) / io::npy_file_name(out);
      check_can_write(path, a.model.force);
    }
  }
  cpu::IntRunOptions io_opts;
  io_opts.threads = a.threads;
  cpu::ValueMap outputs;
  nlohmann::json report = model::source_report(a.model, o, m);
  const auto t0 = std::chrono::steady_clock::now();
  if (a.compare) {
    cpu::TensorMap float_outputs, int_outputs;
    const model::Comparison c = model::compare_with_float(m, inputs, float_outputs, int_outputs, io_opts);
    outputs.insert(int_outputs.begin(), int_outputs.end());
    std::cout << model::format_comparison(c) << "\n";
    nlohmann::json outs = nlohmann::json::array(), layers = nlohmann::json::array();
    for (const model::OutputComparison& x : c.outputs) {
      outs.push_back({{"name", x.name}, {"max_abs_error", x.max_abs_error}, {"cosine", x.cosine},
                      {"top1_agree", x.top1_agree}, {"rows", x.rows}});
    }
    for (const model::LayerComparison& x : c.layers) {
      layers.push_back({{"value", x.value}, {"node", x.node}, {"op", x.op}, {"bits", x.bits},
                        {"frac_bits", x.frac_bits}, {"max_abs_error", x.max_abs_error}, {"rms_error", x.rms_error},
                        {"cosine", x.cosine}, {"out_of_range", x.out_of_range}});
    }
    report["compare_float"] = {{"outputs", outs}, {"layers", layers}};
  } else if (a.use_int) {
    const cpu::TensorMap int_outputs = cpu::run_int(m.graph(), inputs, {}, io_opts);
    outputs.insert(int_outputs.begin(), int_outputs.end());
  } else {
    outputs = cpu::run_float_values(m.graph(), input_values);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << fmt::format("{} reference{}: {:.3f} s\n", a.use_int ? "integer" : "float",
                           a.use_int ? " for " + o.config.name() : std::string(), seconds);
  report["mode"] = a.use_int ? "int" : "float";
  report["run_seconds"] = seconds;
  for (const std::string& name : m.graph().outputs) {
    if (const auto* seq = std::get_if<graph::TensorSequence>(&outputs.at(name))) {
      // A sequence output: one line and one file (NAME.K.npy) per element.
      std::cout << fmt::format("output {}: {}\n", name, seq->describe());
      for (size_t k = 0; k < seq->tensors.size(); ++k) {
        std::cout << fmt::format("  [{}] {}\n", k, describe(seq->tensors[k]));
        if (!a.output_dir.empty()) {
          io::write_npy(std::filesystem::path(a.output_dir) / io::npy_file_name(fmt::format("{}.{}", name, k)),
                        seq->tensors[k], a.model.force);
        }
      }
      continue;
    }
    const graph::Tensor& t = std::get<graph::Tensor>(outputs.at(name));
    std::cout << fmt::format("output {}: {}\n", name, describe(t));
    if (!a.output_dir.empty()) {
      io::write_npy(std::filesystem::path(a.output_dir) / io::npy_file_name(name), t, a.model.force);
    }
  }
  if (!a.report.empty()) write_text(a.report, report.dump(2) + "\n", a.model.force);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a model on the simulated accelerator (default; no model: VGG-7 on Fashion-MNIST), or on the "
             "float (--float) or integer (--int) reference");
  add_model_args(cmd, args->model, /*model_required=*/false);
  add_network_args(cmd, args->network);
  cmd->add_flag("--float", args->use_float, "Run the float reference instead of the accelerator");
  cmd->add_flag("--int", args->use_int, "Quantize to the config's widths and run the integer reference instead");
  cmd->add_option("--csv", args->csv, "Accelerator: write the per-layer table as CSV");
  cmd->add_option("--html", args->html,
                  "Accelerator: write a self-contained HTML report (per-layer table, roofline, time per layer and module, "
                  "placement)");
  cmd->add_option("--images", args->images, "Accelerator: IDX images to classify (top-1 accuracy; needs --labels)");
  cmd->add_option("--labels", args->labels, "Accelerator: IDX labels for --images");
  cmd->add_option("--limit", args->limit, "Accelerator: classify the first N images only (from --begin)");
  cmd->add_option("--begin", args->begin, "Accelerator: the first image --images classifies (default 0)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-check", args->no_check,
                "Accelerator with --images: skip the integer reference's bit-exact check of every image (throughput runs)");
  cmd->add_flag("--timing-only", args->timing_only, "Accelerator: cycles from the timing model only, no data");
  cmd->add_flag("--rtl", args->rtl,
                "Accelerator: also run every program on the generated accelerator in Verilator, "
                "check it bit for bit and report its cycles beside the timing model's");
  cmd->add_flag("--check-hazards", args->check_hazards, "Accelerator: report SRAM accesses not ordered by tokens");
  cmd->add_flag("-q,--quiet", args->quiet, "No progress bar");
  cmd->add_option("--input", args->inputs, "NAME=FILE (.npy or ONNX TensorProto .pb; FILE alone for a one-input model); repeatable");
  cmd->add_option("--output-dir", args->output_dir, "Write every output as DIR/<name>.npy");
  cmd->add_flag("--compare-float", args->compare,
                "Also run the float reference; print per-output (and with --int per-layer) quantization error");
  cmd->add_option("--threads", args->threads, "Integer reference worker threads (default: all)");
  cmd->add_option("--report", args->report, "Write config, pass times, quantization settings (and comparison) as JSON");
  cmd->add_option("--boards", args->boards, "Accelerator with --images: simulated boards running batches in parallel (default: one per core)");
  add_instrument_args(cmd, args->instruments);
  cmd->callback([args] { run_run(*args); });
}

static const CommandRegistrar kRunRegistrar("run", add_run_command);

}  // namespace tauvta::cli
