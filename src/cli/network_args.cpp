#include "cli/network_args.h"

#include <cctype>

#include <algorithm>

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "backend/artifact.h"
#include "backend/compile_network.h"
#include "backend/network_formats.h"
#include "cli/cli_io.h"
#include "common/error.h"

namespace tauvta::cli {

void add_network_args(CLI::App* cmd, NetworkArgs& a) {
  cmd->add_option("--tuning-log", a.tuning_log,
                  "AutoTVM/TopHub JSON-lines records: the best record per matching workload sets its schedule");
  cmd->add_option_function<int64_t>(
         "--batch", [&a](const int64_t& n) { a.batch = n; },
         "Batch size the program is compiled for (default: the batch the model's inputs declare; 1 when symbolic)")
      ->check(CLI::Range(1, 4096));
}

std::string default_model_path() {
  const std::filesystem::path here = "models/vgg7_fmnist.onnx";
  if (std::filesystem::exists(here)) return here.string();
  return std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist.onnx";
}

std::string placement_table(const backend::CompiledNetwork& net) {
  std::string s = fmt::format("{:<28} {:<17} {:<4} {}\n", "layer", "op", "on", "schedule (source) / reason");
  for (const backend::NetworkLayer& l : net.layers) {
    const std::string name = l.name.size() > 28 ? l.name.substr(0, 25) + "..." : l.name;
    const std::string detail = l.schedule && l.workload
                                   ? fmt::format("{} ({})", l.schedule->to_string(l.workload->kind), l.schedule_source)
                                   : l.reason;
    s += fmt::format("{:<28} {:<17} {:<4} {}\n", name, l.op, backend::placement_name(l.placement), detail);
  }
  return s;
}

nlohmann::json placement_json(const backend::CompiledNetwork& net) {
  nlohmann::json j = nlohmann::json::array();
  for (const backend::NetworkLayer& l : net.layers) {
    nlohmann::json row = {{"name", l.name}, {"op", l.op}, {"placement", backend::placement_name(l.placement)},
                          {"reason", l.reason}, {"nodes", l.nodes}};
    if (l.schedule && l.workload) {
      row["schedule"] = l.schedule->to_string(l.workload->kind);
      row["schedule_source"] = l.schedule_source;
      row["workload"] = l.workload->to_string();
    }
    j.push_back(row);
  }
  return j;
}

namespace {

// The compiler's placement, after the pipeline's own dumps (NN-<pass>.txt) in the same folder:
// where every layer runs and why, and each accelerator layer's workload and schedule.
void write_placement_dump(const std::string& dir, const backend::CompiledNetwork& net, bool force) {
  int next = 1;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f.size() > 3 && std::isdigit(static_cast<unsigned char>(f[0])) && std::isdigit(static_cast<unsigned char>(f[1])) &&
        f[2] == '-') {
      next = std::max(next, std::stoi(f.substr(0, 2)) + 1);
    }
  }
  std::string text = fmt::format("placement on {}\n{}\nschedules\n", net.config.name(), placement_table(net));
  for (const backend::NetworkLayer& l : net.layers) {
    if (!l.schedule || !l.workload) continue;
    text += fmt::format("  {}: {}\n    {} ({})\n", l.name, l.workload->to_string(), l.schedule->to_string(l.workload->kind),
                        l.schedule_source);
  }
  write_text(std::filesystem::path(dir) / fmt::format("{:02}-placement.txt", next), text, force);
}

}  // namespace

BuiltNetwork build_network(const ModelArgs& m, const NetworkArgs& n) {
  BuiltNetwork b;
  if (backend::is_network_artifact(m.model)) {
    b.net = backend::load_network(m.model);
    b.from_artifact = true;
    if (has_config(m) && !(model_config(m) == b.net.config)) {
      throw Error(fmt::format("{} was compiled for config {}; --config asks for {}: compile it again", m.model,
                              b.net.config.name(), model_config(m).name()));
    }
    const graph::ValueInfo* in = b.net.graph.inputs.empty() ? nullptr : b.net.graph.info(b.net.graph.inputs[0]);
    if (in && in->known_shape && !in->shape.empty()) b.batch = in->shape[0];
    if (n.batch && *n.batch != b.batch) {
      throw Error(fmt::format("{} was compiled for batch {}; --batch asks for {}: compile it again", m.model, b.batch,
                              *n.batch));
    }
    b.report["model"] = m.model;
    b.report["artifact"] = true;
    b.report["config"] = b.net.config.to_json();
    b.report["config_name"] = b.net.config.name();
    b.report["batch"] = b.batch;
    return b;
  }
  model::LoadOptions o = load_options(m, true);
  b.model = load_for_cli(m, o);
  b.report = model_report(m, o, *b.model);
  backend::CompileOptions co = tuning_options(n.tuning_log, o.config, b.report);  // cli/tuning_options.cpp
  // The batch: --batch; else the one the model declares; else (a symbolic batch) the given input's
  // first dimension when it has the input's rank (one sample without it is batch 1).
  std::optional<int64_t> input_batch;
  if (n.input_shape && !b.model->declared_inputs.empty() && !model::declares_batch(*b.model)) {
    const graph::Shape& declared = b.model->declared_inputs.front().second;
    if (n.input_shape->size() == declared.size() && !n.input_shape->empty()) input_batch = n.input_shape->front();
  }
  b.batch = co.batch = n.batch ? *n.batch : input_batch ? *input_batch : model::default_batch(*b.model);
  b.report["batch"] = b.batch;
  b.net = backend::compile_network(b.model->quant.graph, o.config, co);
  backend::attach_quant_source(b.net, b.model->float_graph, b.model->quant, b.model->quant_options);
  if (!m.dump_passes.empty()) write_placement_dump(m.dump_passes, b.net, m.force);
  return b;
}

}  // namespace tauvta::cli
