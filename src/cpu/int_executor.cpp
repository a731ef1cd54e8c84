#include "cpu/int_executor.h"

#include <fmt/format.h>

#include "common/error.h"
#include "cpu/int_ops.h"
#include "graph/quantize.h"

namespace tauvta::cpu {

using graph::DType;
using graph::Node;
using graph::Tensor;

namespace {

// Operators that only move or select values: on integer tensors they run through the float
// kernels, which is exact because every integer activation has at most 16 bits (float32 holds
// integers up to 2^24 exactly).
bool is_data_movement(const std::string& op) {
  for (const char* s : {"Flatten", "Reshape", "Transpose", "Identity", "Squeeze", "Unsqueeze", "MaxPool",
                        "GlobalMaxPool", "Dropout", "Pad", "Resize", "Upsample"}) {
    if (op == s) return true;
  }
  return false;
}

std::vector<Tensor> run_data_movement(const Node& n, const IntInputs& in, int64_t opset) {
  if (in.empty() || in[0] == nullptr || !graph::dtype_is_integer(in[0]->dtype())) {
    return eval_float_node(n, in, opset);
  }
  const Tensor& x = *in[0];
  for (int64_t v : x.to_int64()) {
    if (v < -(int64_t(1) << 24) || v > (int64_t(1) << 24)) {
      throw Error(fmt::format("{}: integer value {} does not pass exactly through a float kernel",
                              n.describe(), v));
    }
  }
  const Tensor xf = x.cast(DType::kFloat32);
  IntInputs args = in;
  args[0] = &xf;
  std::vector<Tensor> outs = eval_float_node(n, args, opset);
  if (outs.empty()) throw InternalError(fmt::format("{}: no output", n.describe()));
  std::vector<Tensor> result;
  result.push_back(outs[0].cast(DType::kInt32));
  return result;
}

}  // namespace

bool int_op_supported(const std::string& op_type) {
  return graph::is_quantized_op(op_type) || is_data_movement(op_type);
}

IntExecutor::IntExecutor(const graph::Graph& g, IntRunOptions options) : g_(g), options_(options) {
  std::map<std::string, size_t> last_use;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    plans_.push_back(plan_int_node(n, g, options_));
    if (!int_op_supported(n.op_type) && !float_op_supported(n.op_type)) {
      throw Error(fmt::format("{}: the integer executor has no kernel for this operator (and no float "
                              "fallback)", n.describe()));
    }
    for (const std::string& v : n.inputs) {
      if (!v.empty() && !g.is_initializer(v)) last_use[v] = i;
    }
  }
  for (const std::string& o : g.outputs) last_use.erase(o);
  release_after_.resize(g.nodes.size());
  for (const auto& [v, i] : last_use) release_after_[i].push_back(v);
}

IntExecutor::~IntExecutor() = default;

TensorMap IntExecutor::run(const TensorMap& inputs, const NodeObserver& observer) const {
  std::map<std::string, Tensor> produced;
  for (const std::string& i : g_.inputs) {
    if (!inputs.count(i)) throw Error(fmt::format("graph '{}': input '{}' was not given", g_.name, i));
  }
  auto lookup = [&](const Node& n, const std::string& v) -> const Tensor* {
    if (v.empty()) return nullptr;
    if (auto it = produced.find(v); it != produced.end()) return &it->second;
    if (auto it = inputs.find(v); it != inputs.end()) return &it->second;
    if (auto it = g_.initializers.find(v); it != g_.initializers.end()) return &it->second;
    throw Error(fmt::format("{}: input '{}' has no value", n.describe(), v));
  };
  for (size_t idx = 0; idx < g_.nodes.size(); ++idx) {
    const Node& n = g_.nodes[idx];
    IntInputs in;
    for (const std::string& v : n.inputs) in.push_back(lookup(n, v));
    const IntNodePlan* plan = plans_[idx].get();
    const std::string& op = n.op_type;
    std::vector<Tensor> outs;
    if (op == "QConv") {
      outs.push_back(run_qconv(n, in, *plan, options_));
    } else if (op == "QConvTranspose") {
      outs.push_back(run_qconv_transpose(n, in, *plan, options_));
    } else if (op == "QGemm") {
      outs.push_back(run_qgemm(n, in, *plan, options_));
    } else if (op == "QMatMul") {
      outs.push_back(run_qmatmul(n, in));
    } else if (op == "QAdd" || op == "QSub" || op == "QMul") {
      outs.push_back(run_qbinary(n, in));
    } else if (op == "QClip") {
      outs.push_back(run_qclip(n, in));
    } else if (op == "QAveragePool" || op == "QGlobalAveragePool") {
      outs.push_back(run_qaverage_pool(n, in));
    } else if (op == "QConcat") {
      outs.push_back(run_qconcat(n, in));
    } else if (op == "Quantize") {
      outs.push_back(run_quantize(n, in));
    } else if (op == "Dequantize") {
      outs.push_back(run_dequantize(n, in));
    } else if (is_data_movement(op)) {
      outs = run_data_movement(n, in, g_.opset);
    } else {
      outs = eval_float_node(n, in, g_.opset);  // a float fallback
    }
    std::vector<const Tensor*> seen;
    for (size_t k = 0; k < n.outputs.size() && k < outs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      Tensor& t = produced[n.outputs[k]];
      t = std::move(outs[k]);
      seen.push_back(&t);
    }
    if (observer) observer(n, seen);
    for (const std::string& v : release_after_[idx]) produced.erase(v);
  }
  TensorMap result;
  for (const std::string& o : g_.outputs) {
    if (auto it = produced.find(o); it != produced.end()) {
      result[o] = it->second;
    } else if (auto in_it = inputs.find(o); in_it != inputs.end()) {
      result[o] = in_it->second;
    } else if (auto init = g_.initializers.find(o); init != g_.initializers.end()) {
      result[o] = init->second;
    } else {
      throw Error(fmt::format("graph '{}': output '{}' was not produced", g_.name, o));
    }
  }
  return result;
}

TensorMap run_int(const graph::Graph& g, const TensorMap& inputs, const NodeObserver& observer,
                  const IntRunOptions& options) {
  return IntExecutor(g, options).run(inputs, observer);
}

}  // namespace tauvta::cpu
