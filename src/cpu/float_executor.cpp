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

// A value a node reads: a tensor or a sequence, owned elsewhere (an initializer, a caller's input,
// or a node output still live).
struct ValueRef {
  const Tensor* tensor = nullptr;
  const TensorSequence* sequence = nullptr;
};

ValueRef value_ref(const Value& v) {
  if (const Tensor* t = std::get_if<Tensor>(&v)) return {t, nullptr};
  return {nullptr, &std::get<TensorSequence>(v)};
}

Value owned_value(ValueRef r) { return r.tensor != nullptr ? Value(*r.tensor) : Value(*r.sequence); }

int64_t value_bytes(const Value& v) {
  if (const Tensor* t = std::get_if<Tensor>(&v)) return int64_t(t->byte_size());
  return std::get<TensorSequence>(v).byte_size();
}

const FloatOpEntry& kernel_entry(const Node& node) {
  const FloatOpEntry* e = find_float_op(node.op_type);
  if (e == nullptr) {
    throw Error(fmt::format("{}: operator '{}' has no float kernel", node.describe(), node.op_type));
  }
  return *e;
}

// Runs a kernel call; every error leaves here naming the node (kernels usually name it already).
template <class Call>
auto call_naming_node(const Node& node, Call&& call) -> decltype(call()) {
  const std::string prefix = node.describe();
  try {
    return call();
  } catch (const Error& err) {
    if (std::string_view(err.what()).starts_with(prefix)) throw;
    throw Error(fmt::format("{}: {}", prefix, err.what()));
  } catch (const InternalError& err) {
    throw InternalError(fmt::format("{}: {}", prefix, err.what()));
  }
}

// Keeps the outputs up to the last one the node names; a kernel that made fewer is an error.
template <class T>
void keep_named_outputs(const Node& node, std::vector<T>& outs) {
  size_t wanted = 0;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (!node.outputs[i].empty()) wanted = i + 1;
  }
  if (outs.size() < wanted) {
    throw Error(fmt::format("{}: produces {} outputs, the node asks for {}", node.describe(), outs.size(), wanted));
  }
  outs.resize(wanted);
}

// One node on tensors (eval_float_node): a value kernel's outputs must be tensors too.
std::vector<Tensor> run_tensor_node(const Node& node, std::span<const Tensor* const> inputs, int64_t opset) {
  const FloatOpEntry& e = kernel_entry(node);
  if (e.kernel != nullptr) {
    std::vector<Tensor> outs = call_naming_node(node, [&] { return e.kernel(OpArgs{node, inputs, opset}); });
    keep_named_outputs(node, outs);
    return outs;
  }
  std::vector<Value> made = call_naming_node(node, [&] { return e.value_kernel(OpArgs{node, inputs, opset}); });
  keep_named_outputs(node, made);
  std::vector<Tensor> outs;
  for (size_t k = 0; k < made.size(); ++k) {
    Tensor* t = std::get_if<Tensor>(&made[k]);
    if (t == nullptr) {
      throw Error(fmt::format("{}: output {} ('{}') is a {}; only tensors can be returned here", node.describe(), k,
                              node.outputs[k], std::get<TensorSequence>(made[k]).describe()));
    }
    outs.push_back(std::move(*t));
  }
  return outs;
}

// One node on tensors and sequences. A tensor kernel is refused a sequence here, by name, so no
// kernel mistakes one for an omitted optional input.
std::vector<Value> run_value_node(const Node& node, std::span<const Tensor* const> tensors,
                                  std::span<const TensorSequence* const> sequences, int64_t opset) {
  const FloatOpEntry& e = kernel_entry(node);
  std::vector<Value> outs;
  if (e.value_kernel != nullptr) {
    outs = call_naming_node(node, [&] { return e.value_kernel(OpArgs{node, tensors, opset, sequences}); });
  } else {
    for (size_t i = 0; i < sequences.size(); ++i) {
      if (sequences[i] != nullptr) {
        throw Error(fmt::format("{}: input {} ('{}') is a {}; {} takes tensors", node.describe(), i, node.input(i),
                                sequences[i]->describe(), node.op_type));
      }
    }
    std::vector<Tensor> made = call_naming_node(node, [&] { return e.kernel(OpArgs{node, tensors, opset}); });
    outs.reserve(made.size());
    for (Tensor& t : made) outs.emplace_back(std::move(t));
  }
  keep_named_outputs(node, outs);
  return outs;
}

bool shape_matches(const Shape& expected, const Shape& actual) {
  if (expected.size() != actual.size()) return false;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] >= 0 && expected[i] != actual[i]) return false;
  }
  return true;
}

const char* value_kind_name(bool sequence) { return sequence ? "sequence" : "tensor"; }

// A node output against what shape inference recorded for it (kind, and shape where known; a
// sequence's elements against its element shape). Throws naming the node.
void check_node_output(const Node& node, const std::string& name, const graph::ValueInfo* vi, ValueRef v) {
  if (vi == nullptr) return;
  const bool is_seq = v.sequence != nullptr;
  if (vi->sequence != is_seq) {
    throw Error(fmt::format("{}: output '{}' is a {} but shape inference said a {}", node.describe(), name,
                            value_kind_name(is_seq), value_kind_name(vi->sequence)));
  }
  if (!vi->known_shape) return;
  if (!is_seq) {
    if (!shape_matches(vi->shape, v.tensor->shape())) {
      throw Error(fmt::format("{}: output '{}' has shape {} but shape inference said {}", node.describe(), name,
                              graph::shape_string(v.tensor->shape()), graph::shape_string(vi->shape)));
    }
    return;
  }
  for (size_t k = 0; k < v.sequence->tensors.size(); ++k) {
    const Shape& s = v.sequence->tensors[k].shape();
    if (!shape_matches(vi->shape, s)) {
      throw Error(fmt::format("{}: output '{}' holds a tensor of shape {} (element {}) but shape inference said its "
                              "elements are {}", node.describe(), name, graph::shape_string(s), k,
                              graph::shape_string(vi->shape)));
    }
  }
}

// A graph input against the graph's declaration: kind, dtype, and the known dimensions (of
// every element, for a sequence).
void check_graph_input(const Graph& g, const std::string& name, ValueRef v) {
  const graph::ValueInfo* vi = g.info(name);
  if (vi == nullptr) return;
  if (vi->sequence && v.tensor != nullptr) {
    throw Error(fmt::format("graph '{}': input '{}' is a sequence of {} tensors; a tensor was given", g.name, name,
                            graph::dtype_name(vi->dtype)));
  }
  if (!vi->sequence && v.sequence != nullptr) {
    throw Error(
        fmt::format("graph '{}': input '{}' is a tensor; a {} was given", g.name, name, v.sequence->describe()));
  }
  if (v.tensor != nullptr) {
    if (vi->dtype != v.tensor->dtype()) {
      throw Error(fmt::format("graph '{}': input '{}' is {}, the graph expects {}", g.name, name,
                              graph::dtype_name(v.tensor->dtype()), graph::dtype_name(vi->dtype)));
    }
    if (vi->known_shape && !shape_matches(vi->shape, v.tensor->shape())) {
      throw Error(fmt::format("graph '{}': input '{}' has shape {}, the graph expects {}", g.name, name,
                              graph::shape_string(v.tensor->shape()), graph::shape_string(vi->shape)));
    }
    return;
  }
  const TensorSequence& s = *v.sequence;
  if (s.dtype != vi->dtype) {
    throw Error(fmt::format("graph '{}': input '{}' is a {}, the graph expects {} elements", g.name, name, s.describe(),
                            graph::dtype_name(vi->dtype)));
  }
  for (size_t k = 0; k < s.tensors.size(); ++k) {
    const Tensor& t = s.tensors[k];
    if (t.dtype() != s.dtype) {
      throw Error(fmt::format("graph '{}': input '{}': element {} is {} in a sequence of {} tensors", g.name, name, k,
                              graph::dtype_name(t.dtype()), graph::dtype_name(s.dtype)));
    }
    if (vi->known_shape && !shape_matches(vi->shape, t.shape())) {
      throw Error(fmt::format("graph '{}': input '{}': element {} has shape {}, the graph expects elements of shape {}",
                              g.name, name, k, graph::shape_string(t.shape()), graph::shape_string(vi->shape)));
    }
  }
}

// The run itself, on inputs read in place: nodes in order, every value freed after its last
// reader, graph outputs returned by name.
ValueMap run_graph(const Graph& g, const std::map<std::string, ValueRef>& inputs, const NodeObserver& observer,
                   FloatRunStats* stats) {
  // Inputs: all given, nothing unknown, kinds, dtypes and known dimensions as the graph says.
  for (const auto& [name, v] : inputs) {
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
      throw Error(fmt::format("graph '{}' has no input '{}' (inputs: {})", g.name, name, fmt::join(g.inputs, ", ")));
    }
  }
  std::unordered_map<std::string, ValueRef> available;
  for (const auto& [name, t] : g.initializers) available[name] = ValueRef{&t, nullptr};
  for (const std::string& name : g.inputs) {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw Error(fmt::format("graph '{}': input '{}' is not given", g.name, name));
    check_graph_input(g, name, it->second);
    available[name] = it->second;
  }

  // Last node index reading each value; graph outputs are never freed.
  std::unordered_map<std::string, size_t> last_use;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const std::string& in : g.nodes[i].inputs) {
      if (!in.empty()) last_use[in] = i;
    }
  }
  const std::set<std::string> keep(g.outputs.begin(), g.outputs.end());

  std::unordered_map<std::string, Value> live;  // values computed by nodes and still needed
  int64_t live_bytes = 0, peak_bytes = 0;
  std::vector<const Tensor*> tensor_args;
  std::vector<const TensorSequence*> sequence_args;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    tensor_args.clear();
    sequence_args.clear();
    for (const std::string& in : node.inputs) {
      if (in.empty()) {
        tensor_args.push_back(nullptr);
        sequence_args.push_back(nullptr);
        continue;
      }
      auto it = available.find(in);
      if (it == available.end()) {
        throw Error(fmt::format("{}: input '{}' is not available (not a graph input, initializer or earlier output)",
                                node.describe(), in));
      }
      tensor_args.push_back(it->second.tensor);
      sequence_args.push_back(it->second.sequence);
    }
    std::vector<Value> outs = run_value_node(node, tensor_args, sequence_args, g.opset);
    std::vector<const Tensor*> out_ptrs;
    for (size_t k = 0; k < outs.size(); ++k) {
      const std::string& name = node.outputs[k];
      if (name.empty()) {
        out_ptrs.push_back(nullptr);
        continue;
      }
      check_node_output(node, name, g.info(name), value_ref(outs[k]));
      if (live.count(name)) throw Error(fmt::format("{}: output '{}' is produced twice", node.describe(), name));
      live_bytes += value_bytes(outs[k]);
      Value& slot = live[name] = std::move(outs[k]);
      available[name] = value_ref(slot);
      out_ptrs.push_back(std::get_if<Tensor>(&slot));
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
      live_bytes -= value_bytes(it->second);
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
  ValueMap result;
  for (const std::string& name : g.outputs) {
    auto it = available.find(name);
    if (it == available.end()) throw Error(fmt::format("graph '{}': output '{}' was not produced", g.name, name));
    auto lv = live.find(name);
    if (lv != live.end() && std::count(g.outputs.begin(), g.outputs.end(), name) == 1) {
      result[name] = std::move(lv->second);  // computed here and listed once: no copy needed
      live.erase(lv);
      available.erase(name);
    } else {
      result[name] = owned_value(it->second);
    }
  }
  return result;
}

}  // namespace

bool float_op_supported(const std::string& op_type) { return find_float_op(op_type) != nullptr; }

std::vector<Tensor> eval_float_node(const Node& node, const std::vector<const Tensor*>& inputs, int64_t opset) {
  return run_tensor_node(node, inputs, opset);
}

std::vector<Value> eval_float_node_values(const Node& node, const std::vector<const Value*>& inputs, int64_t opset) {
  std::vector<const Tensor*> tensors;
  std::vector<const TensorSequence*> sequences;
  for (const Value* v : inputs) {
    const ValueRef r = v != nullptr ? value_ref(*v) : ValueRef{};
    tensors.push_back(r.tensor);
    sequences.push_back(r.sequence);
  }
  return run_value_node(node, tensors, sequences, opset);
}

TensorMap run_float(const Graph& g, const TensorMap& inputs, const NodeObserver& observer, FloatRunStats* stats) {
  const auto sequence_output = [&](const std::string& name) {
    return fmt::format("graph '{}': output '{}' is a sequence of tensors; only tensors can be returned here "
                       "(run_float_values returns sequences)", g.name, name);
  };
  for (const std::string& name : g.outputs) {  // refused before the run, when the graph says so
    const graph::ValueInfo* vi = g.info(name);
    if (vi != nullptr && vi->sequence) throw Error(sequence_output(name));
  }
  std::map<std::string, ValueRef> refs;
  for (const auto& [name, t] : inputs) refs[name] = ValueRef{&t, nullptr};
  ValueMap outs = run_graph(g, refs, observer, stats);
  TensorMap result;
  for (auto& [name, v] : outs) {
    Tensor* t = std::get_if<Tensor>(&v);
    if (t == nullptr) throw Error(sequence_output(name));
    result[name] = std::move(*t);
  }
  return result;
}

ValueMap run_float_values(const Graph& g, const ValueMap& inputs, const NodeObserver& observer, FloatRunStats* stats) {
  std::map<std::string, ValueRef> refs;
  for (const auto& [name, v] : inputs) refs[name] = value_ref(v);
  return run_graph(g, refs, observer, stats);
}

}  // namespace tauvta::cpu
