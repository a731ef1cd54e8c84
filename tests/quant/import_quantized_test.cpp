// Importing quantized models (graph/fake_quant.h, docs/quantization.md "Importing quantized
// models"): tiny QDQ and QONNX graphs built here go through the model pipeline; their formats come
// from the quantization nodes (no calibration), weights land on the model's integers, the integer
// reference equals a scalar recomputation, and what tauvta cannot represent is a one-line error.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "cpu/float_executor.h"
#include "cpu/int_executor.h"
#include "graph/onnx_builder.h"
#include "model/pipeline.h"

namespace {

using namespace tauvta;
using graph::DType;
using graph::Tensor;
using graph::testing::ModelBuilder;

Tensor scalar(float v) { return Tensor::scalar_float(v); }
Tensor int8s(graph::Shape shape, std::vector<int64_t> v) { return Tensor::from_int64(DType::kInt8, shape, v); }

// x -> QL -> Clip -> DQ: the int8 zero point and Clip bounds written as the QAT tool does.
void qdq(ModelBuilder& b, const std::string& x, const std::string& y, const std::string& name, Tensor scale,
         int64_t lo, int64_t hi, int64_t axis = -1, int64_t zp = 0) {
  const std::vector<int64_t> zps(size_t(scale.size()), zp);
  b.init(name + "_s", scale).init(name + "_z", int8s(scale.shape(), zps));
  b.init(name + "_lo", int8s({}, {lo})).init(name + "_hi", int8s({}, {hi}));
  auto& q = b.node("QuantizeLinear", {x, name + "_s", name + "_z"}, {name + "_q"}, name);
  b.node("Clip", {name + "_q", name + "_lo", name + "_hi"}, {name + "_c"}, name + "_clip");
  auto& d = b.node("DequantizeLinear", {name + "_c", name + "_s", name + "_z"}, {y}, name + "_dq");
  if (axis >= 0) {
    graph::testing::attr_int(q, "axis", axis);
    graph::testing::attr_int(d, "axis", axis);
  }
}

// x [1, 4] -> (input QDQ) -> Gemm(W [2, 4] QDQ, b) -> Relu -> (output QDQ) -> y.
struct Dense {
  float in_scale = 0.125f, out_scale = 0.5f;
  Tensor w_scale = scalar(0.25f);
  int64_t in_lo = -8, in_hi = 7, w_lo = -8, w_hi = 7, out_lo = 0, out_hi = 7;
  std::vector<float> w = {0.5f, -0.25f, 1.0f, 0.75f, -1.0f, 0.25f, 0.5f, -0.5f};
  std::vector<float> bias = {0.125f, -0.0625f};
  int64_t zp = 0;

  ModelBuilder build() const {
    ModelBuilder b;
    b.input("x", {1, 4}).output("y", {1, 2});
    b.init("w", Tensor::from_floats({2, 4}, w)).init("b", Tensor::from_floats({2}, bias));
    qdq(b, "x", "xq", "q_in", scalar(in_scale), in_lo, in_hi, -1, zp);
    qdq(b, "w", "wq", "q_w", w_scale, w_lo, w_hi, w_scale.size() > 1 ? 0 : -1);
    auto& g = b.node("Gemm", {"xq", "wq", "b"}, {"h"}, "fc");
    graph::testing::attr_int(g, "transB", 1);
    b.node("Relu", {"h"}, {"r"}, "relu");
    qdq(b, "r", "y", "q_out", scalar(out_scale), out_lo, out_hi);
    return b;
  }
};

std::filesystem::path write_model(const ModelBuilder& b, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "tauvta_import_quantized_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / (name + ".onnx");
  std::ofstream(path, std::ios::binary) << b.bytes();
  return path;
}

model::LoadedModel load(const ModelBuilder& b, const std::string& name, int bits) {
  model::LoadOptions o;
  o.quantize = true;
  o.config.log_inp_width = bits == 2 ? 1 : bits == 4 ? 2 : 3;
  o.config.log_wgt_width = o.config.log_inp_width;
  return model::load_model(write_model(b, name), o);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  const graph::Node* n = g.node(name);
  if (n == nullptr) throw std::runtime_error("no node " + name);
  return *n;
}

std::string error_of(const ModelBuilder& b, const std::string& name, int bits = 4) {
  try {
    load(b, name, bits);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// The integer output of the dense layer recomputed from docs/quantization.md.
std::vector<int64_t> dense_reference(const std::vector<int64_t>& xq, const std::vector<int64_t>& wq,
                                     const std::vector<int64_t>& bq, const std::vector<int>& shifts, int64_t lo,
                                     int64_t hi) {
  std::vector<int64_t> out;
  for (size_t n = 0; n < 2; ++n) {
    int64_t acc = bq[n];
    for (size_t k = 0; k < 4; ++k) acc += xq[k] * wq[n * 4 + k];
    const int s = shifts[n];
    const int64_t v = s > 0 ? (acc + (int64_t(1) << (s - 1))) >> s : acc;
    out.push_back(std::clamp(v, lo, hi));
  }
  return out;
}

std::vector<int64_t> int_output(const model::LoadedModel& m, const std::vector<float>& x, int frac) {
  const cpu::TensorMap out = cpu::run_int(m.quant.graph, {{"x", Tensor::from_floats({1, 4}, x)}});
  std::vector<int64_t> q;
  for (float v : out.at("y").floats()) q.push_back(std::llround(std::ldexp(double(v), frac)));
  return q;
}

TEST(ImportQuantized, QdqPerTensorTakesTheModelsFormatsWithoutCalibrating) {
  const model::LoadedModel m = load(Dense{}.build(), "per_tensor", 4);
  EXPECT_EQ(m.calib_source, "none: formats from the model's quantization nodes");
  EXPECT_EQ(m.calib_samples, 0);
  const graph::Graph& q = m.quant.graph;
  const graph::Node& fc = node(q, "fc");
  EXPECT_EQ(fc.op_type, "QGemm");
  EXPECT_EQ(fc.attr_int("shift"), 3 + 2 - 1);  // f_in + f_w - f_out
  EXPECT_EQ(fc.attr_int("clip_min"), 0);
  EXPECT_EQ(fc.attr_int("clip_max"), 7);
  EXPECT_EQ(q.initializers.at(fc.input(1)).to_int64(), (std::vector<int64_t>{2, -1, 4, 3, -4, 1, 2, -2}));
  EXPECT_EQ(q.initializers.at(fc.input(2)).to_int64(), (std::vector<int64_t>{4, -2}));  // at f = 3 + 2
  EXPECT_EQ(m.quant.activation_formats.at("y"), 1);
  const std::vector<float> x = {0.5f, 0.25f, -0.375f, 0.875f};
  EXPECT_EQ(int_output(m, x, 1), dense_reference({4, 2, -3, 7}, {2, -1, 4, 3, -4, 1, 2, -2}, {4, -2}, {4, 4}, 0, 7));
}

TEST(ImportQuantized, PerChannelWeightsGetPerChannelShifts) {
  Dense d;
  d.w_scale = Tensor::from_floats({2}, {0.25f, 0.125f});
  const model::LoadedModel m = load(d.build(), "per_channel", 4);
  const graph::Node& fc = node(m.quant.graph, "fc");
  EXPECT_EQ(fc.attr_ints("shift"), (std::vector<int64_t>{4, 5}));
  // channel 1 at 2^-3: -1.0 -> -8, 0.25 -> 2, 0.5 -> 4, -0.5 -> -4
  EXPECT_EQ(m.quant.graph.initializers.at(fc.input(1)).to_int64(),
            (std::vector<int64_t>{2, -1, 4, 3, -8, 2, 4, -4}));
  const std::vector<float> x = {0.5f, 0.25f, -0.375f, 0.875f};
  EXPECT_EQ(int_output(m, x, 1),
            dense_reference({4, 2, -3, 7}, {2, -1, 4, 3, -8, 2, 4, -4}, {4, -4}, {4, 5}, 0, 7));
}

TEST(ImportQuantized, WeightsStoredAsIntegersWithADequantizeLinear) {
  // Exporters fold a weight's QuantizeLinear (and Clip) into an int8 constant.
  Dense d;
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 2});
  b.init("wi", int8s({2, 4}, {2, -1, 4, 3, -4, 1, 2, -2})).init("ws", scalar(0.25f)).init("wz", int8s({}, {0}));
  b.init("b", Tensor::from_floats({2}, d.bias));
  qdq(b, "x", "xq", "q_in", scalar(d.in_scale), -8, 7);
  b.node("DequantizeLinear", {"wi", "ws", "wz"}, {"wq"}, "w_dq");
  auto& g = b.node("Gemm", {"xq", "wq", "b"}, {"h"}, "fc");
  graph::testing::attr_int(g, "transB", 1);
  b.node("Relu", {"h"}, {"r"}, "relu");
  qdq(b, "r", "y", "q_out", scalar(d.out_scale), 0, 7);
  const model::LoadedModel m = load(b, "int_weights", 4);
  EXPECT_EQ(m.calib_samples, 0);
  ASSERT_EQ(m.weight_formats.count("wq"), 1u);  // a weight format, not a FakeQuant on a constant
  EXPECT_EQ(m.weight_formats.at("wq").frac_bits, std::vector<int>{2});
  EXPECT_EQ(m.weight_formats.at("wq").node, "node 'w_dq' (DequantizeLinear)");
  const graph::Node& fc = node(m.quant.graph, "fc");
  EXPECT_EQ(fc.op_type, "QGemm");
  EXPECT_EQ(fc.attr_int("shift"), 4);
  EXPECT_EQ(m.quant.graph.initializers.at(fc.input(1)).to_int64(), (std::vector<int64_t>{2, -1, 4, 3, -4, 1, 2, -2}));
}

TEST(ImportQuantized, ClipOnTheIntegerGivesTheWidthAt4And2Bits) {
  Dense d;
  d.in_lo = -2, d.in_hi = 1, d.w_lo = -2, d.w_hi = 1, d.out_lo = 0, d.out_hi = 1;
  d.w = {0.25f, -0.5f, 0.25f, 0.0f, -0.25f, 0.25f, 0.0f, -0.5f};
  for (int bits : {2, 4}) {
    const model::LoadedModel m = load(d.build(), "two_bit_" + std::to_string(bits), bits);
    const graph::Node& fc = node(m.quant.graph, "fc");
    EXPECT_EQ(fc.attr_int("clip_max"), 1) << bits;  // the Clip's bound, also in a 4-bit format
    EXPECT_EQ(m.quant.graph.initializers.at(fc.input(1)).to_int64(),
              (std::vector<int64_t>{1, -2, 1, 0, -1, 1, 0, -2}));
    // the input's Clip [-2, 1] narrower than a 4-bit format: a QClip; at 2 bits nothing to do
    EXPECT_EQ(m.quant.graph.node("q_in") != nullptr, bits == 4) << bits;
    const std::vector<float> x = {0.125f, -0.25f, 0.5f, 0.0f};  // 1, -2, 4 -> clipped to 1, 0
    EXPECT_EQ(int_output(m, x, 1),
              dense_reference({1, -2, 1, 0}, {1, -2, 1, 0, -1, 1, 0, -2}, {4, -2}, {4, 4}, 0, 1));
  }
}

TEST(ImportQuantized, QonnxQuantAndBipolarQuant) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 2});
  b.init("w", Tensor::from_floats({2, 4}, {0.3f, -0.2f, 0.1f, 0.0f, -0.4f, 0.5f, 0.2f, -0.1f}));
  b.init("b", Tensor::from_floats({2}, {0.0f, 0.0f}));
  b.init("s_in", scalar(0.125f)).init("s_out", scalar(0.5f)).init("s_w", scalar(0.25f)).init("zero", scalar(0));
  b.init("four", scalar(4)).init("three", scalar(3));
  auto domain = [](onnx::NodeProto& n) -> onnx::NodeProto& {
    n.set_domain("qonnx.custom_op.general");
    return n;
  };
  auto& qi = domain(b.node("Quant", {"x", "s_in", "zero", "four"}, {"xq"}, "quant_in"));
  graph::testing::attr_int(qi, "signed", 1);
  graph::testing::attr_int(qi, "narrow", 0);
  graph::testing::attr_string(qi, "rounding_mode", "ROUND");
  domain(b.node("BipolarQuant", {"w", "s_w"}, {"wq"}, "bipolar_w"));
  auto& g = b.node("Gemm", {"xq", "wq", "b"}, {"h"}, "fc");
  graph::testing::attr_int(g, "transB", 1);
  b.node("Relu", {"h"}, {"r"}, "relu");
  auto& qo = domain(b.node("Quant", {"r", "s_out", "zero", "three"}, {"y"}, "quant_out"));
  graph::testing::attr_int(qo, "signed", 0);  // unsigned 3 bits: [0, 7], 4 signed bits
  const model::LoadedModel m = load(b, "qonnx", 4);
  const graph::Node& fc = node(m.quant.graph, "fc");
  EXPECT_EQ(m.quant.graph.initializers.at(fc.input(1)).to_int64(), (std::vector<int64_t>{1, -1, 1, 1, -1, 1, 1, -1}));
  EXPECT_EQ(fc.attr_int("shift"), 3 + 2 - 1);
  EXPECT_EQ(fc.attr_int("clip_max"), 7);
  // The float model is the fake-quantized one: 0.3 * 8 = 2.4 -> 2 at the input, weights +-0.25.
  const cpu::TensorMap f = cpu::run_float(m.float_graph, {{"x", Tensor::from_floats({1, 4}, {0.3f, 0, 0, 0})}});
  EXPECT_EQ(std::vector<float>(f.at("y").floats().begin(), f.at("y").floats().end()), (std::vector<float>{0.0f, 0.0f}));
  const cpu::TensorMap f2 = cpu::run_float(m.float_graph, {{"x", Tensor::from_floats({1, 4}, {0.9f, 0.9f, 0.9f, 0})}});
  // 0.9 -> 7/8 each; channel 0: 7/8 * (0.25 - 0.25 + 0.25) = 0.21875 -> 0 at 2^-1; channel 1: 0.21875 -> 0
  EXPECT_EQ(f2.at("y").floats()[0], 0.0f);
}

TEST(ImportQuantized, NonPowerOfTwoScaleIsRoundedWithAWarning) {
  Dense d;
  d.out_scale = 0.3f;
  const model::LoadedModel m = load(d.build(), "non_pow2", 4);
  bool found = false;
  for (const std::string& w : m.warnings) {
    found |= w == "node 'q_out' (QuantizeLinear): scale 0.3 of 'y' is not a power of two; taken as 2^-2 = 0.25 "
                  "(relative change -16.67%)";
  }
  EXPECT_TRUE(found) << testing::PrintToString(m.warnings);
  EXPECT_EQ(m.quant.activation_formats.at("y"), 2);
  // The float model keeps the model's scale: 0.875 (x0 = 7/8, w = 1 -> h = 0.875 + 0.125) / 0.3 -> 3 -> 0.9
  const cpu::TensorMap f =
      cpu::run_float(m.float_graph, {{"x", Tensor::from_floats({1, 4}, {0.0f, 0.0f, 0.875f, 0.0f})}});
  EXPECT_FLOAT_EQ(f.at("y").floats()[0], 0.3f * 3);
}

TEST(ImportQuantized, WhatTauvtaCannotRepresentIsAOneLineError) {
  Dense zp;
  zp.zp = 3;
  EXPECT_EQ(error_of(zp.build(), "zero_point"),
            "node 'q_in' (QuantizeLinear): zero_point = 3 is not 0; tauvta's fixed point has no zero point (signed, "
            "symmetric)");

  Dense wide;  // an 8-bit activation range on a 4-bit datapath
  wide.out_lo = -128, wide.out_hi = 127;
  EXPECT_THROW(load(wide.build(), "wide_type", 4), graph::ImportedWidthError);  // a format it cannot run at
  EXPECT_EQ(error_of(wide.build(), "wide"),
            "node 'q_out' (QuantizeLinear): integer range [-128, 127] of 'y' needs 8 signed bits; the activations are "
            "4 bits (tauvta's formats are signed: narrow the Clip, bitwidth or integer type)");

  Dense wide_weights;  // weights at 2^-6 in int8: -64..64 does not fit 4 bits
  wide_weights.w_scale = scalar(1.0f / 64);
  wide_weights.w_lo = -128, wide_weights.w_hi = 127;
  EXPECT_EQ(error_of(wide_weights.build(), "wide_weights"),
            "node 'q_w' (QuantizeLinear): weights 'wq' of node 'fc' (Gemm) hold integers in [-64, 64] (8 signed bits); "
            "the weights are 4 bits");

  ModelBuilder bipolar;  // the sign of an activation has no requantization form
  bipolar.input("x", {1, 4}).output("y", {1, 4});
  bipolar.init("s", scalar(0.25f));
  bipolar.node("BipolarQuant", {"x", "s"}, {"y"}, "sign").set_domain("qonnx.custom_op.general");
  EXPECT_EQ(error_of(bipolar, "bipolar"),
            "node 'sign' (BipolarQuant): BipolarQuant of activation 'x' (the sign function) has no fixed-point "
            "requantization form");

  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 4});
  b.init("s", scalar(0.25f)).init("zero", scalar(0)).init("four", scalar(4));
  auto& q = b.node("Quant", {"x", "s", "zero", "four"}, {"y"}, "quant");
  q.set_domain("qonnx.custom_op.general");
  graph::testing::attr_string(q, "rounding_mode", "CEIL");
  EXPECT_EQ(error_of(b, "ceil"),
            "node 'quant' (Quant): attribute rounding_mode 'CEIL' is not supported (ROUND only: to nearest, ties to "
            "even, as QuantizeLinear)");
}

}  // namespace
