#include "backend/build_network.h"

#include <cctype>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "backend/artifact.h"
#include "backend/compile_network.h"
#include "backend/network_formats.h"
#include "common/error.h"
#include "common/file_io.h"

namespace tauvta::backend {

std::string placement_table(const CompiledNetwork& net) {
  std::string s = fmt::format("{:<28} {:<17} {:<4} {}\n", "layer", "op", "on", "schedule (source) / reason");
  for (const NetworkLayer& l : net.layers) {
    const std::string name = l.name.size() > 28 ? l.name.substr(0, 25) + "..." : l.name;
    const std::string detail = l.schedule && l.workload
                                   ? fmt::format("{} ({})", l.schedule->to_string(l.workload->kind), l.schedule_source)
                                   : l.reason;
    s += fmt::format("{:<28} {:<17} {:<4} {}\n", name, l.op, placement_name(l.placement), detail);
  }
  return s;
}

nlohmann::json placement_json(const CompiledNetwork& net) {
  nlohmann::json j = nlohmann::json::array();
  for (const NetworkLayer& l : net.layers) {
    nlohmann::json row = {{"name", l.name}, {"op", l.op}, {"placement", placement_name(l.placement)},
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
void write_placement_dump(const std::string& dir, const CompiledNetwork& net, bool force) {
  int next = 1;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f.size() > 3 && std::isdigit(static_cast<unsigned char>(f[0])) && std::isdigit(static_cast<unsigned char>(f[1])) &&
        f[2] == '-') {
      next = std::max(next, std::stoi(f.substr(0, 2)) + 1);
    }
  }
  std::string text = fmt::format("placement on {}\n{}\nschedules\n", net.config.name(), placement_table(net));
  for (const NetworkLayer& l : net.layers) {
    if (!l.schedule || !l.workload) continue;
    text += fmt::format("  {}: {}\n    {} ({})\n", l.name, l.workload->to_string(), l.schedule->to_string(l.workload->kind),
                        l.schedule_source);
  }
  write_text(std::filesystem::path(dir) / fmt::format("{:02}-placement.txt", next), text, force);
}

}  // namespace

BuiltNetwork build_network(const model::ModelSource& m, const NetworkRequest& n) {
  BuiltNetwork b;
  if (is_network_artifact(m.model)) {
    b.net = load_network(m.model);
    b.from_artifact = true;
    if (model::has_config(m) && !(model::source_config(m) == b.net.config)) {
      throw Error(fmt::format("{} was compiled for config {}; --config asks for {}: compile it again", m.model,
                              b.net.config.name(), model::source_config(m).name()));
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
  model::LoadOptions o = model::load_options(m, true);
  b.model = model::load_source(m, o);
  b.report = model::source_report(m, o, *b.model);
  CompileOptions co = tuning_log_options(n.tuning_log, o.config, b.report);  // backend/tuning_log_options.cpp
  // The batch: --batch; else the one the model declares; else (a symbolic batch) the given input's
  // first dimension when it has the input's rank (one sample without it is batch 1).
  std::optional<int64_t> input_batch;
  if (n.input_shape && !b.model->declared_inputs.empty() && !model::declares_batch(*b.model)) {
    const graph::Shape& declared = b.model->declared_inputs.front().second;
    if (n.input_shape->size() == declared.size() && !n.input_shape->empty()) input_batch = n.input_shape->front();
  }
  b.batch = co.batch = n.batch ? *n.batch : input_batch ? *input_batch : model::default_batch(*b.model);
  b.report["batch"] = b.batch;
  b.net = compile_network(b.model->quant.graph, o.config, co);
  attach_quant_source(b.net, b.model->float_graph, b.model->quant, b.model->quant_options);
  if (!m.dump_passes.empty()) write_placement_dump(m.dump_passes, b.net, m.force);
  return b;
}

}  // namespace tauvta::backend
