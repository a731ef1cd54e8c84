#include "backend/network_formats.h"

#include <fmt/format.h>

#include "backend/compile_network.h"
#include "backend/layer_specs.h"
#include "common/error.h"
#include "lower/conv_lowering.h"

namespace tauvta::backend {

namespace {

const graph::Node& node_named(const graph::Graph& g, const std::string& name) {
  if (const graph::Node* n = g.node(name)) return *n;
  throw InternalError(fmt::format("no node '{}' in the quantized graph", name));
}

// The requantization values an accelerator layer's patch sites hold for graph `g` (empty for
// layers without any, such as max pools).
std::vector<lower::RequantValues> layer_values(const CompiledNetwork& net, const graph::Graph& g, const NetworkLayer& l) {
  const graph::Node& n = node_named(g, l.nodes.at(0));
  const hw::HwConfig& c = net.config;
  if (!is_conv_family(n.op_type)) return {};
  ConvLayer cl = conv_family_layer(g, n, c, net.views);
  // A first layer reading a folded input: the same fold, and its bias in the same lanes (whose
  // weights are then patched too).
  if (!l.inputs.empty()) {
    if (auto f = net.folds.find(l.inputs[0]); f != net.folds.end()) {
      if (std::string why = apply_input_fold(c, cl.spec, f->second); !why.empty()) {
        throw Error(fmt::format("layer '{}': at these formats {}; the new format needs the layer lowered again "
                                "(compile the model with these formats)", l.name, why));
      }
    }
  }
  if (l.nodes.size() > 1) {
    const graph::Node& add = node_named(g, l.nodes[1]);
    const std::optional<lower::FusedAdd> f = fused_add_of(add_spec(g, add, c), add.input(0) == n.outputs.at(0));
    if (!f) {
      throw Error(fmt::format("layer '{}': at these formats the residual add '{}' can no longer be fused (its operand "
                              "shifts change sign); the new format needs the layer lowered again",
                              l.name, add.name));
    }
    cl.spec.add = *f;
  }
  return lower::conv_requant_values(c, cl.spec);
}

}  // namespace

void attach_quant_source(CompiledNetwork& net, const graph::Graph& float_graph, const graph::QuantizeResult& q,
                         const graph::QuantizeOptions& options) {
  CompiledNetwork::QuantSource src{float_graph, options};
  src.options.formats = q.activation_formats;
  net.quant_source = std::move(src);
}

std::map<std::string, int> network_formats(const CompiledNetwork& net) {
  if (!net.quant_source) {
    throw Error("this compiled network holds no float graph to quantize again (it was compiled from a quantized "
                "graph): compile it from the ONNX model");
  }
  return net.quant_source->options.formats;
}

FormatPatch set_formats(CompiledNetwork& net, const std::map<std::string, int>& changes) {
  std::map<std::string, int> formats = network_formats(net);
  for (const auto& [v, f] : changes) {
    if (!formats.count(v)) throw Error(fmt::format("no activation '{}' with a format in the network", v));
    formats[v] = f;
  }
  graph::QuantizeOptions o = net.quant_source->options;
  o.formats = formats;
  // Every activation's format is given, so quantization needs no calibration statistics.
  graph::QuantizeResult q = graph::quantize(net.quant_source->float_graph, {}, o);
  graph::verify_quantized(q.graph);
  const graph::ValueInfo* in = net.graph.inputs.empty() ? nullptr : net.graph.info(net.graph.inputs[0]);
  q.graph = with_batch(q.graph, in && !in->shape.empty() ? in->shape[0] : 1);
  if (q.graph.nodes.size() != net.graph.nodes.size()) {
    throw Error("at these formats the quantized graph has other nodes; compile the model with these formats");
  }
  for (size_t i = 0; i < q.graph.nodes.size(); ++i) {
    if (q.graph.nodes[i].name != net.graph.nodes[i].name || q.graph.nodes[i].op_type != net.graph.nodes[i].op_type) {
      throw Error(fmt::format("at these formats node {} becomes '{}' ({}) instead of '{}' ({}); compile the model "
                              "with these formats", i, q.graph.nodes[i].name, q.graph.nodes[i].op_type,
                              net.graph.nodes[i].name, net.graph.nodes[i].op_type));
    }
  }
  // Patch a copy, so a refused layer leaves the network untouched.
  lower::Program program = net.program;
  std::vector<graph::Graph> parts = net.cpu_parts;
  FormatPatch out;
  for (const NetworkLayer& l : net.layers) {
    if (l.placement == Placement::kCpu) {
      const graph::Node& n = node_named(q.graph, l.nodes.at(0));
      graph::Graph part = cpu_part_graph(q.graph, n);
      graph::Graph& old = parts.at(size_t(l.cpu_part));
      if (old.nodes.at(0).attrs != part.nodes.at(0).attrs || old.initializers.size() != part.initializers.size() ||
          !std::equal(old.initializers.begin(), old.initializers.end(), part.initializers.begin(),
                      [](const auto& a, const auto& b) { return a.first == b.first && a.second == b.second; })) {
        out.cpu_layers.push_back(l.name);
      }
      old = std::move(part);
      continue;
    }
    if (l.program_layer < 0) continue;  // a view
    const std::vector<lower::RequantValues> now = layer_values(net, net.graph, l);
    const std::vector<lower::RequantValues> next = layer_values(net, q.graph, l);
    if (now == next) continue;
    if (next.empty()) {
      throw Error(fmt::format("layer '{}' ({}): its arithmetic changes at these formats and it has no patch sites; "
                              "compile the model with these formats", l.name, l.op));
    }
    if (program.layers.at(size_t(l.program_layer)).sites.empty()) {
      throw Error(fmt::format("layer '{}': the artifact records no patch sites (made by an older tauvta); compile it again", l.name));
    }
    lower::patch_layer(program, size_t(l.program_layer), next);
    out.patched_layers.push_back(l.name);
  }
  // Values the compiler added (column-folded inputs) keep their shapes and take their source's
  // new format.
  for (const auto& [name, vi] : net.graph.values) {
    if (q.graph.values.count(name)) continue;
    graph::ValueInfo& v = q.graph.info_mut(name);
    v = vi;
    if (auto f = net.folds.find(name); f != net.folds.end()) {
      if (const graph::ValueInfo* src = q.graph.info(f->second.source)) v.quant = src->quant;
    }
  }
  net.program = std::move(program);
  net.cpu_parts = std::move(parts);
  net.graph = std::move(q.graph);
  net.quant_source->options.formats = std::move(formats);
  return out;
}

}  // namespace tauvta::backend
