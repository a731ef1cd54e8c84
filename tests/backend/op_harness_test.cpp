// One harness over every quantized operator the compiler places on the accelerator (ggml's
// test-backend-ops in spirit): each case builds a one-node quantized graph with random shapes and
// attributes (strides, paddings, dilation, groups, batch, odd channel counts, per-channel shifts),
// compiles it, requires the node on the accelerator, runs it on the simulated board with the
// hazard checker, and compares the output bit for bit with the integer reference. Every case runs
// on the pynq, W4A4, W2A2 and BATCH=4 presets. Adding an operator means adding its case to kCases.
#include <functional>
#include <random>

#include <gtest/gtest.h>

#include "backend/compile_network.h"
#include "backend/network_runner.h"
#include "cpu/int_executor.h"
#include "../model/pipeline_test_util.h"

namespace {

using namespace tauvta;
using graph::DType;
using graph::Shape;
using graph::Tensor;

struct Rng {
  std::mt19937 gen;
  int64_t pick(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); }
  Tensor ints(Shape s, int bits, DType dt = DType::kInt32) {
    std::vector<int64_t> v(size_t(graph::num_elements(s)));
    for (int64_t& x : v) x = pick(-(int64_t(1) << (bits - 1)), (int64_t(1) << (bits - 1)) - 1);
    return Tensor::from_int64(dt, std::move(s), v);
  }
};

struct OpCase {
  graph::Graph g;
  cpu::TensorMap in;
};

// An activation value of `bits` bits.
void activation(graph::Graph& g, const std::string& name, const Shape& s, int bits) {
  graph::ValueInfo& v = g.info_mut(name);
  v.name = name;
  v.dtype = DType::kInt32;
  v.shape = s;
  v.known_shape = true;
  v.quant.bits = bits;
  v.quant.frac_bits = 4;
}

void requant_attrs(graph::Node& n, const hw::HwConfig& c, Rng& r, int64_t shift) {
  const int64_t qmax = (int64_t(1) << (c.out_width() - 1)) - 1;
  n.attrs["shift"] = shift;
  n.attrs["clip_min"] = r.pick(0, 1) ? int64_t(0) : -qmax - 1;
  n.attrs["clip_max"] = qmax;
  n.attrs["out_bits"] = int64_t(c.out_width());
  n.attrs["acc_bits"] = int64_t(c.acc_width());
}

OpCase one_node(graph::Node n, const std::vector<std::pair<std::string, Tensor>>& inputs, const Shape& out,
                const hw::HwConfig& c, std::map<std::string, Tensor> inits = {}) {
  OpCase k;
  k.g.name = "case";
  for (const auto& [name, t] : inputs) {
    k.g.inputs.push_back(name);
    activation(k.g, name, t.shape(), c.inp_width());
    k.in[name] = t;
  }
  k.g.initializers = std::move(inits);
  n.name = "op";
  n.outputs = {"y"};
  k.g.nodes.push_back(std::move(n));
  k.g.outputs = {"y"};
  activation(k.g, "y", out, c.out_width());
  return k;
}

OpCase conv_case(const hw::HwConfig& c, Rng& r) {
  const int64_t groups = r.pick(0, 2) == 0 ? r.pick(2, 4) : 1;
  const int64_t cg = r.pick(1, 12), mg = r.pick(1, 12), kh = r.pick(1, 3), kw = r.pick(1, 3);
  const int64_t sh = r.pick(1, 2), sw = r.pick(1, 2), dh = r.pick(1, 2), dw = r.pick(1, 2);
  const int64_t h = r.pick((kh - 1) * dh + 1, 10), w = r.pick((kw - 1) * dw + 1, 10), n = r.pick(1, 3);
  const std::vector<int64_t> pads = {r.pick(0, 2), r.pick(0, 2), r.pick(0, 2), r.pick(0, 2)};
  graph::Node node;
  node.op_type = "QConv";
  node.inputs = {"x", "w", "b"};
  node.attrs["group"] = groups;
  node.attrs["strides"] = std::vector<int64_t>{sh, sw};
  node.attrs["dilations"] = std::vector<int64_t>{dh, dw};
  node.attrs["pads"] = pads;
  node.attrs["kernel_shape"] = std::vector<int64_t>{kh, kw};
  requant_attrs(node, c, r, r.pick(0, 12));
  // Small biases too, so that low-bit first layers can carry theirs in constant lanes.
  const int bias_bits = r.pick(0, 2) == 0 ? 4 : 12;
  if (r.pick(0, 1)) {
    std::vector<int64_t> s;
    for (int64_t i = 0; i < mg * groups; ++i) s.push_back(r.pick(-2, 14));
    node.attrs["shift"] = s;
  }
  const int64_t oh = (h + pads[0] + pads[2] - dh * (kh - 1) - 1) / sh + 1, ow = (w + pads[1] + pads[3] - dw * (kw - 1) - 1) / sw + 1;
  return one_node(node, {{"x", r.ints({n, cg * groups, h, w}, c.inp_width())}}, {n, mg * groups, oh, ow}, c,
                  {{"w", r.ints({mg * groups, cg, kh, kw}, c.wgt_width(), DType::kInt8)},
                   {"b", r.ints({mg * groups}, bias_bits)}});
}

OpCase depthwise_case(const hw::HwConfig& c, Rng& r) {
  const int64_t ch = r.pick(1, 3) * c.block_out(), k = r.pick(1, 3) * 2 + 1, s = r.pick(1, 2);
  const int64_t h = r.pick(k, 12), w = r.pick(k, 12), n = r.pick(1, 2);
  graph::Node node;
  node.op_type = "QConv";
  node.inputs = {"x", "w", "b"};
  node.attrs["group"] = ch;
  node.attrs["strides"] = std::vector<int64_t>{s, s};
  node.attrs["pads"] = std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2};
  node.attrs["kernel_shape"] = std::vector<int64_t>{k, k};
  requant_attrs(node, c, r, r.pick(0, 8));
  const int64_t oh = (h + 2 * (k / 2) - k) / s + 1, ow = (w + 2 * (k / 2) - k) / s + 1;
  return one_node(node, {{"x", r.ints({n, ch, h, w}, c.inp_width())}}, {n, ch, oh, ow}, c,
                  {{"w", r.ints({ch, 1, k, k}, c.wgt_width(), DType::kInt8)}, {"b", r.ints({ch}, 10)}});
}

OpCase conv_transpose_case(const hw::HwConfig& c, Rng& r) {
  const int64_t ci = r.pick(1, 20), co = r.pick(1, 20), k = r.pick(1, 4), s = r.pick(1, 3);
  const int64_t p = r.pick(0, k - 1), op = r.pick(0, s - 1), h = r.pick(1, 6), w = r.pick(1, 6), n = r.pick(1, 2);
  graph::Node node;
  node.op_type = "QConvTranspose";
  node.inputs = {"x", "w", "b"};
  node.attrs["strides"] = std::vector<int64_t>{s, s};
  node.attrs["pads"] = std::vector<int64_t>{p, p, p, p};
  node.attrs["output_padding"] = std::vector<int64_t>{op, op};
  node.attrs["kernel_shape"] = std::vector<int64_t>{k, k};
  requant_attrs(node, c, r, r.pick(0, 10));
  const int64_t oh = (h - 1) * s - 2 * p + k + op, ow = (w - 1) * s - 2 * p + k + op;
  if (oh < 1 || ow < 1) return conv_transpose_case(c, r);
  return one_node(node, {{"x", r.ints({n, ci, h, w}, c.inp_width())}}, {n, co, oh, ow}, c,
                  {{"w", r.ints({ci, co, k, k}, c.wgt_width(), DType::kInt8)}, {"b", r.ints({co}, 10)}});
}

OpCase dense_case(const hw::HwConfig& c, Rng& r) {
  const int64_t n = r.pick(1, 6), k = r.pick(1, 80), m = r.pick(1, 40);
  graph::Node node;
  node.op_type = "QGemm";
  node.inputs = {"x", "w", "b"};
  requant_attrs(node, c, r, r.pick(0, 12));
  return one_node(node, {{"x", r.ints({n, k}, c.inp_width())}}, {n, m}, c,
                  {{"w", r.ints({m, k}, c.wgt_width(), DType::kInt8)}, {"b", r.ints({m}, 12)}});
}

OpCase max_pool_case(const hw::HwConfig& c, Rng& r) {
  const int64_t k = r.pick(1, 3), s = r.pick(1, 2), p = r.pick(0, k / 2), n = r.pick(1, 2), ch = r.pick(1, 20);
  const int64_t h = r.pick(k, 12), w = r.pick(k, 12);
  graph::Node node;
  node.op_type = "MaxPool";
  node.inputs = {"x"};
  node.attrs["kernel_shape"] = std::vector<int64_t>{k, k};
  node.attrs["strides"] = std::vector<int64_t>{s, s};
  node.attrs["pads"] = std::vector<int64_t>{p, p, p, p};
  const int64_t oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
  return one_node(node, {{"x", r.ints({n, ch, h, w}, c.inp_width())}}, {n, ch, oh, ow}, c);
}

OpCase avg_pool_case(const hw::HwConfig& c, Rng& r) {
  const int64_t k = 1 << r.pick(0, 1), n = r.pick(1, 2), ch = r.pick(1, 20), h = r.pick(k, 10) / k * k, w = r.pick(k, 10) / k * k;
  graph::Node node;
  node.op_type = "QAveragePool";
  node.inputs = {"x"};
  node.attrs["kernel_shape"] = std::vector<int64_t>{k, k};
  node.attrs["strides"] = std::vector<int64_t>{k, k};
  requant_attrs(node, c, r, r.pick(-1, 3));
  return one_node(node, {{"x", r.ints({n, ch, h, w}, c.inp_width())}}, {n, ch, h / k, w / k}, c);
}

OpCase global_avg_pool_case(const hw::HwConfig& c, Rng& r) {
  const int64_t n = r.pick(1, 2), ch = r.pick(1, 40), h = int64_t(1) << r.pick(0, 3), w = int64_t(1) << r.pick(0, 3);
  graph::Node node;
  node.op_type = "QGlobalAveragePool";
  node.inputs = {"x"};
  requant_attrs(node, c, r, r.pick(-1, 3));
  return one_node(node, {{"x", r.ints({n, ch, h, w}, c.inp_width())}}, {n, ch, 1, 1}, c);
}

OpCase add_case(const hw::HwConfig& c, Rng& r) {
  const Shape s = {r.pick(1, 3), r.pick(1, 40), r.pick(1, 9), r.pick(1, 9)};
  graph::Node node;
  node.op_type = "QAdd";
  node.inputs = {"a", "b"};
  requant_attrs(node, c, r, r.pick(0, 3));
  const int64_t which = r.pick(0, 2);
  node.attrs["lhs_shift"] = which == 1 ? -r.pick(1, 5) : int64_t(0);
  node.attrs["rhs_shift"] = which == 2 ? -r.pick(1, 5) : int64_t(0);
  return one_node(node, {{"a", r.ints(s, c.inp_width())}, {"b", r.ints(s, c.inp_width())}}, s, c);
}

struct CaseKind {
  const char* name;
  std::function<OpCase(const hw::HwConfig&, Rng&)> make;
  bool needs_two_bit_weights;  // unit weights (+1) do not exist at 1 bit
};

const CaseKind kCases[] = {
    {"QConv", conv_case, false},
    {"QConv(depthwise)", depthwise_case, false},
    {"QConvTranspose", conv_transpose_case, false},
    {"QGemm", dense_case, false},
    {"MaxPool", max_pool_case, true},
    {"QAveragePool", avg_pool_case, true},
    {"QGlobalAveragePool", global_avg_pool_case, true},
    {"QAdd", add_case, true},
};

void run_harness(const std::string& preset, int trials) {
  const hw::HwConfig c = hw::HwConfig::load(tauvta::testing::source_path("configs/" + preset + ".json"));
  Rng r{std::mt19937(uint32_t(std::hash<std::string>{}(preset)))};
  // Convolutions of the graph input read a host-folded copy, some with their bias in its lanes.
  int column_folds = 0, row_folds = 0, bias_lane_folds = 0;
  for (const CaseKind& kind : kCases) {
    for (int t = 0; t < trials; ++t) {
      const OpCase k = kind.make(c, r);
      SCOPED_TRACE(preset + " " + kind.name + " trial " + std::to_string(t) + ": " + graph::print_graph(k.g));
      backend::CompileOptions co;
      co.batch = k.in.begin()->second.shape()[0];
      const backend::CompiledNetwork net = backend::compile_network(k.g, c, co);
      ASSERT_EQ(net.layers.size(), 1u);
      ASSERT_EQ(net.layers[0].placement, backend::Placement::kVta) << net.layers[0].reason;
      for (const auto& [name, f] : net.folds) {
        ++(f.rows() ? row_folds : column_folds);
        bias_lane_folds += !f.constants.empty();
      }
      backend::NetworkRunner runner(net);
      backend::NetworkRunOptions o;
      o.check_hazards = true;
      const backend::NetworkRun run = runner.run(k.in, o);
      ASSERT_TRUE(run.total.hazards.empty()) << run.total.hazards[0].message();
      const std::vector<int64_t> want = cpu::run_int(k.g, k.in).at("y").to_int64();
      const std::vector<int64_t> got = run.outputs.at("y").to_int64();
      ASSERT_EQ(got, want);
    }
  }
  // Both kinds of first-layer fold were among the cases checked bit-exact above.
  EXPECT_GT(column_folds, 0);
  EXPECT_GT(row_folds, 0);
  // 8-bit lanes reach the random biases; narrower ones rarely do (FirstLayerBiasInConstantLanes).
  if (c.inp_width() >= 8) {
    EXPECT_GT(bias_lane_folds, 0);
  }
}

// A 3-channel 3x3 convolution of the graph input with a small bias, at every width: the input
// is folded over rows and columns, the bias and rounding constant ride in constant lanes, and the
// result is bit-exact.
TEST(OpHarness, FirstLayerBiasInConstantLanes) {
  for (const char* preset : {"pynq", "pynq_w4a4", "pynq_w2a2", "pynq_b4_blk8"}) {
    SCOPED_TRACE(preset);
    const hw::HwConfig c = hw::HwConfig::load(tauvta::testing::source_path("configs/" + std::string(preset) + ".json"));
    Rng r{std::mt19937(11)};
    graph::Node node;
    node.op_type = "QConv";
    node.inputs = {"x", "w", "b"};
    node.attrs["group"] = int64_t(1);
    node.attrs["strides"] = std::vector<int64_t>{1, 1};
    node.attrs["dilations"] = std::vector<int64_t>{1, 1};
    node.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
    node.attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
    requant_attrs(node, c, r, 1);
    const OpCase k = one_node(node, {{"x", r.ints({2, 3, 9, 8}, c.inp_width())}}, {2, 5, 9, 8}, c,
                              {{"w", r.ints({5, 3, 3, 3}, c.wgt_width(), DType::kInt8)}, {"b", r.ints({5}, 2)}});
    backend::CompileOptions co;
    co.batch = 2;
    const backend::CompiledNetwork net = backend::compile_network(k.g, c, co);
    ASSERT_EQ(net.folds.size(), 1u);
    const backend::InputFold& f = net.folds.begin()->second;
    EXPECT_TRUE(f.rows());
    EXPECT_FALSE(f.constants.empty());
    ASSERT_EQ(net.layers.size(), 1u);
    EXPECT_EQ(net.layers[0].workload->in_channels, 27 + int64_t(f.constants.size()));
    backend::NetworkRunner runner(net);
    backend::NetworkRunOptions o;
    o.check_hazards = true;
    const backend::NetworkRun run = runner.run(k.in, o);
    ASSERT_TRUE(run.total.hazards.empty()) << run.total.hazards[0].message();
    EXPECT_EQ(run.outputs.at("y").to_int64(), cpu::run_int(k.g, k.in).at("y").to_int64());
  }
}

TEST(OpHarness, EveryAcceleratorOpPynq) { run_harness("pynq", 30); }
TEST(OpHarness, EveryAcceleratorOpW4A4) { run_harness("pynq_w4a4", 15); }
TEST(OpHarness, EveryAcceleratorOpW2A2) { run_harness("pynq_w2a2", 15); }
TEST(OpHarness, EveryAcceleratorOpBatch4Block8) { run_harness("pynq_b4_blk8", 15); }

}  // namespace
