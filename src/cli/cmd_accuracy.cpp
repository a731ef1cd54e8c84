// tauvta accuracy: top-1 accuracy of a classifier on labelled IDX images, on the float reference
// or the quantized integer reference, with a progress bar on stderr and an optional JSON report
// holding the accuracy, the fully resolved config and the quantization settings.
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/artifact.h"
#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "common/progress.h"
#include "cli/model_args.h"
#include "common/error.h"
#include "io/tensor_files.h"
#include "model/accuracy.h"

namespace tauvta::cli {
namespace {

struct AccuracyArgs {
  model::ModelSource model;
  std::string images, labels, report;
  int64_t limit = -1;
  int64_t batch = 100;
  int threads = 0;
  bool use_float = false, use_int = false, quiet = false;
};

void progress_bar(int64_t done, int64_t total) {
  static int64_t updates = 0;
  show_progress(progress_bar_line(done, total, "images"), ++updates, done == total);
}

// A compiled .tauvta (what `compile` and `precision tune` write): its quantized graph is the
// integer reference the accelerator equals; its float graph, when it kept one, the float reference.
void run_accuracy_on_artifact(const AccuracyArgs& a, const graph::Tensor& images, const graph::Tensor& labels,
                              model::AccuracyOptions ao) {
  if (model::has_config(a.model)) {
    throw Error(fmt::format("accuracy: {} is compiled for its own config; --config does not apply to it", a.model.model));
  }
  const backend::CompiledNetwork net = backend::load_network(a.model.model);
  const graph::Graph* g = &net.graph;
  if (a.use_float) {
    if (!net.quant_source) {
      throw Error(fmt::format("accuracy: {} holds no float graph (compiled from a quantized one): --float needs the "
                              "ONNX model",
                              a.model.model));
    }
    g = &net.quant_source->float_graph;
  }
  // The network was compiled for one batch: feed the images in batches of it.
  const graph::ValueInfo* in = g->inputs.empty() ? nullptr : g->info(g->inputs[0]);
  if (in && in->known_shape && !in->shape.empty() && in->shape[0] > 0) ao.batch = in->shape[0];
  const model::AccuracyResult r = model::evaluate_accuracy(*g, images, labels, ao);
  std::cout << fmt::format("top-1 accuracy {:.4f} ({}/{} images), {} reference of {} for {}, {:.1f} s ({:.0f} images/s)\n",
                           r.accuracy, r.correct, r.images, a.use_int ? "integer" : "float", a.model.model,
                           net.config.name(), r.seconds, r.seconds > 0 ? double(r.images) / r.seconds : 0.0);
  const std::string flag = model::accuracy_warning(r.accuracy, model::classifier_classes(*g));
  if (!flag.empty()) std::cout << flag << "\n";
  if (!a.report.empty()) {
    const nlohmann::json j = {{"model", a.model.model},   {"artifact", true},       {"config", net.config.to_json()},
                              {"config_name", net.config.name()}, {"mode", a.use_int ? "int" : "float"},
                              {"images", a.images},       {"labels", a.labels},     {"evaluated", r.images},
                              {"correct", r.correct},     {"accuracy", r.accuracy}, {"accuracy_warning", flag},
                              {"inference_seconds", r.seconds}};
    write_text(a.report, j.dump(2) + "\n", a.model.force);
  }
}

void run_accuracy(const AccuracyArgs& a) {
  if (a.use_float == a.use_int) throw Error("accuracy: pass exactly one of --float and --int");
  check_can_write(a.report, a.model.force);
  const graph::Tensor images = io::read_idx(a.images);
  const graph::Tensor labels = io::read_idx(a.labels);
  model::AccuracyOptions ao;
  ao.limit = a.limit;
  ao.batch = a.batch;
  ao.integer = a.use_int;
  ao.int_options.threads = a.threads;
  if (!a.quiet) ao.progress = progress_bar;
  if (backend::is_network_artifact(a.model.model)) {
    run_accuracy_on_artifact(a, images, labels, ao);
    return;
  }
  model::LoadOptions o = model::load_options(a.model, a.use_int);
  const model::LoadedModel m = model::load_source(a.model, o);
  const model::AccuracyResult r = model::evaluate_accuracy(m.graph(), images, labels, ao);

  std::cout << fmt::format("top-1 accuracy {:.4f} ({}/{} images), {} reference{}, {:.1f} s ({:.0f} images/s)\n",
                           r.accuracy, r.correct, r.images, a.use_int ? "integer" : "float",
                           a.use_int ? " for " + o.config.name() : std::string(), r.seconds,
                           r.seconds > 0 ? double(r.images) / r.seconds : 0.0);
  const std::string flag = model::accuracy_warning(r.accuracy, model::classifier_classes(m.graph()));
  if (!flag.empty()) std::cout << flag << "\n";
  if (!a.report.empty()) {
    nlohmann::json j = model::source_report(a.model, o, m);
    j["mode"] = a.use_int ? "int" : "float";
    j["images"] = a.images;
    j["labels"] = a.labels;
    j["evaluated"] = r.images;
    j["correct"] = r.correct;
    j["accuracy"] = r.accuracy;
    j["accuracy_warning"] = flag;
    j["inference_seconds"] = r.seconds;
    write_text(a.report, j.dump(2) + "\n", a.model.force);
  }
}

}  // namespace

void add_accuracy_command(CLI::App& app) {
  auto args = std::make_shared<AccuracyArgs>();
  CLI::App* cmd = app.add_subcommand("accuracy", "Top-1 accuracy of a classifier on labelled IDX images");
  add_model_args(cmd, args->model);
  cmd->add_option("--images", args->images, "IDX image file (pixels are fed as value / 255)")->required();
  cmd->add_option("--labels", args->labels, "IDX label file")->required();
  cmd->add_option("--limit", args->limit, "Evaluate the first N images only");
  cmd->add_flag("--float", args->use_float, "Run the float reference");
  cmd->add_flag("--int", args->use_int, "Quantize to the config's widths and run the integer reference");
  cmd->add_option("--batch", args->batch, "Images per run (default 100)");
  cmd->add_option("--threads", args->threads, "Integer reference worker threads (default: all)");
  cmd->add_option("--report", args->report, "Write accuracy, config and quantization settings as JSON");
  cmd->add_flag("-q,--quiet", args->quiet, "No progress bar");
  cmd->callback([args] { run_accuracy(*args); });
}

static const CommandRegistrar kAccuracyRegistrar("accuracy", add_accuracy_command);

}  // namespace tauvta::cli
