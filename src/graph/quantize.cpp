// The quantization pass: walks the float graph in order and emits the integer graph. Integer
// values keep their float names (so per-layer errors can be matched by name) except graph
// outputs, which stay float and are produced by a final Dequantize.
#include "graph/quantize.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/onnx_ops.h"
#include "graph/quantize_builder.h"

namespace tauvta::graph {

namespace {

using detail::QuantBuilder;

bool one_of(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (s == n) return true;
  }
  return false;
}

// Data-movement operators: they run unchanged on integers (exactly) and keep the input's format.
// Their inputs after the first must be constants.
bool is_pass_through(const Graph& g, const Node& n) {
  if (one_of(n.op_type, {"Flatten", "Reshape", "Transpose", "Identity", "Squeeze", "Unsqueeze",
                         "GlobalMaxPool"})) {
    return n.outputs.size() == 1;
  }
  if (n.op_type == "Dropout" && n.inputs.size() > 1) return false;  // run-time training_mode
  if (n.op_type == "MaxPool" || n.op_type == "Dropout") {
    // A used indices / mask output needs the float operator (quantization can create ties that
    // move a maximum's index).
    for (size_t k = 1; k < n.outputs.size(); ++k) {
      if (!n.outputs[k].empty() && (!g.consumers(n.outputs[k]).empty() ||
                                    std::count(g.outputs.begin(), g.outputs.end(), n.outputs[k]))) {
        return false;
      }
    }
    return true;
  }
  if (n.op_type == "Pad") {
    const std::string mode = n.attr_string_or("mode", "constant");
    if (mode != "constant") return true;
    // Constant padding is exact only with the value 0 (which is 0 in every format).
    if (n.has_attr("value") && n.attr_float("value") != 0.0f) return false;
    const std::string& v = n.input(2);
    if (!v.empty()) {
      if (!g.is_initializer(v)) return false;
      for (float x : g.initializers.at(v).to_float()) {
        if (x != 0.0f) return false;
      }
    }
    return true;
  }
  if (n.op_type == "Resize" || n.op_type == "Upsample") {
    // Nearest only selects input elements: exact on integers. Linear and cubic interpolation
    // compute new values, and tf_crop_and_resize writes extrapolation_value (a float).
    return n.attr_string_or("mode", "nearest") == "nearest" &&
           n.attr_string_or("coordinate_transformation_mode", "") != "tf_crop_and_resize";
  }
  return false;
}

// Only float values are quantized; integer and boolean ones (shapes, indices, masks) stay.
bool produces_float(const Graph& g, const Node& n) {
  for (const std::string& o : n.outputs) {
    if (o.empty()) continue;
    const ValueInfo* v = g.info(o);
    return v == nullptr || v->dtype == DType::kFloat32 || v->dtype == DType::kFloat64;
  }
  return false;
}

// Why a node that is not an integer operator stays float (QuantizeResult::cpu_fallbacks).
std::string fallback_reason(const Node& n) {
  const std::string kernel = "float kernel between Dequantize and Quantize";
  const std::string why = float_fallback_why(n);
  return why.empty() ? kernel : why + ": " + kernel;
}

bool constant_inputs_after_first(const Graph& g, const Node& n) {
  for (size_t k = 1; k < n.inputs.size(); ++k) {
    if (!n.inputs[k].empty() && !g.is_initializer(n.inputs[k])) return false;
  }
  return true;
}

}  // namespace

std::string float_fallback_why(const Node& n) {
  const std::string& op = n.op_type;
  if (is_sequence_operator(op)) return "a sequence operator (sequences of tensors have no fixed-point form)";
  if ((op == "Resize" || op == "Upsample") && n.attr_string_or("mode", "nearest") != "nearest") {
    return fmt::format("mode '{}' interpolates new values", n.attr_string_or("mode", ""));
  }
  if (op == "Resize" && n.attr_string_or("coordinate_transformation_mode", "") == "tf_crop_and_resize") {
    return "tf_crop_and_resize (roi, extrapolation_value)";
  }
  if (op == "BatchNormalization" && (n.attr_int_or("training_mode", 0) != 0 || n.outputs.size() > 1)) {
    return "training_mode = 1 (batch statistics, running mean and variance)";
  }
  if (op == "MaxPool" && n.outputs.size() > 1 && !n.outputs[1].empty()) {
    return fmt::format("Indices output '{}' (quantization can move a maximum's index)", n.outputs[1]);
  }
  if (op == "HardSigmoid" || op == "HardSwish") {
    const float alpha = op == "HardSwish" ? 1.0f / 6 : n.attr_float_or("alpha", 0.2f);
    return fmt::format("slope {:.6g} is not a power of two, so the tensor ALU's MIN, MAX, ADD and SHR cannot "
                       "apply it exactly{}", alpha, op == "HardSwish" ? " (nor multiply two activations)" : "");
  }
  if (one_of(op, {"Erf", "Exp", "Log", "Sqrt", "Reciprocal", "Pow", "Gelu", "Elu", "Selu", "Softplus"})) {
    return "a transcendental function (no integer form on the tensor ALU)";
  }
  if (one_of(op, {"LayerNormalization", "InstanceNormalization", "LogSoftmax", "ReduceMean", "ReduceSum", "ReduceL2",
                  "ReduceLogSumExp"})) {
    return "a reduction with a division or a transcendental step (no exact integer form here)";
  }
  if (op == "Div") return "division by a run-time value";
  if (op == "Mean") return "an average (a division by the number of inputs)";
  if (op == "Sum") return fmt::format("a sum of {} inputs (the accelerator adds two, as Add)", n.inputs.size());
  if (op == "Dropout" && n.inputs.size() > 1) return "run-time training_mode";
  if (op == "Dropout" && n.outputs.size() > 1 && !n.outputs[1].empty()) return "mask output";
  return "";
}

void refuse_sequences(const Graph& g) {
  const char* why = "the integer path (quantization, the integer reference, the accelerator) carries tensors only; "
                    "run the model on the float reference (--float)";
  for (const Node& n : g.nodes) {
    for (const auto* list : {&n.inputs, &n.outputs}) {
      for (const std::string& v : *list) {
        const ValueInfo* info = v.empty() ? nullptr : g.info(v);
        if (info == nullptr || !info->sequence) continue;
        throw Error(fmt::format("{}: {} '{}' is a sequence of tensors; {}", n.describe(),
                                list == &n.inputs ? "input" : "output", v, why));
      }
    }
    if (is_sequence_operator(n.op_type)) {
      throw Error(fmt::format("{}: {}; {}", n.describe(), float_fallback_why(n), why));
    }
  }
}

QuantizeResult quantize(const Graph& g, const CalibrationStats& stats, const QuantizeOptions& options) {
  refuse_sequences(g);
  for (int bits : {options.act_bits, options.wgt_bits}) {
    if (bits < 1 || bits > 16) {
      throw Error(fmt::format("quantize: activation and weight widths must be 1..16 bits, got {}", bits));
    }
  }
  if (options.acc_bits != 16 && options.acc_bits != 32 && options.acc_bits != 64) {
    throw Error(fmt::format("quantize: accumulator width must be 16, 32 or 64 bits, got {}",
                            options.acc_bits));
  }
  if (options.wgt_stat == CalibStatistic::kPercentile) {
    throw Error("quantize: weights take the max or mse statistic, not percentile");
  }
  QuantBuilder b(g, stats, options);
  std::set<std::string> fused;  // activation nodes folded into their producer
  for (const Node& n : g.nodes) {
    if (fused.count(n.name)) continue;
    const std::string& op = n.op_type;
    if (!produces_float(g, n)) {  // shape arithmetic left unfolded, casts, ...: unchanged
      b.float_fallback(n, "non-float values, unchanged on the CPU");
      continue;
    }
    if ((op == "Conv" || op == "ConvTranspose" || op == "Gemm") && n.inputs.size() >= 2 &&
        g.is_initializer(n.input(1)) && (n.input(2).empty() || g.is_initializer(n.input(2)))) {
      if (b.linear_layer(n, fused)) continue;
    } else if (op == "MatMul" && g.is_initializer(n.input(1)) && !g.is_initializer(n.input(0))) {
      if (b.linear_layer(n, fused)) continue;
    } else if (op == "MatMul" && !g.is_initializer(n.input(0)) && !g.is_initializer(n.input(1))) {
      b.matmul(n, fused);
      continue;
    } else if (op == "Add" || op == "Sub" || op == "Mul") {
      if (b.elementwise(n, fused)) continue;
    } else if (op == "Relu" || op == "Clip") {
      if (b.clip(n)) continue;
    } else if (op == "FakeQuant") {
      b.fake_quant(n);
      continue;
    } else if (op == "AveragePool" || op == "GlobalAveragePool") {
      if (b.average_pool(n)) continue;
    } else if (op == "Concat") {
      b.concat(n);
      continue;
    } else if (is_pass_through(g, n) && constant_inputs_after_first(g, n)) {
      b.pass_through(n);
      continue;
    }
    b.float_fallback(n, fallback_reason(n));
  }
  b.finish_outputs();
  b.check_formats_used();
  return b.take_result();
}

bool is_quantized_op(const std::string& op_type) {
  return one_of(op_type, {"QConv", "QConvTranspose", "QGemm", "QMatMul", "QAdd", "QSub", "QMul",
                          "QClip", "QAveragePool", "QGlobalAveragePool", "QConcat", "Quantize",
                          "Dequantize"});
}

std::vector<int64_t> requant_shifts(const Node& n, int64_t channels) {
  auto it = n.attrs.find("shift");
  if (it == n.attrs.end()) throw Error(fmt::format("{}: missing attribute 'shift'", n.describe()));
  if (const int64_t* s = std::get_if<int64_t>(&it->second)) return std::vector<int64_t>(size_t(channels), *s);
  const std::vector<int64_t> v = n.attr_ints("shift");
  if (int64_t(v.size()) != channels) {
    throw Error(fmt::format("{}: attribute 'shift' has {} entries for {} output channels", n.describe(),
                            v.size(), channels));
  }
  return v;
}

void verify_quantized(const Graph& g) {
  verify(g);
  for (const Node& n : g.nodes) {
    if (!is_quantized_op(n.op_type) || n.op_type == "Dequantize") continue;
    const ValueInfo* out = g.info(n.outputs.at(0));
    const int out_bits = int(n.attr_int(n.op_type == "Quantize" ? "bits" : "out_bits"));
    if (out_bits < 1 || out_bits > 32) {
      throw Error(fmt::format("{}: output width {} is not in 1..32", n.describe(), out_bits));
    }
    if (out == nullptr || !out->quant.quantized() || out->quant.bits != out_bits) {
      throw Error(fmt::format("{}: output '{}' is not recorded as a {}-bit quantized value",
                              n.describe(), n.outputs.at(0), out_bits));
    }
    if (n.op_type == "Quantize") continue;
    const int64_t acc_bits = n.attr_int("acc_bits");
    if (acc_bits != 16 && acc_bits != 32 && acc_bits != 64) {
      throw Error(fmt::format("{}: acc_bits {} is not 16, 32 or 64", n.describe(), acc_bits));
    }
    const int64_t lo = n.attr_int("clip_min"), hi = n.attr_int("clip_max");
    if (lo > hi) {
      throw Error(fmt::format("{}: clip_min {} is above clip_max {}", n.describe(), lo, hi));
    }
    auto check_shift = [&](int64_t s, const char* what) {
      if (s <= -acc_bits || s >= acc_bits) {
        throw Error(fmt::format("{}: {} {} is outside -{}..{} (the accumulator width)", n.describe(),
                                what, s, acc_bits - 1, acc_bits - 1));
      }
    };
    const std::string key = n.op_type == "QConcat" ? "shifts" : "shift";
    auto it = n.attrs.find(key);
    if (it == n.attrs.end()) throw Error(fmt::format("{}: missing attribute '{}'", n.describe(), key));
    if (const int64_t* s = std::get_if<int64_t>(&it->second)) {
      check_shift(*s, "shift");
    } else {
      for (int64_t v : n.attr_ints(key)) check_shift(v, "shift");
    }
  }
}

}  // namespace tauvta::graph
