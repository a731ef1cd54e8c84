// The forms the frontend accepts although they have no integer meaning — linear and
// tf_crop_and_resize Resize, training-mode BatchNormalization, MaxPool with a used Indices output,
// Dropout with a run-time training_mode — go through import, the float passes, calibration and
// quantization as float CPU fallbacks (Dequantize -> float node -> Quantize), never as integer
// operators, and the integer reference then computes what the float reference computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "common/error.h"
#include "cpu/calibration.h"
#include "cpu/float_executor.h"
#include "cpu/int_executor.h"
#include "graph/onnx_builder.h"
#include "graph/passes.h"
#include "graph/quantize.h"
#include "graph/shape_inference.h"

namespace tauvta::graph {
namespace {

using testing::attr_float;
using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::ModelBuilder;

Tensor wave(Shape s, float scale, int seed) {
  Tensor t(DType::kFloat32, s);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = scale * std::sin(0.7f * float(i) + 1.3f * float(seed));
  return t;
}

Tensor random_input(int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  Tensor t(DType::kFloat32, {4, 2, 6, 6});
  for (float& v : t.floats()) v = d(rng);
  return t;
}

Tensor scalar_bool(bool v) { return Tensor::from_int64(DType::kBool, {}, {v ? 1 : 0}); }

// x[4,2,6,6] -> conv1 -> bn (training_mode: batch statistics; running mean 'rm' is an output)
// -> pool (MaxPool 2x2, Indices 'idx' an output) -> lin (Resize linear x2) -> conv2 ->
//    near (Resize nearest x0.5: a pass-through) -> drop (Dropout, run-time ratio/training_mode) -> out
//    crop (Resize nearest tf_crop_and_resize, extrapolation 10, roi reaching outside) -> cropped
Graph float_model() {
  ModelBuilder b(15);
  b.input("x", {4, 2, 6, 6}).input("ratio", {}).input("train", {}, DType::kBool);
  b.init("w1", wave({4, 2, 3, 3}, 0.5f, 1)).init("b1", wave({4}, 0.2f, 2));
  b.init("s", Tensor::from_floats({4}, {1.0f, 0.5f, 2.0f, 1.5f})).init("bb", wave({4}, 0.3f, 3));
  b.init("m", wave({4}, 0.1f, 4)).init("v", Tensor::from_floats({4}, {1.0f, 2.0f, 0.5f, 1.0f}));
  b.init("w2", wave({3, 4, 1, 1}, 0.8f, 5));
  b.init("up", Tensor::from_floats({4}, {1, 1, 2, 2}));
  b.init("down", Tensor::from_floats({4}, {1, 1, 0.5f, 0.5f}));
  b.init("roi", Tensor::from_floats({8}, {0, 0, -0.5f, -0.25f, 1, 1, 1.5f, 1.25f}));
  b.init("crop_sizes", testing::ints({4, 3, 5, 5}));
  attr_ints(b.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  auto& bn = b.node("BatchNormalization", {"c1", "s", "bb", "m", "v"}, {"bn_y", "rm", "rv"}, "bn");
  attr_int(bn, "training_mode", 1);
  auto& pool = b.node("MaxPool", {"bn_y"}, {"p1", "idx"}, "pool");
  attr_ints(pool, "kernel_shape", {2, 2});
  attr_ints(pool, "strides", {2, 2});
  attr_string(b.node("Resize", {"p1", "", "up"}, {"u1"}, "lin"), "mode", "linear");
  b.node("Conv", {"u1", "w2"}, {"c2"}, "conv2");
  auto& near = b.node("Resize", {"c2", "", "down"}, {"n1"}, "near");
  attr_string(near, "mode", "nearest");
  attr_string(near, "coordinate_transformation_mode", "asymmetric");
  attr_string(near, "nearest_mode", "floor");
  b.node("Dropout", {"n1", "ratio", "train"}, {"out"}, "drop");
  auto& crop = b.node("Resize", {"c2", "roi", "", "crop_sizes"}, {"cropped"}, "crop");
  attr_string(crop, "mode", "nearest");
  attr_string(crop, "coordinate_transformation_mode", "tf_crop_and_resize");
  attr_float(crop, "extrapolation_value", 10.0f);
  b.output("out").output("cropped").output("idx").output("rm");
  // The pipeline's float passes.
  Graph g = infer_shapes(b.import());
  g = fold_constants(g, cpu::eval_float_node);
  g = fold_batch_norm(g);
  return remove_dead_nodes(g);
}

cpu::TensorMap inputs(int seed, float ratio = 0.0f, bool train = true) {
  return {{"x", random_input(seed)}, {"ratio", Tensor::scalar_float(ratio)}, {"train", scalar_bool(train)}};
}

QuantizeResult quantized(const Graph& g, int bits) {
  std::vector<cpu::TensorMap> batches;
  for (int s = 0; s < 4; ++s) batches.push_back(inputs(s));
  QuantizeOptions o;
  o.act_bits = o.wgt_bits = bits;
  if (bits > 8) o.acc_bits = 64;
  QuantizeResult r = quantize(g, cpu::calibrate(g, batches), o);
  verify_quantized(r.graph);
  return r;
}

const Node& node_named(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes) {
    if (n.name == name) return n;
  }
  throw std::runtime_error("no node " + name);
}

TEST(QuantizeFallbacks, NewFrontendFormsStayFloat) {
  const Graph g = float_model();
  ASSERT_EQ(node_named(g, "bn").attr_int("training_mode"), 1);  // not folded into conv1
  const QuantizeResult r = quantized(g, 8);
  const Graph& q = r.graph;
  const std::vector<std::string> expected = {
      "node 'bn' (BatchNormalization): training_mode = 1 (batch statistics, running mean and variance): float "
      "kernel between Dequantize and Quantize",
      "node 'pool' (MaxPool): Indices output 'idx' (quantization can move a maximum's index): float kernel between "
      "Dequantize and Quantize",
      "node 'lin' (Resize): mode 'linear' interpolates new values: float kernel between Dequantize and Quantize",
      "node 'drop' (Dropout): run-time training_mode: float kernel between Dequantize and Quantize",
      "node 'crop' (Resize): tf_crop_and_resize (roi, extrapolation_value): float kernel between Dequantize and "
      "Quantize",
  };
  for (const std::string& f : expected) {
    EXPECT_TRUE(std::count(r.cpu_fallbacks.begin(), r.cpu_fallbacks.end(), f)) << f;
  }
  EXPECT_EQ(r.cpu_fallbacks.size(), expected.size());
  // Each fallback is the float operator on float values: dequantized integers (bn after QConv
  // conv1, lin after the float pool, drop after the integer Resize) or another fallback's output.
  for (const char* name : {"bn", "pool", "lin", "drop", "crop"}) {
    const Node& n = node_named(q, name);
    EXPECT_FALSE(is_quantized_op(n.op_type)) << name;
    for (const std::string& v : {n.input(0), n.outputs[0]}) {
      EXPECT_EQ(q.info(v)->dtype, DType::kFloat32) << name << ": " << v;
      EXPECT_FALSE(q.info(v)->quant.quantized()) << name << ": " << v;
    }
  }
  for (const char* name : {"bn", "drop", "crop"}) {
    EXPECT_EQ(q.producer(node_named(q, name).input(0))->op_type, "Dequantize") << name;
  }
  EXPECT_EQ(node_named(q, "pool").input(0), "bn_y");
  EXPECT_EQ(node_named(q, "lin").input(0), "p1");
  EXPECT_EQ(node_named(q, "pool").outputs, (std::vector<std::string>{"p1", "idx"}));
  EXPECT_EQ(q.info("idx")->dtype, DType::kInt64);
  EXPECT_EQ(node_named(q, "bn").outputs, (std::vector<std::string>{"bn_y", "rm", "rv"}));
  // The integer operators around them: conv2 reads the linear Resize's output through a Quantize;
  // the nearest Resize moves integers.
  EXPECT_EQ(node_named(q, "conv2").op_type, "QConv");
  EXPECT_EQ(q.producer(node_named(q, "conv2").input(0))->op_type, "Quantize");
  const Node& near = node_named(q, "near");
  EXPECT_EQ(near.op_type, "Resize");
  EXPECT_TRUE(q.info(near.input(0))->quant.quantized());
  EXPECT_TRUE(q.info(near.outputs[0])->quant.quantized());
}

TEST(QuantizeFallbacks, IntegerReferenceComputesTheFloatOperators) {
  const Graph g = float_model();
  const cpu::TensorMap in = inputs(100);
  const cpu::TensorMap f = cpu::run_float(g, in);
  for (int bits : {8, 16}) {
    const QuantizeResult r = quantized(g, bits);
    const cpu::TensorMap qi = cpu::run_int(r.graph, in);
    // Within two steps of the 8-bit outputs' format (q8.3 here), or 1e-3 at 16 bits.
    // tf_crop_and_resize writes extrapolation_value itself (10, exactly) outside the input.
    const std::vector<float> cf = f.at("cropped").to_float(), ci = qi.at("cropped").to_float();
    int64_t extrapolated = 0;
    for (size_t i = 0; i < cf.size(); ++i) {
      if (cf[i] == 10.0f) {
        ++extrapolated;
        EXPECT_EQ(ci[i], 10.0f) << i;
      } else {
        EXPECT_NEAR(ci[i], cf[i], bits == 8 ? 0.25 : 1e-3) << i;
      }
    }
    EXPECT_GT(extrapolated, 0);
    // The running mean from the batch statistics of the dequantized conv output.
    const std::vector<float> rmf = f.at("rm").to_float(), rmi = qi.at("rm").to_float();
    for (size_t c = 0; c < rmf.size(); ++c) EXPECT_NEAR(rmi[c], rmf[c], bits == 8 ? 5e-3 : 1e-4) << c;
    // Dropout in training mode with ratio 0 passes its input through.
    const std::vector<float> of = f.at("out").to_float(), oi = qi.at("out").to_float();
    for (size_t i = 0; i < of.size(); ++i) EXPECT_NEAR(oi[i], of[i], bits == 8 ? 0.25 : 1e-3) << i;
    // At 16 bits no two values of a pooling window round together: the same maxima are found.
    const Tensor& idx = qi.at("idx");
    EXPECT_EQ(idx.dtype(), DType::kInt64);
    if (bits == 16) {
      EXPECT_EQ(idx.to_int64(), f.at("idx").to_int64());
    }
    // A random training-mode Dropout is refused at run time, naming the node.
    try {
      cpu::run_int(r.graph, inputs(100, 0.5f, true));
      ADD_FAILURE() << "random Dropout ran";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("node 'drop' (Dropout)"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("training-mode Dropout is random"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tauvta::graph
