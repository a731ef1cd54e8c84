// ONNX's affine quantization operators, per tensor or per axis: QuantizeLinear (round half to
// even, saturate to uint8/int8) and DequantizeLinear ((x - zero_point) * scale).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cpu/op_registry.h"
#include "graph/fake_quant.h"

namespace tauvta::cpu {

namespace {

// The axis each element's scale and zero point come from: per tensor (one value) or per axis.
struct QuantAxis {
  int64_t count = 1;   // scale entries
  int64_t inner = 1;   // elements per scale step
};

QuantAxis quant_axis(const OpArgs& a, const Tensor& x, const Tensor& scale, const Tensor* zp) {
  if (zp && zp->shape() != scale.shape()) {
    a.fail(fmt::format("zero point shape {} differs from scale shape {}", graph::shape_string(zp->shape()),
                       graph::shape_string(scale.shape())));
  }
  QuantAxis q;
  if (scale.size() == 1) return q;  // per tensor (a one-element axis is the same thing)
  if (scale.rank() != 1) a.fail(fmt::format("scale must be a scalar or 1-D, got {}", graph::shape_string(scale.shape())));
  const int64_t axis = normalize_axis(a, a.node.attr_int_or("axis", 1), x.rank());
  if (x.shape()[size_t(axis)] != scale.size()) {
    a.fail(fmt::format("{} scales for axis {} of size {} (input {})", scale.size(), axis, x.shape()[size_t(axis)],
                       graph::shape_string(x.shape())));
  }
  q.count = scale.size();
  q.inner = product(x.shape(), size_t(axis + 1), x.shape().size());
  return q;
}

}  // namespace

std::vector<Tensor> op_QuantizeLinear(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const Tensor& scale = a.in(1);
  const Tensor* zp = a.opt(2);
  const DType out_t = zp ? zp->dtype() : DType::kUInt8;
  if (out_t != DType::kUInt8 && out_t != DType::kInt8) {
    a.fail(fmt::format("zero point dtype {} is not uint8 or int8", graph::dtype_name(out_t)));
  }
  const QuantAxis q = quant_axis(a, x, scale, zp);
  const std::vector<float> xs = x.to_float(), ss = scale.to_float();
  const std::vector<int64_t> zs = zp ? zp->to_int64() : std::vector<int64_t>(ss.size(), 0);
  const float lo = out_t == DType::kUInt8 ? 0.0f : -128.0f, hi = out_t == DType::kUInt8 ? 255.0f : 127.0f;
  std::vector<int64_t> out(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const size_t c = q.count == 1 ? 0 : size_t((int64_t(i) / q.inner) % q.count);
    const float v = std::nearbyint(xs[i] / ss[c]) + float(zs[c]);  // ties to even (default rounding)
    out[i] = int64_t(std::clamp(v, lo, hi));
  }
  return outputs(Tensor::from_int64(out_t, x.shape(), out));
}

std::vector<Tensor> op_DequantizeLinear(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const Tensor& scale = a.in(1);
  const Tensor* zp = a.opt(2);
  if (x.dtype() != DType::kUInt8 && x.dtype() != DType::kInt8 && x.dtype() != DType::kInt32) {
    a.fail(fmt::format("input dtype {} is not uint8, int8 or int32", graph::dtype_name(x.dtype())));
  }
  if (zp && zp->dtype() != x.dtype()) {
    a.fail(fmt::format("zero point dtype {} differs from the input dtype {}", graph::dtype_name(zp->dtype()),
                       graph::dtype_name(x.dtype())));
  }
  const QuantAxis q = quant_axis(a, x, scale, zp);
  const std::vector<int64_t> xs = x.to_int64();
  const std::vector<float> ss = scale.to_float();
  const std::vector<int64_t> zs = zp ? zp->to_int64() : std::vector<int64_t>(ss.size(), 0);
  Tensor y(DType::kFloat32, x.shape());
  float* py = y.data<float>();
  for (size_t i = 0; i < xs.size(); ++i) {
    const size_t c = q.count == 1 ? 0 : size_t((int64_t(i) / q.inner) % q.count);
    py[i] = float(xs[i] - zs[c]) * ss[c];
  }
  return outputs(std::move(y));
}

// tauvta's FakeQuant (graph/fake_quant.h): an imported QDQ / QONNX quantizer on an activation,
// run with the model's own scale so that the float model is the fake-quantized one.
std::vector<Tensor> op_FakeQuant(const OpArgs& a) {
  const Tensor& x = a.in(0);
  const graph::Node& n = a.node;
  const float scale = n.attr_float("scale");
  const int64_t zp = n.attr_int_or("zero_point", 0), lo = n.attr_int("qmin"), hi = n.attr_int("qmax");
  const bool bipolar = n.attr_int_or("bipolar", 0) != 0;
  Tensor y(DType::kFloat32, x.shape());
  const std::vector<float> xs = x.to_float();
  float* py = y.data<float>();
  for (size_t i = 0; i < xs.size(); ++i) py[i] = graph::fake_quant_value(xs[i], scale, zp, lo, hi, bipolar);
  return outputs(std::move(y));
}

}  // namespace tauvta::cpu
