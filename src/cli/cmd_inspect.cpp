// tauvta inspect: the imported graph of an ONNX model with inferred shapes: inputs, outputs, one
// row per node (output shape, MACs, parameters), operator counts and totals. --fold runs the
// float pipeline's folding passes first; --json writes the same as a report.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "common/error.h"
#include "cpu/float_executor.h"
#include "graph/layer_stats.h"
#include "graph/onnx_import.h"
#include "graph/passes.h"
#include "graph/shape_inference.h"
#include "cli/network_args.h"
#include "model/pipeline.h"

#include <optional>

namespace tauvta::cli {
namespace {

struct InspectArgs {
  std::string model;
  std::string json;
  std::optional<int64_t> batch;  // unset: the file's shapes (a symbolic batch: 1)
  bool fold = false;
  bool ir = false;
  bool force = false;
  // --placement: quantize and compile for a config, show where each layer runs and why.
  bool placement = false;
  std::string config, calibrate;
  int64_t max_tensor_mib = graph::kDefaultTensorByteLimit >> 20;
};

std::string value_text(const graph::Graph& g, const std::string& name) {
  const graph::Shape* shape = nullptr;
  graph::DType dtype = graph::DType::kFloat32;
  if (g.is_initializer(name)) {
    shape = &g.initializers.at(name).shape();
    dtype = g.initializers.at(name).dtype();
  } else if (const graph::ValueInfo* v = g.info(name); v != nullptr && (v->known_shape || v->sequence)) {
    return graph::type_string(*v);  // "sequence<float32[?,3]>" for a sequence of tensors
  }
  return shape == nullptr ? "?" : fmt::format("{}{}", graph::dtype_name(dtype), graph::shape_string(*shape));
}

// 1234567 -> "1.23 M" (counts for people; the exact number is in the JSON).
std::string human(int64_t n) {
  if (n < 0) return "?";
  const char* units[] = {"", " k", " M", " G", " T"};
  double v = double(n);
  int u = 0;
  while (v >= 1000.0 && u < 4) {
    v /= 1000.0;
    ++u;
  }
  return u == 0 ? fmt::format("{}", n) : fmt::format("{:.2f}{}", v, units[u]);
}

nlohmann::json shape_json(const graph::Graph& g, const std::string& name) {
  nlohmann::json j;
  j["name"] = name;
  if (g.is_initializer(name)) {
    j["dtype"] = graph::dtype_name(g.initializers.at(name).dtype());
    j["shape"] = g.initializers.at(name).shape();
  } else if (const graph::ValueInfo* v = g.info(name); v != nullptr) {
    j["dtype"] = graph::dtype_name(v->dtype);
    j["shape"] = v->known_shape ? nlohmann::json(v->shape) : nlohmann::json(nullptr);  // -1: unknown dimension
    if (v->sequence) j["sequence"] = true;  // dtype and shape are its elements'
  }
  return j;
}

void run_inspect(const InspectArgs& a) {
  check_can_write(a.json, a.force);
  if (a.batch && *a.batch < 1) throw Error(fmt::format("--batch {}: must be at least 1", *a.batch));
  model::apply_tensor_limit(a.max_tensor_mib);
  graph::Graph g = graph::import_onnx(a.model);
  if (a.batch) g = model::set_batch(std::move(g), *a.batch);
  const size_t imported_nodes = g.nodes.size();
  graph::ShapeInferenceOptions options;
  options.batch = a.batch.value_or(1);
  options.evaluate = cpu::eval_float_node;
  g = graph::infer_shapes(g, options);
  if (a.fold) {
    g = graph::fold_constants(g, cpu::eval_float_node);
    g = graph::fold_batch_norm(g);
    g = graph::remove_dead_nodes(g);
  }
  const graph::GraphStats stats = graph::graph_stats(g);

  // Table columns sized to their contents.
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"#", "node", "op", "output", "MACs", "params"});
  for (size_t i = 0; i < stats.layers.size(); ++i) {
    const graph::LayerStats& s = stats.layers[i];
    rows.push_back({std::to_string(i), s.name, s.op_type, value_text(g, s.output),
                    s.macs == 0 ? "" : (s.macs < 0 ? "?" : std::to_string(s.macs)),
                    s.params == 0 ? "" : std::to_string(s.params)});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  std::string out = fmt::format("model   {}\ngraph   {} (opset {}), {} nodes imported{}\n", a.model, g.name, g.opset,
                                imported_nodes, a.fold ? fmt::format(", {} after folding", g.nodes.size()) : "");
  for (const std::string& i : g.inputs) out += fmt::format("input   {}: {}\n", i, value_text(g, i));
  for (const std::string& o : g.outputs) out += fmt::format("output  {}: {}\n", o, value_text(g, o));
  out += "\n";
  for (const auto& r : rows) {
    out += fmt::format("{:>{}}  {:<{}}  {:<{}}  {:<{}}  {:>{}}  {:>{}}\n", r[0], width[0], r[1], width[1], r[2], width[2],
                       r[3], width[3], r[4], width[4], r[5], width[5]);
  }
  out += "\noperators\n";
  for (const auto& [op, count] : stats.op_counts) out += fmt::format("  {:<20} {:>5}\n", op, count);
  out += fmt::format("\ntotal   {} nodes, {} MACs ({}), {} parameters ({})\n", g.nodes.size(), human(stats.total_macs),
                     stats.total_macs, human(stats.total_params), stats.total_params);
  if (a.ir) out += "\n" + graph::print_graph(g);
  std::optional<backend::BuiltNetwork> built;
  if (a.placement) {
    model::ModelSource m;
    m.model = a.model;
    m.config = a.config;
    m.calibrate = a.calibrate;
    m.max_tensor_mib = a.max_tensor_mib;
    backend::NetworkRequest n;
    n.batch = a.batch;
    built = backend::build_network(m, n);
    out += fmt::format("\nplacement on {}\n{}", built->net.config.name(), backend::placement_table(built->net));
  }
  std::cout << out;

  if (!a.json.empty()) {
    nlohmann::json j;
    j["model"] = a.model;
    j["graph"] = g.name;
    j["opset"] = g.opset;
    const graph::ValueInfo* in = g.inputs.empty() ? nullptr : g.info(g.inputs[0]);
    const bool shown = in && in->known_shape && !in->shape.empty() && in->shape[0] > 0;
    j["batch"] = shown ? in->shape[0] : a.batch.value_or(1);  // the batch the shapes are shown at
    j["folded"] = a.fold;
    j["inputs"] = nlohmann::json::array();
    for (const std::string& i : g.inputs) j["inputs"].push_back(shape_json(g, i));
    j["outputs"] = nlohmann::json::array();
    for (const std::string& o : g.outputs) j["outputs"].push_back(shape_json(g, o));
    j["nodes"] = nlohmann::json::array();
    for (size_t i = 0; i < stats.layers.size(); ++i) {
      const graph::LayerStats& s = stats.layers[i];
      const graph::Node& n = g.nodes[i];
      nlohmann::json row = {{"name", s.name}, {"op", s.op_type}, {"inputs", n.inputs}, {"outputs", n.outputs},
                            {"macs", s.macs}, {"params", s.params}};
      row["output_shape"] = s.output_known ? nlohmann::json(s.output_shape) : nlohmann::json(nullptr);
      j["nodes"].push_back(row);
    }
    j["op_counts"] = stats.op_counts;
    j["total_macs"] = stats.total_macs;
    j["total_params"] = stats.total_params;
    if (built) {
      j["placement"] = backend::placement_json(built->net);
      j["config"] = built->net.config.to_json();
    }
    write_text(a.json, j.dump(2) + "\n", a.force);
  }
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand("inspect", "Show an ONNX model's imported graph: shapes, operators, MACs");
  cmd->add_option("model", args->model, "The .onnx file")->required();
  cmd->add_option("--json", args->json, "Also write the summary as JSON to this file");
  cmd->add_option_function<int64_t>(
      "--batch", [args](const int64_t& n) { args->batch = n; },
      "Batch size every input's first dimension takes (default: the batch the model declares; 1 when symbolic)");
  cmd->add_flag("--fold", args->fold, "Run constant folding, batch-norm folding and dead-node removal first");
  cmd->add_flag("--ir", args->ir, "Also print the graph in the IR's text form");
  cmd->add_flag("--placement", args->placement,
                "Quantize and compile for --config: show where every layer runs (accelerator or CPU) and why");
  cmd->add_option("--config", args->config, "Hardware config for --placement (default: built-in pynq)");
  cmd->add_option("--calibrate", args->calibrate, "Calibration data for --placement (default: synthetic)");
  cmd->add_flag("--force", args->force, "Overwrite an existing --json file");
  cmd->add_option("--max-tensor-mib", args->max_tensor_mib, "Refuse models whose tensors would exceed this many MiB (default 4096)");
  cmd->callback([args] { run_inspect(*args); });
}

static const CommandRegistrar kInspectRegistrar("inspect", add_inspect_command);

}  // namespace tauvta::cli
