// Shape rules of the layers: convolutions, pools, normalization, dense, activations, resize and
// the quantize/dequantize pair.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/error.h"
#include "graph/conv_geometry.h"
#include "graph/shape_rules.h"

namespace tauvta::graph {

void expect_float(const InferArgs& a, size_t i) {
  const ValueInfo& v = a.in(i);
  if (v.dtype != DType::kFloat32 && v.dtype != DType::kFloat64) {
    a.fail(fmt::format("input {} ('{}') is {}, expected a float tensor", i, a.node.input(i), dtype_name(v.dtype)));
  }
}

std::vector<ValueInfo> same_as_input(const InferArgs& a) {
  ValueInfo v = a.in(0);
  return {v.known_shape ? ranked(v.dtype, v.shape) : unranked(v.dtype)};
}

std::vector<ValueInfo> float_unary(const InferArgs& a) {
  expect_float(a, 0);
  return same_as_input(a);
}

namespace {

void expect_same_dtype(const InferArgs& a, size_t i, size_t j) {
  if (a.in(i).dtype != a.in(j).dtype) {
    a.fail(fmt::format("inputs {} and {} have different dtypes ({} and {})", i, j, dtype_name(a.in(i).dtype),
                       dtype_name(a.in(j).dtype)));
  }
}

// Bias of Conv / ConvTranspose: [M].
void check_bias(const InferArgs& a, int64_t channels) {
  if (!a.ranked(2)) return;
  const Shape& b = a.in(2).shape;
  if (b.size() != 1) a.fail(fmt::format("bias has shape {}, expected [{}]", shape_string(b), channels));
  expect_dim(a, b[0], channels, "bias length");
}

std::vector<ValueInfo> softmax(const InferArgs& a) {
  expect_float(a, 0);
  if (a.ranked(0)) normalize_axis(a, a.node.attr_int_or("axis", -1), int64_t(a.in(0).shape.size()), "axis");
  return same_as_input(a);
}

// InstanceNormalization: X [N, C, ...] float, scale and B [C].
std::vector<ValueInfo> instance_norm(const InferArgs& a) {
  expect_float(a, 0);
  if (a.ranked(0) && a.in(0).shape.size() < 2) {
    a.fail(fmt::format("X has shape {}, expected [N, C, ...]", shape_string(a.in(0).shape)));
  }
  return same_as_input(a);
}

std::vector<ValueInfo> clip(const InferArgs& a) {
  for (size_t i = 1; i < 3; ++i) {
    if (a.opt(i) == nullptr) continue;
    expect_same_dtype(a, 0, i);
    if (a.ranked(i) && dim_product(a.in(i).shape, 0, a.in(i).shape.size()) != 1) {
      a.fail(fmt::format("input {} ('{}') has shape {}, expected a scalar", i, a.node.input(i),
                         shape_string(a.in(i).shape)));
    }
  }
  return same_as_input(a);
}

std::vector<ValueInfo> prelu(const InferArgs& a) {
  expect_float(a, 0);
  expect_same_dtype(a, 0, 1);
  if (a.ranked(0) && a.ranked(1)) {
    const Shape out = broadcast(a, a.in(0).shape, a.in(1).shape);
    if (out.size() != a.in(0).shape.size()) {
      a.fail(fmt::format("slope shape {} does not broadcast to the input shape {}", shape_string(a.in(1).shape),
                         shape_string(a.in(0).shape)));
    }
  }
  return same_as_input(a);
}

// Dropout(x[, ratio[, training_mode]]) -> (y[, mask]): y like x, the mask bool of x's shape.
std::vector<ValueInfo> dropout(const InferArgs& a) {
  if (a.opt(1) != nullptr) {
    expect_float(a, 1);
    if (a.ranked(1) && dim_product(a.in(1).shape, 0, a.in(1).shape.size()) != 1) {
      a.fail(fmt::format("ratio '{}' has shape {}, expected a scalar", a.node.input(1), shape_string(a.in(1).shape)));
    }
  }
  if (a.opt(2) != nullptr) {
    if (a.in(2).dtype != DType::kBool) {
      a.fail(fmt::format("training_mode '{}' is {}, expected bool", a.node.input(2), dtype_name(a.in(2).dtype)));
    }
    // Both known: a training-mode Dropout with a non-zero ratio is random.
    const Tensor* t = a.value(2);
    if (t != nullptr && t->size() == 1 && t->to_int64()[0] != 0) {
      const Tensor* r = a.value(1);
      const float ratio = a.opt(1) == nullptr ? 0.5f : r != nullptr && r->size() == 1 ? r->to_float()[0] : 0.0f;
      if (ratio != 0.0f) {
        a.fail(fmt::format("training_mode is true and ratio is {}: training-mode Dropout is random (supported: "
                           "inference, or training with ratio 0)",
                           ratio));
      }
    }
  }
  std::vector<ValueInfo> out = same_as_input(a);
  if (a.node.outputs.size() > 1) {
    ValueInfo mask = out[0];
    mask.dtype = DType::kBool;
    out.push_back(mask);
  }
  return out;
}

std::vector<ValueInfo> conv(const InferArgs& a) {
  expect_float(a, 0);
  expect_same_dtype(a, 0, 1);
  if (!a.ranked(0) || !a.ranked(1)) return {unranked(a.in(0).dtype)};
  const Shape &x = a.in(0).shape, &w = a.in(1).shape;
  const WindowGeometry g = conv_geometry(a.node, x, w);
  if (w[0] >= 0 && w[0] % g.group != 0) {
    a.fail(fmt::format("{} output channels (weight {}) are not divisible by group {}", w[0], shape_string(w), g.group));
  }
  if (x[1] >= 0 && w[1] >= 0 && x[1] != w[1] * g.group) {
    a.fail(fmt::format("input has {} channels, the weight {} with group {} expects {}", x[1], shape_string(w), g.group,
                       w[1] * g.group));
  }
  check_bias(a, w[0]);
  Shape out = {x[0], w[0]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  return {ranked(a.in(0).dtype, out)};
}

std::vector<ValueInfo> conv_transpose(const InferArgs& a) {
  expect_float(a, 0);
  expect_same_dtype(a, 0, 1);
  if (!a.ranked(0) || !a.ranked(1)) return {unranked(a.in(0).dtype)};
  const Shape &x = a.in(0).shape, &w = a.in(1).shape;
  const WindowGeometry g = conv_transpose_geometry(a.node, x, w);
  if (x[1] >= 0 && w[0] >= 0 && x[1] != w[0]) {
    a.fail(fmt::format("input has {} channels, the weight {} expects {}", x[1], shape_string(w), w[0]));
  }
  if (w[0] >= 0 && w[0] % g.group != 0) {
    a.fail(fmt::format("{} input channels (weight {}) are not divisible by group {}", w[0], shape_string(w), g.group));
  }
  const int64_t m = w[1] < 0 ? -1 : w[1] * g.group;
  check_bias(a, m);
  Shape out = {x[0], m};
  out.insert(out.end(), g.output.begin(), g.output.end());
  return {ranked(a.in(0).dtype, out)};
}

// MaxPool / AveragePool; MaxPool's optional Indices output is int64 of the output's shape.
std::vector<ValueInfo> pool(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  std::vector<ValueInfo> outs;
  if (!x.known_shape) {
    outs.push_back(unranked(x.dtype));
  } else {
    const WindowGeometry g = pool_geometry(a.node, x.shape);
    Shape out = {x.shape[0], x.shape[1]};
    out.insert(out.end(), g.output.begin(), g.output.end());
    outs.push_back(ranked(x.dtype, out));
  }
  if (a.node.outputs.size() > 1) {
    ValueInfo indices = outs[0];
    indices.dtype = DType::kInt64;
    outs.push_back(indices);
  }
  return outs;
}

std::vector<ValueInfo> global_pool(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (!x.known_shape) return {unranked(x.dtype)};
  if (x.shape.size() < 3) a.fail(fmt::format("input has shape {}, expected [N, C, spatial...]", shape_string(x.shape)));
  Shape out(x.shape.size(), 1);
  out[0] = x.shape[0];
  out[1] = x.shape[1];
  return {ranked(x.dtype, out)};
}

// BatchNormalization; with training_mode = 1 the optional outputs 1 and 2 are the updated running
// mean and variance: [C], of the dtype of input 3 (mean).
std::vector<ValueInfo> batch_norm(const InferArgs& a) {
  expect_float(a, 0);
  const ValueInfo& x = a.in(0);
  if (x.known_shape && x.shape.size() < 2) a.fail(fmt::format("input has shape {}, expected [N, C, ...]", shape_string(x.shape)));
  int64_t c = x.known_shape ? x.shape[1] : -1;
  static const char* names[] = {"", "scale", "B", "mean", "var"};
  for (size_t i = 1; i < 5; ++i) {
    if (a.opt(i) != nullptr) expect_float(a, i);
    if (!a.ranked(i)) continue;
    const Shape& p = a.in(i).shape;
    if (p.size() != 1) a.fail(fmt::format("{} has shape {}, expected [{}]", names[i], shape_string(p), c));
    expect_dim(a, p[0], c, fmt::format("length of {}", names[i]));
    if (c < 0) c = p[0];
  }
  const bool training = a.node.attr_int_or("training_mode", 0) != 0;
  if (!training && a.node.outputs.size() > 1) {
    a.fail("outputs running_mean and running_var need training_mode = 1");
  }
  std::vector<ValueInfo> out = same_as_input(a);
  const DType stat = a.opt(3) != nullptr ? a.in(3).dtype : x.dtype;
  for (size_t i = 1; i < a.node.outputs.size() && i < 3; ++i) out.push_back(ranked(stat, {c}));
  return out;
}

std::vector<ValueInfo> gemm(const InferArgs& a) {
  expect_same_dtype(a, 0, 1);
  const DType t = a.in(0).dtype;
  if (!a.ranked(0) || !a.ranked(1)) return {ranked(t, {-1, -1})};
  const Shape &sa = a.in(0).shape, &sb = a.in(1).shape;
  if (sa.size() != 2 || sb.size() != 2) {
    a.fail(fmt::format("inputs have shapes {} and {}, expected two matrices", shape_string(sa), shape_string(sb)));
  }
  const bool ta = a.node.attr_int_or("transA", 0) != 0, tb = a.node.attr_int_or("transB", 0) != 0;
  const int64_t m = ta ? sa[1] : sa[0], ka = ta ? sa[0] : sa[1];
  const int64_t kb = tb ? sb[1] : sb[0], n = tb ? sb[0] : sb[1];
  if (ka >= 0 && kb >= 0 && ka != kb) {
    a.fail(fmt::format("A {}{} and B {}{} have different inner dimensions ({} and {})", shape_string(sa),
                       ta ? " (transposed)" : "", shape_string(sb), tb ? " (transposed)" : "", ka, kb));
  }
  const Shape out = {m, n};
  if (a.ranked(2)) {
    const Shape& c = a.in(2).shape;
    if (c.size() > 2 || broadcast(a, out, c).size() != 2) {
      a.fail(fmt::format("C has shape {}, which does not broadcast to [{},{}]", shape_string(c), m, n));
    }
    for (size_t i = 0; i < c.size(); ++i) {
      const int64_t d = c[i], o = out[2 - c.size() + i];
      if (d >= 0 && o >= 0 && d != 1 && d != o) {
        a.fail(fmt::format("C has shape {}, which does not broadcast to {}", shape_string(c), shape_string(out)));
      }
    }
  }
  return {ranked(t, out)};
}

std::vector<ValueInfo> matmul(const InferArgs& a) {
  expect_same_dtype(a, 0, 1);
  const DType t = a.in(0).dtype;
  if (!a.ranked(0) || !a.ranked(1)) return {unranked(t)};
  Shape x = a.in(0).shape, y = a.in(1).shape;
  if (x.empty() || y.empty()) a.fail("inputs must have rank 1 or more");
  const bool x_vec = x.size() == 1, y_vec = y.size() == 1;
  if (x_vec) x.insert(x.begin(), 1);
  if (y_vec) y.push_back(1);
  const int64_t kx = x.back(), ky = y[y.size() - 2];
  if (kx >= 0 && ky >= 0 && kx != ky) {
    a.fail(fmt::format("shapes {} and {} have different inner dimensions ({} and {})", shape_string(a.in(0).shape),
                       shape_string(a.in(1).shape), kx, ky));
  }
  Shape out = broadcast(a, Shape(x.begin(), x.end() - 2), Shape(y.begin(), y.end() - 2));
  if (!x_vec) out.push_back(x[x.size() - 2]);
  if (!y_vec) out.push_back(y.back());
  return {ranked(t, out)};
}

// Resize(x, roi, scales, sizes) in the frontend's form (Resize-11+): output dims are sizes, or
// floor(in * scale). Linear and cubic interpolation need float data; roi (tf_crop_and_resize)
// holds a start and an end per axis.
std::vector<ValueInfo> resize(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  const std::string mode = a.node.attr_string_or("mode", "nearest");
  if (mode != "nearest") expect_float(a, 0);
  if (!x.known_shape) return {unranked(x.dtype)};
  const size_t r = x.shape.size();
  if (a.node.attr_string_or("coordinate_transformation_mode", "") == "tf_crop_and_resize") {
    if (a.opt(1) == nullptr) a.fail("coordinate_transformation_mode 'tf_crop_and_resize' needs input 1 (roi)");
    expect_float(a, 1);
    if (a.ranked(1)) {
      const Shape& roi = a.in(1).shape;
      if (roi.size() != 1) a.fail(fmt::format("roi has shape {}, expected [{}]", shape_string(roi), 2 * r));
      expect_dim(a, roi[0], int64_t(2 * r), fmt::format("length of roi (a start and an end per axis of rank {})", r));
    }
  }
  Shape out(r, -1);
  if (a.opt(3) != nullptr) {  // sizes
    if (std::optional<std::vector<int64_t>> sizes = a.ints(3)) {
      if (sizes->size() != r) a.fail(fmt::format("sizes has {} values, the input has rank {}", sizes->size(), r));
      for (int64_t d : *sizes) {
        if (d < 0) a.fail(fmt::format("sizes {} has a negative entry", shape_string(*sizes)));
      }
      out = *sizes;
    }
  } else if (a.value(2) != nullptr) {
    const std::vector<float> scales = a.value(2)->to_float();
    if (scales.size() != r) a.fail(fmt::format("scales has {} values, the input has rank {}", scales.size(), r));
    for (size_t i = 0; i < r; ++i) {
      if (!(scales[i] > 0.0f)) a.fail(fmt::format("scale {} is {}, expected a positive number", i, scales[i]));
      if (x.shape[i] >= 0) out[i] = int64_t(std::floor(double(x.shape[i]) * double(scales[i])));
    }
  }
  return {ranked(x.dtype, out)};
}

// Scale (and zero point): a scalar, or 1-D along `axis` for per-axis quantization.
void check_quant_operand(const InferArgs& a, size_t i, const Shape& x) {
  if (!a.ranked(i)) return;
  const Shape& s = a.in(i).shape;
  if (s.empty() || (s.size() == 1 && s[0] == 1)) return;
  if (s.size() != 1) a.fail(fmt::format("input {} has shape {}, expected a scalar or a 1-D tensor", i, shape_string(s)));
  if (x.empty()) return;
  const int64_t axis = normalize_axis(a, a.node.attr_int_or("axis", 1), int64_t(x.size()), "axis");
  expect_dim(a, s[0], x[size_t(axis)], fmt::format("length of input {} (per-axis along axis {})", i, axis));
}

std::vector<ValueInfo> quantize_linear(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  DType out = DType::kUInt8;
  if (a.opt(2) != nullptr) {
    out = a.in(2).dtype;
    if (out != DType::kUInt8 && out != DType::kInt8) {
      a.fail(fmt::format("zero point is {}, expected uint8 or int8", dtype_name(out)));
    }
  }
  if (x.known_shape) {
    check_quant_operand(a, 1, x.shape);
    check_quant_operand(a, 2, x.shape);
  }
  return {x.known_shape ? ranked(out, x.shape) : unranked(out)};
}

std::vector<ValueInfo> dequantize_linear(const InferArgs& a) {
  const ValueInfo& x = a.in(0);
  if (x.known_shape) {
    check_quant_operand(a, 1, x.shape);
    check_quant_operand(a, 2, x.shape);
  }
  return {x.known_shape ? ranked(DType::kFloat32, x.shape) : unranked(DType::kFloat32)};
}

}  // namespace

ShapeRule find_nn_rule(const std::string& op) {
  static const std::map<std::string, ShapeRule> rules = {
      {"AveragePool", pool},
      {"BatchNormalization", batch_norm},
      {"Clip", clip},
      {"Conv", conv},
      {"ConvTranspose", conv_transpose},
      {"DequantizeLinear", dequantize_linear},
      {"Dropout", dropout},
      {"Gemm", gemm},
      {"GlobalAveragePool", global_pool},
      {"GlobalMaxPool", global_pool},
      {"LeakyRelu", float_unary},
      {"Elu", float_unary},
      {"FakeQuant", float_unary},  // tauvta's imported fake quantization (graph/fake_quant.h)
      {"Quant", float_unary},  // QONNX's, as imported (inspect); the pipeline folds them into FakeQuant
      {"BipolarQuant", float_unary},
      {"Selu", float_unary},
      {"Softplus", float_unary},
      {"Sign", same_as_input},
      {"Shrink", same_as_input},
      {"LogSoftmax", softmax},
      {"InstanceNormalization", instance_norm},
      {"MatMul", matmul},
      {"MaxPool", pool},
      {"PRelu", prelu},
      {"QuantizeLinear", quantize_linear},
      {"Relu", same_as_input},
      {"Resize", resize},
      {"Sigmoid", float_unary},
      {"Softmax", softmax},
      {"Tanh", float_unary},
  };
  auto it = rules.find(op);
  return it == rules.end() ? nullptr : it->second;
}

}  // namespace tauvta::graph
