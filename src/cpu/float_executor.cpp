#include "cpu/float_executor.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.h"
#include "cpu/op_registry.h"

namespace tauvta::cpu {

using graph::Graph;

namespace {

// Runs one kernel; every error leaves here naming the node (kernels usually name it already).
std::vector<Tensor> run_kernel(const Node& node, std::span<const Tensor* const> inputs, int64_t opset) {
  const FloatOpEntry* e = find_float_op(node.op_type);
  if (e == nullptr) {
    throw Error(fmt::format("{}: operator '{}' has no float kernel", node.describe(), node.op_type));
  }
  const std::string prefix = node.describe();
  std::vector<Tensor> outs;
  try {
    outs = e->kernel(OpArgs{node, inputs, opset});
  } catch (const Error& err) {
    if (std::string_view(err.what()).starts_with(prefix)) throw;
    throw Error(fmt::format("{}: {}", prefix, err.what()));
  } catch (const InternalError& err) {
    throw InternalError(fmt::format("{}: {}", prefix, err.what()));
  }
  size_t wanted = 0;  // outputs up to the last one the node names
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (!node.outputs[i].empty()) wanted = i + 1;
  }
  if (outs.size() < wanted) {
    throw Error(fmt::format("{}: produces {} outputs, the node asks for {}", prefix, outs.size(), wanted));
  }
  outs.resize(wanted);
  return outs;
}

bool shape_matches(const Shape& expected, const Shape& actual) {
  if (expected.size() != actual.size()) return false;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] >= 0 && expected[i] != actual[i]) return false;
  }
  return true;
}

}  // namespace

bool float_op_supported(const std::string& op_type) { return find_float_op(op_type) != nullptr; }

std::vector<Tensor> eval_float_node(const Node& node, const std::vector<const Tensor*>& inputs, int64_t opset) {
  return run_kernel(node, inputs, opset);
}

TensorMap run_float(const Graph& g, const TensorMap& inputs, const NodeObserver& observer, FloatRunStats* stats) {
  // Inputs: all given, nothing unknown, dtypes and known dimensions as the graph says.
  for (const auto& [name, t] : inputs) {
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
      throw Error(fmt::format("graph '{}' has no input '{}' (inputs: {})", g.name, name, fmt::join(g.inputs, ", ")));
    }
  }
  std::unordered_map<std::string, const Tensor*> available;
  for (const auto& [name, t] : g.initializers) available[name] = &t;
  for (const std::string& name : g.inputs) {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw Error(fmt::format("graph '{}': input '{}' is not given", g.name, name));
    const graph::ValueInfo* vi = g.info(name);
    if (vi != nullptr) {
      if (vi->dtype != it->second.dtype()) {
        throw Error(fmt::format("graph '{}': input '{}' is {}, the graph expects {}", g.name, name,
                                graph::dtype_name(it->second.dtype()), graph::dtype_name(vi->dtype)));
      }
      if (vi->known_shape && !shape_matches(vi->shape, it->second.shape())) {
        throw Error(fmt::format("graph '{}': input '{}' has shape {}, the graph expects {}", g.name, name,
                                graph::shape_string(it->second.shape()), graph::shape_string(vi->shape)));
      }
    }
    available[name] = &it->second;
  }

  // Last node index reading each value; graph outputs are never freed.
  std::unordered_map<std::string, size_t> last_use;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const std::string& in : g.nodes[i].inputs) {
      if (!in.empty()) last_use[in] = i;
    }
  }
  const std::set<std::string> keep(g.outputs.begin(), g.outputs.end());

  std::unordered_map<std::string, Tensor> live;  // values computed by nodes and still needed
  int64_t live_bytes = 0, peak_bytes = 0;
  std::vector<const Tensor*> args;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    args.clear();
    for (const std::string& in : node.inputs) {
      if (in.empty()) {
        args.push_back(nullptr);
        continue;
      }
      auto it = available.find(in);
      if (it == available.end()) {
        throw Error(fmt::format("{}: input '{}' is not available (not a graph input, initializer or earlier output)",
                                node.describe(), in));
      }
      args.push_back(it->second);
    }
    std::vector<Tensor> outs = run_kernel(node, args, g.opset);
    std::vector<const Tensor*> out_ptrs;
    for (size_t k = 0; k < outs.size(); ++k) {
      const std::string& name = node.outputs[k];
      if (name.empty()) {
        out_ptrs.push_back(nullptr);
        continue;
      }
      const graph::ValueInfo* vi = g.info(name);
      if (vi != nullptr && vi->known_shape && !shape_matches(vi->shape, outs[k].shape())) {
        throw Error(fmt::format("{}: output '{}' has shape {} but shape inference said {}", node.describe(), name,
                                graph::shape_string(outs[k].shape()), graph::shape_string(vi->shape)));
      }
      if (live.count(name)) throw Error(fmt::format("{}: output '{}' is produced twice", node.describe(), name));
      live_bytes += int64_t(outs[k].byte_size());
      Tensor& slot = live[name] = std::move(outs[k]);
      available[name] = &slot;
      out_ptrs.push_back(&slot);
    }
    peak_bytes = std::max(peak_bytes, live_bytes);
    if (observer) observer(node, out_ptrs);
    // Free what no later node reads (outputs nobody reads go too, unless graph outputs).
    auto release = [&](const std::string& v) {
      if (keep.count(v)) return;
      auto lu = last_use.find(v);
      if (lu != last_use.end() && lu->second > i) return;
      auto it = live.find(v);
      if (it == live.end()) return;
      live_bytes -= int64_t(it->second.byte_size());
      live.erase(it);
      available.erase(v);
    };
    for (const std::string& in : node.inputs) {
      if (!in.empty()) release(in);
    }
    for (const std::string& out : node.outputs) {
      if (!out.empty()) release(out);
    }
  }

  if (stats != nullptr) {
    stats->nodes = int64_t(g.nodes.size());
    stats->peak_live_bytes = peak_bytes;
  }
  TensorMap result;
  for (const std::string& name : g.outputs) {
    auto it = available.find(name);
    if (it == available.end()) throw Error(fmt::format("graph '{}': output '{}' was not produced", g.name, name));
    auto lv = live.find(name);
    if (lv != live.end() && std::count(g.outputs.begin(), g.outputs.end(), name) == 1) {
      result[name] = std::move(lv->second);  // computed here and listed once: no copy needed
      live.erase(lv);
      available.erase(name);
    } else {
      result[name] = *it->second;
    }
  }
  return result;
}

}  // namespace tauvta::cpu
