#include "graph/graph.h"

#include <set>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::graph {

namespace {

template <class T>
const T* find_attr(const Node& n, const std::string& key, const char* type) {
  auto it = n.attrs.find(key);
  if (it == n.attrs.end()) return nullptr;
  const T* v = std::get_if<T>(&it->second);
  if (v == nullptr) {
    throw Error(fmt::format("{}: attribute '{}' is not {}", n.describe(), key, type));
  }
  return v;
}

template <class T>
const T& required_attr(const Node& n, const std::string& key, const char* type) {
  const T* v = find_attr<T>(n, key, type);
  if (v == nullptr) throw Error(fmt::format("{}: missing attribute '{}'", n.describe(), key));
  return *v;
}

}  // namespace

int64_t Node::attr_int(const std::string& key) const { return required_attr<int64_t>(*this, key, "an int"); }
int64_t Node::attr_int_or(const std::string& key, int64_t fallback) const {
  const int64_t* v = find_attr<int64_t>(*this, key, "an int");
  return v ? *v : fallback;
}
float Node::attr_float(const std::string& key) const {
  // ONNX writers sometimes store integral floats as ints; accept both.
  auto it = attrs.find(key);
  if (it != attrs.end()) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return float(*i);
  }
  return required_attr<float>(*this, key, "a float");
}
float Node::attr_float_or(const std::string& key, float fallback) const {
  return has_attr(key) ? attr_float(key) : fallback;
}
std::string Node::attr_string_or(const std::string& key, const std::string& fallback) const {
  const std::string* v = find_attr<std::string>(*this, key, "a string");
  return v ? *v : fallback;
}
std::vector<int64_t> Node::attr_ints(const std::string& key) const {
  return required_attr<std::vector<int64_t>>(*this, key, "a list of ints");
}
std::vector<int64_t> Node::attr_ints_or(const std::string& key, std::vector<int64_t> fallback) const {
  const auto* v = find_attr<std::vector<int64_t>>(*this, key, "a list of ints");
  return v ? *v : fallback;
}
std::vector<float> Node::attr_floats_or(const std::string& key, std::vector<float> fallback) const {
  const auto* v = find_attr<std::vector<float>>(*this, key, "a list of floats");
  return v ? *v : fallback;
}
const Tensor& Node::attr_tensor(const std::string& key) const {
  return required_attr<Tensor>(*this, key, "a tensor");
}

std::string Node::describe() const { return fmt::format("node '{}' ({})", name, op_type); }

const std::string& Node::input(size_t i) const {
  static const std::string kNone;
  return i < inputs.size() ? inputs[i] : kNone;
}

const Node* Graph::node(const std::string& node_name) const {
  for (const Node& n : nodes) {
    if (n.name == node_name) return &n;
  }
  return nullptr;
}

const Node* Graph::producer(const std::string& value) const {
  for (const Node& n : nodes) {
    for (const std::string& o : n.outputs) {
      if (o == value) return &n;
    }
  }
  return nullptr;
}

std::vector<const Node*> Graph::consumers(const std::string& value) const {
  std::vector<const Node*> out;
  for (const Node& n : nodes) {
    for (const std::string& i : n.inputs) {
      if (i == value) {
        out.push_back(&n);
        break;
      }
    }
  }
  return out;
}

const ValueInfo* Graph::info(const std::string& value) const {
  auto it = values.find(value);
  return it == values.end() ? nullptr : &it->second;
}

ValueInfo& Graph::info_mut(const std::string& value) {
  ValueInfo& v = values[value];
  v.name = value;
  return v;
}

std::string Graph::unique_name(const std::string& base) const {
  std::set<std::string> used;
  for (const Node& n : nodes) {
    used.insert(n.name);
    used.insert(n.outputs.begin(), n.outputs.end());
  }
  for (const auto& [k, v] : initializers) used.insert(k);
  used.insert(inputs.begin(), inputs.end());
  if (!used.count(base)) return base;
  for (int k = 1;; ++k) {
    const std::string s = fmt::format("{}_{}", base, k);
    if (!used.count(s)) return s;
  }
}

void verify(const Graph& g) {
  std::set<std::string> available(g.inputs.begin(), g.inputs.end());
  for (const auto& [k, v] : g.initializers) available.insert(k);
  std::set<std::string> node_names;
  for (const Node& n : g.nodes) {
    if (n.name.empty()) throw Error(fmt::format("graph '{}': a {} node has no name", g.name, n.op_type));
    if (n.op_type.empty()) throw Error(fmt::format("graph '{}': node '{}' has no operator", g.name, n.name));
    if (!node_names.insert(n.name).second) {
      throw Error(fmt::format("graph '{}': two nodes are named '{}'", g.name, n.name));
    }
    for (const std::string& i : n.inputs) {
      if (!i.empty() && !available.count(i)) {
        throw Error(fmt::format("{}: input '{}' is used before anything produces it", n.describe(), i));
      }
    }
    for (const std::string& o : n.outputs) {
      if (o.empty()) continue;
      if (!available.insert(o).second) {
        throw Error(fmt::format("{}: output '{}' is already produced elsewhere", n.describe(), o));
      }
    }
  }
  for (const std::string& o : g.outputs) {
    if (!available.count(o)) {
      throw Error(fmt::format("graph '{}': output '{}' is not produced by any node", g.name, o));
    }
  }
}

std::string type_string(const ValueInfo& v) {
  if (v.sequence) return fmt::format("sequence<{}{}>", dtype_name(v.dtype), v.known_shape ? shape_string(v.shape) : "");
  if (!v.known_shape) return "?";
  return fmt::format("{}{}", dtype_name(v.dtype), shape_string(v.shape));
}

namespace {

std::string value_type(const Graph& g, const std::string& name) {
  const ValueInfo* v = g.info(name);
  if (v == nullptr) return "?";
  std::string s = type_string(*v);
  if (v->sequence || !v->known_shape) return s;
  if (v->quant.quantized()) {
    s += v->quant.per_channel() ? fmt::format(" q{}/per-channel", v->quant.bits)
                                : fmt::format(" q{}.{}", v->quant.bits, v->quant.frac_bits);
  }
  return s;
}

std::string attr_text(const AttrValue& a) {
  struct Visitor {
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(float v) const { return fmt::format("{:g}", v); }
    std::string operator()(const std::string& v) const { return "\"" + v + "\""; }
    std::string operator()(const std::vector<int64_t>& v) const { return fmt::format("[{}]", fmt::join(v, ",")); }
    std::string operator()(const std::vector<float>& v) const { return fmt::format("[{:g}]", fmt::join(v, ",")); }
    std::string operator()(const std::vector<std::string>& v) const { return fmt::format("[{}]", fmt::join(v, ",")); }
    std::string operator()(const Tensor& t) const {
      return fmt::format("tensor {}{}", dtype_name(t.dtype()), shape_string(t.shape()));
    }
  };
  return std::visit(Visitor{}, a);
}

}  // namespace

std::string print_graph(const Graph& g) {
  std::string s = fmt::format("graph {} (opset {})\n", g.name, g.opset);
  for (const std::string& i : g.inputs) s += fmt::format("input  {}: {}\n", i, value_type(g, i));
  for (const auto& [k, t] : g.initializers) {
    s += fmt::format("init   {}: {}{}", k, dtype_name(t.dtype()), shape_string(t.shape()));
    const ValueInfo* v = g.info(k);
    if (v != nullptr && v->quant.quantized()) {
      s += v->quant.per_channel() ? fmt::format(" q{}/per-channel", v->quant.bits)
                                  : fmt::format(" q{}.{}", v->quant.bits, v->quant.frac_bits);
    }
    s += "\n";
  }
  for (const Node& n : g.nodes) {
    std::vector<std::string> attrs;
    for (const auto& [k, v] : n.attrs) attrs.push_back(k + "=" + attr_text(v));
    std::vector<std::string> outs;
    for (const std::string& o : n.outputs) outs.push_back(o + ": " + value_type(g, o));
    s += fmt::format("node   {} = {}({}){} -> {}\n", n.name, n.op_type, fmt::join(n.inputs, ", "),
                     attrs.empty() ? "" : fmt::format(" {{{}}}", fmt::join(attrs, ", ")),
                     fmt::join(outs, ", "));
  }
  for (const std::string& o : g.outputs) s += fmt::format("output {}\n", o);
  return s;
}

}  // namespace tauvta::graph
