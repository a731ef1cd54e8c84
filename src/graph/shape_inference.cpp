// The shape-inference driver (input binding, one rule per node, consistency with recorded infos,
// value propagation of small shape tensors) and the shape-arithmetic evaluator.
#include "graph/shape_inference.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/onnx_import.h"
#include "graph/onnx_ops.h"
#include "graph/shape_rules.h"

namespace tauvta::graph {

// ---- helpers shared by the rules ----

const ValueInfo& InferArgs::in(size_t i) const {
  const ValueInfo* v = opt(i);
  if (v == nullptr) fail(fmt::format("input {} is missing", i));
  return *v;
}

std::optional<std::vector<int64_t>> InferArgs::ints(size_t i) const {
  const Tensor* t = value(i);
  if (t == nullptr) return std::nullopt;
  if (!dtype_is_integer(t->dtype())) {
    fail(fmt::format("input {} ('{}') is {}, expected integers", i, node.input(i), dtype_name(t->dtype())));
  }
  return t->to_int64();
}

void InferArgs::fail(const std::string& msg) const { throw Error(fmt::format("{}: {}", node.describe(), msg)); }

ValueInfo unranked(DType t) {
  ValueInfo v;
  v.dtype = t;
  return v;
}

ValueInfo ranked(DType t, Shape s) {
  ValueInfo v;
  v.dtype = t;
  v.shape = std::move(s);
  v.known_shape = true;
  return v;
}

int64_t dim_product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) {
    if (s[i] < 0) return -1;
    p *= s[i];
  }
  return p;
}

Shape broadcast(const InferArgs& a, const Shape& x, const Shape& y) {
  const size_t r = std::max(x.size(), y.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t dx = i < r - x.size() ? 1 : x[i - (r - x.size())];
    const int64_t dy = i < r - y.size() ? 1 : y[i - (r - y.size())];
    if (dx == 1) out[i] = dy;
    else if (dy == 1) out[i] = dx;
    else if (dx < 0) out[i] = dy;
    else if (dy < 0 || dx == dy) out[i] = dx;
    else a.fail(fmt::format("shapes {} and {} cannot be broadcast together", shape_string(x), shape_string(y)));
  }
  return out;
}

int64_t normalize_axis(const InferArgs& a, int64_t axis, int64_t rank, const char* what, bool inclusive) {
  const int64_t hi = inclusive ? rank : rank - 1;
  if (axis < -rank || axis > hi) {
    a.fail(fmt::format("{} {} is out of range for rank {}", what, axis, rank));
  }
  return axis < 0 ? axis + rank : axis;
}

void expect_dim(const InferArgs& a, int64_t got, int64_t want, const std::string& what) {
  if (got >= 0 && want >= 0 && got != want) a.fail(fmt::format("{} is {}, expected {}", what, got, want));
}

bool fully_known(const ValueInfo& v) {
  return v.known_shape && std::all_of(v.shape.begin(), v.shape.end(), [](int64_t d) { return d >= 0; });
}

namespace {

ShapeRule find_rule(const std::string& op) {
  if (ShapeRule r = find_nn_rule(op)) return r;
  if (ShapeRule r = find_tensor_rule(op)) return r;
  if (ShapeRule r = find_sequence_rule(op)) return r;
  return find_math_rule(op);
}

// Only the sequence operators and Identity take sequences; any other operator is refused one
// here, by name, before its rule reads the sequence's element info as if it were a tensor.
void refuse_sequence_inputs(const InferArgs& a) {
  if (is_sequence_operator(a.node.op_type) || a.node.op_type == "Identity") return;
  for (size_t i = 0; i < a.infos.size(); ++i) {
    if (a.infos[i] != nullptr && a.infos[i]->sequence) {
      a.fail(fmt::format("input {} ('{}') is a sequence of tensors; {} takes tensors", i, a.node.input(i),
                         a.node.op_type));
    }
  }
}

ValueInfo info_of_tensor(const Tensor& t) { return ranked(t.dtype(), t.shape()); }

void bind_inputs(Graph& g, const ShapeInferenceOptions& options) {
  for (const auto& [name, shape] : options.input_shapes) {
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
      throw Error(fmt::format("cannot set the shape of '{}': it is not a graph input (inputs: {})", name,
                              fmt::join(g.inputs, ", ")));
    }
    ValueInfo& v = g.info_mut(name);
    if (v.sequence) {
      throw Error(fmt::format("cannot set the shape of graph input '{}': it is a sequence, and its elements' shapes "
                              "are only known at run time", name));
    }
    if (v.known_shape) {
      bool ok = v.shape.size() == shape.size();
      for (size_t i = 0; ok && i < shape.size(); ++i) ok = v.shape[i] < 0 || v.shape[i] == shape[i];
      if (!ok) {
        throw Error(fmt::format("graph input '{}': shape {} does not match the model's {}", name, shape_string(shape),
                                shape_string(v.shape)));
      }
    }
    for (int64_t d : shape) {
      if (d < 0) throw Error(fmt::format("graph input '{}': shape {} has an unknown dimension", name, shape_string(shape)));
    }
    v.shape = shape;
    v.known_shape = true;
  }
  if (options.batch > 0) {
    for (const std::string& name : g.inputs) {
      ValueInfo& v = g.info_mut(name);
      if (!v.sequence && v.known_shape && !v.shape.empty() && v.shape[0] < 0) v.shape[0] = options.batch;
    }
  }
}

// An inferred shape must not contradict what was recorded before (declared graph outputs).
void check_consistent(const Node& n, const std::string& value, const ValueInfo& old, const ValueInfo& now) {
  if (old.sequence != now.sequence) {
    throw Error(fmt::format("{}: inferred a {} for '{}', but the graph records a {}", n.describe(),
                            now.sequence ? "sequence" : "tensor", value, old.sequence ? "sequence" : "tensor"));
  }
  if (!old.known_shape || !now.known_shape) return;
  bool ok = old.shape.size() == now.shape.size() && old.dtype == now.dtype;
  for (size_t i = 0; ok && i < old.shape.size(); ++i) {
    ok = old.shape[i] < 0 || now.shape[i] < 0 || old.shape[i] == now.shape[i];
  }
  if (!ok) {
    throw Error(fmt::format("{}: inferred {}{} for '{}', but the graph records {}{}", n.describe(), dtype_name(now.dtype),
                            shape_string(now.shape), value, dtype_name(old.dtype), shape_string(old.shape)));
  }
}

// Calls f(index) for every multi-index of `shape` in row-major order.
void for_each_index(const Shape& shape, const std::function<void(const std::vector<int64_t>&)>& f) {
  const int64_t n = num_elements(shape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(idx);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

int64_t offset_of(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t off = 0;
  for (size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + idx[d];
  return off;
}

// Element access in double: exact for the small integers of shape arithmetic.
Tensor build(DType t, const Shape& shape, const std::vector<double>& v) {
  if (t == DType::kFloat32 || t == DType::kFloat64) {
    std::vector<float> f(v.begin(), v.end());
    return Tensor::from_floats(shape, f).cast(t);
  }
  std::vector<int64_t> i(v.size());
  for (size_t k = 0; k < v.size(); ++k) i[k] = int64_t(v[k]);
  return Tensor::from_int64(t, shape, i);
}

std::vector<double> elements(const Tensor& t) {
  if (t.dtype() == DType::kFloat32 || t.dtype() == DType::kFloat64) {
    const std::vector<float> f = t.to_float();
    return {f.begin(), f.end()};
  }
  const std::vector<int64_t> i = t.to_int64();
  return {i.begin(), i.end()};
}

bool is_shape_arith_op(const std::string& op) {
  static const char* ops[] = {"Shape",   "Identity", "Cast",    "Gather", "Unsqueeze", "Squeeze", "Concat",
                              "Slice",   "Reshape",  "Flatten", "Add",    "Sub",       "Mul"};
  return std::any_of(std::begin(ops), std::end(ops), [&](const char* o) { return op == o; });
}

constexpr int64_t kMaxArithElements = kMaxShapeTensorElements;

// Every present input's value is known and small (what the optional evaluator may be given).
bool small_known_inputs(const Node& n, const std::vector<const Tensor*>& values) {
  if (n.inputs.empty()) return false;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty()) continue;
    if (values[i] == nullptr || values[i]->size() > kMaxArithElements) return false;
  }
  return true;
}

}  // namespace

std::vector<Tensor> evaluate_shape_arithmetic(const Node& node, const std::vector<const Tensor*>& inputs) {
  if (!is_shape_arith_op(node.op_type) || inputs.empty() || inputs[0] == nullptr) return {};
  std::vector<ValueInfo> infos;
  for (const Tensor* t : inputs) {
    infos.push_back(t != nullptr ? info_of_tensor(*t) : ValueInfo{});
    if (t == nullptr) continue;
    const bool small = t->size() <= kMaxArithElements;
    const bool simple = t->dtype() == DType::kInt64 || t->dtype() == DType::kInt32 || t->dtype() == DType::kFloat32;
    if (node.op_type != "Shape" && (!small || !simple)) return {};
  }
  InferArgs a{node, {}, inputs};
  for (size_t i = 0; i < inputs.size(); ++i) a.infos.push_back(inputs[i] != nullptr ? &infos[i] : nullptr);
  const ValueInfo out = find_rule(node.op_type)(a).at(0);
  if (!fully_known(out) || num_elements(out.shape) > kMaxArithElements) return {};
  const Tensor& x = *inputs[0];
  const std::string& op = node.op_type;
  if (op == "Shape") {
    const int64_t r = x.rank();
    int64_t start = node.attr_int_or("start", 0);
    if (start < 0) start += r;
    start = std::clamp<int64_t>(start, 0, r);
    return {Tensor::from_int64(DType::kInt64, out.shape,
                               std::vector<int64_t>(x.shape().begin() + start, x.shape().begin() + start + out.shape[0]))};
  }
  if (op == "Identity" || op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    return {x.reshaped(out.shape)};
  }
  if (op == "Cast") return {x.cast(out.dtype)};
  std::vector<double> result;
  result.reserve(size_t(num_elements(out.shape)));
  if (op == "Add" || op == "Sub" || op == "Mul") {
    const Tensor& y = *inputs.at(1);
    const std::vector<double> xv = elements(x), yv = elements(y);
    const bool integer = dtype_is_integer(x.dtype());
    for_each_index(out.shape, [&](const std::vector<int64_t>& idx) {
      auto pick = [&](const Tensor& t) {
        int64_t off = 0;
        const size_t skip = out.shape.size() - t.shape().size();
        for (size_t d = 0; d < t.shape().size(); ++d) off = off * t.shape()[d] + (t.shape()[d] == 1 ? 0 : idx[d + skip]);
        return off;
      };
      const double p = xv[size_t(pick(x))], q = yv[size_t(pick(y))];
      double r = op == "Add" ? p + q : op == "Sub" ? p - q : p * q;
      if (!integer) r = double(float(r));
      result.push_back(r);
    });
  } else if (op == "Gather") {
    const std::vector<double> xv = elements(x);
    const std::vector<int64_t> ind = inputs.at(1)->to_int64();
    const size_t axis = size_t(normalize_axis(a, node.attr_int_or("axis", 0), x.rank(), "axis"));
    const size_t q = size_t(inputs[1]->rank());
    for_each_index(out.shape, [&](const std::vector<int64_t>& idx) {
      std::vector<int64_t> src(idx.begin(), idx.begin() + int64_t(axis));
      const std::vector<int64_t> at(idx.begin() + int64_t(axis), idx.begin() + int64_t(axis + q));
      int64_t i = ind[size_t(offset_of(at, inputs[1]->shape()))];
      if (i < 0) i += x.shape()[axis];
      src.push_back(i);
      src.insert(src.end(), idx.begin() + int64_t(axis + q), idx.end());
      result.push_back(xv[size_t(offset_of(src, x.shape()))]);
    });
  } else if (op == "Concat") {
    const size_t axis = size_t(normalize_axis(a, node.attr_int("axis"), x.rank(), "axis"));
    std::vector<std::vector<double>> parts;
    for (const Tensor* t : inputs) parts.push_back(elements(*t));
    for_each_index(out.shape, [&](const std::vector<int64_t>& idx) {
      std::vector<int64_t> src = idx;
      size_t k = 0;
      while (src[axis] >= inputs[k]->shape()[axis]) src[axis] -= inputs[k++]->shape()[axis];
      result.push_back(parts[k][size_t(offset_of(src, inputs[k]->shape()))]);
    });
  } else if (op == "Slice") {
    const std::vector<SliceAxis> axes = resolve_slice(a, x.shape());
    const std::vector<double> xv = elements(x);
    for_each_index(out.shape, [&](const std::vector<int64_t>& idx) {
      std::vector<int64_t> src = idx;
      for (const SliceAxis& s : axes) src[s.axis] = s.start + idx[s.axis] * s.step;
      result.push_back(xv[size_t(offset_of(src, x.shape()))]);
    });
  }
  return {build(out.dtype, out.shape, result)};
}

Graph infer_shapes(const Graph& input, const ShapeInferenceOptions& options) {
  Graph g = input;
  bind_inputs(g, options);
  std::map<std::string, ValueInfo> init_infos;
  for (const auto& [name, t] : g.initializers) init_infos[name] = info_of_tensor(t);
  std::map<std::string, Tensor> computed;  // values of small shape tensors followed through the graph

  for (const Node& n : g.nodes) {
    InferArgs a{n, {}, {}};
    std::vector<const Tensor*> values;
    for (const std::string& name : n.inputs) {
      const ValueInfo* info = nullptr;
      const Tensor* value = nullptr;
      if (!name.empty()) {
        if (auto it = g.initializers.find(name); it != g.initializers.end()) {
          info = &init_infos.at(name);
          value = &it->second;
        } else {
          info = g.info(name);
          if (auto c = computed.find(name); c != computed.end()) value = &c->second;
        }
        if (info == nullptr) {
          throw Error(fmt::format("{}: input '{}' has no recorded dtype (is it produced before this node?)",
                                  n.describe(), name));
        }
      }
      a.infos.push_back(info);
      a.values.push_back(value);
    }
    refuse_sequence_inputs(a);
    const ShapeRule rule = find_rule(n.op_type);
    if (rule == nullptr) {
      for (const std::string& o : n.outputs) {
        if (!o.empty() && (g.info(o) == nullptr || !g.info(o)->known_shape)) {
          throw Error(fmt::format("{}: operator {} has no shape inference rule", n.describe(), n.op_type));
        }
      }
      continue;
    }
    const std::vector<ValueInfo> outs = rule(a);
    if (outs.size() < n.outputs.size()) {
      throw InternalError(fmt::format("{}: the shape rule gave {} outputs for {}", n.describe(), outs.size(),
                                      n.outputs.size()));
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const std::string& name = n.outputs[k];
      if (name.empty()) continue;
      if (outs[k].known_shape) {
        // Unknown dimensions (a dynamic batch) count as 1: what is over the limit then is over it
        // for every binding.
        Shape lower = outs[k].shape;
        for (int64_t& d : lower) d = std::max<int64_t>(d, 1);
        check_tensor_size(outs[k].dtype, lower, fmt::format("{}: output '{}',", n.describe(), name));
      }
      const bool recorded = g.info(name) != nullptr;  // declared, or inferred by an earlier run
      ValueInfo& v = g.info_mut(name);
      if (recorded) check_consistent(n, name, v, outs[k]);
      const QuantParams quant = v.quant;
      v = outs[k];
      v.name = name;
      v.quant = quant;
    }
    // Follow small shape tensors by value.
    if (n.op_type == "Shape" && a.infos[0] != nullptr && fully_known(*a.infos[0])) {
      // Only the input's shape matters: never touch its (possibly large or unknown) data.
      const std::vector<int64_t>& dims = a.infos[0]->shape;
      const int64_t r = int64_t(dims.size());
      auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
      const int64_t start = clamp(n.attr_int_or("start", 0)), end = clamp(n.attr_int_or("end", r));
      std::vector<int64_t> picked;
      for (int64_t i = start; i < end; ++i) picked.push_back(dims[size_t(i)]);
      computed[n.outputs[0]] = Tensor::from_int64(DType::kInt64, {int64_t(picked.size())}, picked);
      continue;
    }
    if (is_shape_arith_op(n.op_type) && n.op_type != "Shape") {
      bool all_known = !a.values.empty();
      for (size_t i = 0; i < n.inputs.size(); ++i) all_known = all_known && (n.inputs[i].empty() || a.values[i] != nullptr);
      if (all_known) {
        std::vector<Tensor> r = evaluate_shape_arithmetic(n, a.values);
        if (!r.empty()) computed[n.outputs[0]] = std::move(r[0]);
      }
    } else if (options.evaluate && !is_sequence_operator(n.op_type) && small_known_inputs(n, a.values)) {
      // (Sequence operators are not evaluated: only tensors are followed by value.)
      bool small_outputs = true;
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        small_outputs = small_outputs && (n.outputs[k].empty() ||
                                          (fully_known(outs[k]) && num_elements(outs[k].shape) <= kMaxArithElements));
      }
      if (!small_outputs) continue;
      std::vector<Tensor> r = options.evaluate(n, a.values, g.opset);
      for (size_t k = 0; k < r.size() && k < n.outputs.size(); ++k) {
        if (!n.outputs[k].empty()) computed[n.outputs[k]] = std::move(r[k]);
      }
    }
  }
  return g;
}

}  // namespace tauvta::graph
