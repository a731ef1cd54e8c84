// Operators that only change a tensor's shape or dtype, or produce constants: Flatten, Reshape,
// Squeeze, Unsqueeze, Identity, Dropout (inference), Shape, Cast, Constant. All dtypes.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "cpu/op_registry.h"

namespace tauvta::cpu {

namespace {

// ONNX TensorProto.DataType codes (the Cast 'to' attribute).
DType dtype_from_onnx(const OpArgs& a, int64_t code) {
  switch (code) {
    case 1: return DType::kFloat32;
    case 2: return DType::kUInt8;
    case 3: return DType::kInt8;
    case 5: return DType::kInt16;
    case 6: return DType::kInt32;
    case 7: return DType::kInt64;
    case 9: return DType::kBool;
    case 11: return DType::kFloat64;
    default: break;
  }
  static const char* names[] = {"UNDEFINED", "FLOAT",  "UINT8",  "INT8",      "UINT16",     "INT16",
                                "INT32",     "INT64",  "STRING", "BOOL",      "FLOAT16",    "DOUBLE",
                                "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};
  const std::string name = code >= 0 && code < 17 ? names[code] : "unknown";
  a.fail(fmt::format("attribute 'to' = {} ({}) is not a supported dtype (float32, float64, int8, "
                     "uint8, int16, int32, int64, bool)",
                     code, name));
}

Tensor with_shape(const Tensor& x, Shape s) { return x.reshaped(std::move(s)); }

}  // namespace

// A tensor, or (Identity-14) a sequence of tensors, passed through.
std::vector<Value> op_Identity(const OpArgs& a) {
  if (const TensorSequence* s = a.opt_sequence(0)) return values(TensorSequence(*s));
  return values(Tensor(a.in(0)));
}

std::vector<Tensor> op_Flatten(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const int64_t axis = normalize_axis(a, a.node.attr_int_or("axis", 1), x.rank(), "axis", true);
  return outputs(with_shape(x, {product(x.shape(), 0, size_t(axis)), product(x.shape(), size_t(axis), x.shape().size())}));
}

std::vector<Tensor> op_Reshape(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const std::optional<std::vector<int64_t>> spec = a.ints_attr_or_input("shape", 1);
  if (!spec) a.fail("needs a target shape (input 1)");
  const bool allowzero = a.node.attr_int_or("allowzero", 0) != 0;
  Shape out(spec->size());
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < spec->size(); ++i) {
    const int64_t d = (*spec)[i];
    if (d == -1) {
      if (infer >= 0) a.fail(fmt::format("shape {} has more than one -1", dims_string(*spec)));
      infer = int64_t(i);
      continue;
    }
    if (d < -1) a.fail(fmt::format("shape {} has a negative dimension", dims_string(*spec)));
    if (d == 0 && !allowzero) {
      if (i >= x.shape().size()) {
        a.fail(fmt::format("shape {} copies dimension {} (0) but the input {} has rank {}", dims_string(*spec),
                           i, graph::shape_string(x.shape()), x.rank()));
      }
      out[i] = x.shape()[i];
    } else {
      out[i] = d;
    }
    known *= out[i];
  }
  if (infer >= 0) {
    if (known == 0 || x.size() % known != 0) {
      a.fail(fmt::format("cannot reshape {} to {}", graph::shape_string(x.shape()), dims_string(*spec)));
    }
    out[size_t(infer)] = x.size() / known;
  }
  if (graph::num_elements(out) != x.size()) {
    a.fail(fmt::format("cannot reshape {} ({} elements) to {} (resolved {})", graph::shape_string(x.shape()),
                       x.size(), dims_string(*spec), graph::shape_string(out)));
  }
  return outputs(with_shape(x, out));
}

std::vector<Tensor> op_Squeeze(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const std::optional<std::vector<int64_t>> axes = a.ints_attr_or_input("axes", 1);
  std::set<int64_t> drop;
  if (axes) {
    for (int64_t ax : *axes) {
      const int64_t n = normalize_axis(a, ax, x.rank(), "axes entry");
      if (x.shape()[size_t(n)] != 1) {
        a.fail(fmt::format("cannot squeeze axis {} of shape {} (size {} is not 1)", ax,
                           graph::shape_string(x.shape()), x.shape()[size_t(n)]));
      }
      drop.insert(n);
    }
  } else {
    for (int64_t i = 0; i < x.rank(); ++i) {
      if (x.shape()[size_t(i)] == 1) drop.insert(i);
    }
  }
  Shape out;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (!drop.count(i)) out.push_back(x.shape()[size_t(i)]);
  }
  return outputs(with_shape(x, out));
}

std::vector<Tensor> op_Unsqueeze(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const std::optional<std::vector<int64_t>> axes = a.ints_attr_or_input("axes", 1);
  if (!axes) a.fail("needs 'axes' (attribute before opset 13, input 1 from opset 13)");
  const int64_t r = x.rank() + int64_t(axes->size());
  std::set<int64_t> insert;
  for (int64_t ax : *axes) {
    if (!insert.insert(normalize_axis(a, ax, r, "axes entry")).second) {
      a.fail(fmt::format("axes {} repeat an axis", dims_string(*axes)));
    }
  }
  Shape out;
  size_t src = 0;
  for (int64_t i = 0; i < r; ++i) out.push_back(insert.count(i) ? 1 : x.shape()[src++]);
  return outputs(with_shape(x, out));
}

std::vector<Tensor> op_Dropout(const OpArgs& a) {
  const Tensor& x = a.in(0);
  // Opset >= 12: ratio and training_mode are inputs; before, ratio is an attribute and the op is
  // always inference in an exported model.
  double ratio = 0.5;
  if (const std::optional<double> r = a.scalar_attr_or_input("ratio", 1)) ratio = *r;
  bool training = false;
  if (const Tensor* t = a.opt(2)) {
    if (t->size() != 1) a.fail("training_mode (input 2) must hold one value");
    training = t->to_int64()[0] != 0;
  }
  if (training && ratio != 0.0) {
    a.fail(fmt::format("training_mode is true with ratio {}: training-mode Dropout is random and not "
                       "supported (inference, or ratio 0, only)",
                       ratio));
  }
  std::vector<Tensor> out = outputs(Tensor(x));
  if (a.node.outputs.size() > 1 && !a.node.outputs[1].empty()) {
    Tensor mask(DType::kBool, x.shape());
    std::fill(mask.raw(), mask.raw() + mask.byte_size(), uint8_t(1));
    out.push_back(std::move(mask));
  }
  return out;
}

std::vector<Tensor> op_Shape(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const int64_t r = x.rank();
  auto clamp = [r](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t(0), r); };
  const int64_t start = clamp(a.node.attr_int_or("start", 0));
  const int64_t end = clamp(a.node.attr_int_or("end", r));
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(x.shape()[size_t(i)]);
  const int64_t n = int64_t(dims.size());
  return outputs(Tensor::from_int64(DType::kInt64, {n}, dims));
}

std::vector<Tensor> op_Cast(const OpArgs& a) {
  const DType to = dtype_from_onnx(a, a.node.attr_int("to"));
  return outputs(a.in(0).cast(to));
}

std::vector<Tensor> op_Constant(const OpArgs& a) {
  const Node& n = a.node;
  if (n.has_attr("value")) return outputs(Tensor(n.attr_tensor("value")));
  if (n.has_attr("value_float")) return outputs(Tensor::scalar_float(n.attr_float("value_float")));
  if (n.has_attr("value_floats")) {
    const std::vector<float> v = n.attr_floats_or("value_floats", {});
    return outputs(Tensor::from_floats({int64_t(v.size())}, v));
  }
  if (n.has_attr("value_int")) return outputs(Tensor::from_int64(DType::kInt64, {}, {n.attr_int("value_int")}));
  if (n.has_attr("value_ints")) {
    const std::vector<int64_t> v = n.attr_ints("value_ints");
    return outputs(Tensor::from_int64(DType::kInt64, {int64_t(v.size())}, v));
  }
  a.fail("has none of the supported value attributes (value, value_float(s), value_int(s))");
}

}  // namespace tauvta::cpu
