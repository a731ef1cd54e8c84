// Whole networks on the accelerator: compile the quantized graph, run it on the simulated board
// (hazard checker on), and require outputs byte-identical to the integer reference, every
// accelerator-capable layer placed on the accelerator, and timing-only cycles equal to the full
// run's. The committed VGG-7 runs on the pynq, W4A4, W2A2, W16 and BATCH=4 presets; the generated
// ResNet-18, MobileNetV2 and DCGAN generator (scripts/make-models) on pynq.
#include <gtest/gtest.h>

#include "backend/compile_network.h"
#include "backend/network_runner.h"
#include "cpu/int_executor.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"
#include "model/samples.h"
#include "tune/task.h"
#include "../model/pipeline_test_util.h"
#include "common/error.h"

#include <cstdlib>
#include <map>

namespace {

using namespace tauvta;
using tauvta::testing::fashion_mnist;
using tauvta::testing::source_path;

hw::HwConfig preset(const std::string& name) {
  return hw::HwConfig::load(source_path("configs/" + name + ".json"));
}

model::LoadedModel quantized_vgg7(const hw::HwConfig& c) {
  model::LoadOptions o;
  o.quantize = true;
  o.config = c;
  o.calibrate = fashion_mnist("train-images-idx3-ubyte.gz");
  o.calib_samples = 128;
  return model::load_model(source_path("models/vgg7_fmnist.onnx"), o);
}

cpu::TensorMap test_images(const graph::Graph& g, int64_t first, int64_t count) {
  const graph::Tensor images = io::read_idx(fashion_mnist("t10k-images-idx3-ubyte.gz"));
  cpu::TensorMap in;
  in[g.inputs.at(0)] = model::idx_batch(images, first, count);
  return in;
}

void expect_identical(const cpu::TensorMap& want, const cpu::TensorMap& got) {
  ASSERT_EQ(want.size(), got.size());
  for (const auto& [name, t] : want) {
    ASSERT_TRUE(got.count(name)) << name;
    EXPECT_TRUE(t == got.at(name)) << "output " << name << " differs from the integer reference";
  }
}

void check_network(const hw::HwConfig& c, const graph::Graph& q, const cpu::TensorMap& in,
                   const std::vector<std::string>& must_be_on_vta) {
  backend::CompileOptions co;
  co.batch = in.begin()->second.shape()[0];
  const backend::CompiledNetwork net = backend::compile_network(q, c, co);
  // Every graph node is computed by exactly one layer (fused nodes by the layer they joined).
  std::map<std::string, int> computed;
  size_t fused_adds = 0;
  for (const backend::NetworkLayer& l : net.layers) {
    fused_adds += l.op.find("+add") != std::string::npos ? 1 : 0;
    for (const std::string& name : l.nodes) {
      ++computed[name];
      const graph::Node* n = nullptr;
      for (const graph::Node& x : q.nodes) {
        if (x.name == name) n = &x;
      }
      ASSERT_NE(n, nullptr) << name;
      for (const std::string& op : must_be_on_vta) {
        if (n->op_type == op) {
          EXPECT_EQ(l.placement, backend::Placement::kVta) << name << " (" << op << "): " << l.reason;
        }
      }
    }
  }
  size_t adds_after_convs = 0;
  for (const graph::Node& x : q.nodes) {
    EXPECT_EQ(computed[x.name], 1) << x.name;
    if (x.op_type != "QAdd") continue;
    for (const std::string& v : x.inputs) {
      const graph::Node* p = q.producer(v);
      if (p && p->op_type == "QConv" && q.consumers(v).size() == 1) ++adds_after_convs;
    }
  }
  // A residual add that follows a convolution is fused into it (the other operand always exists
  // by then in these networks, and their tiles fit).
  EXPECT_EQ(fused_adds > 0, adds_after_convs > 0);
  backend::NetworkRunner runner(net);
  backend::NetworkRunOptions o;
  o.check_hazards = true;
  const backend::NetworkRun run = runner.run(in, o);
  EXPECT_TRUE(run.total.hazards.empty()) << run.total.hazards.front().message();
  expect_identical(cpu::run_int(q, in), run.outputs);
  const backend::NetworkRun timed = backend::time_network(net);
  EXPECT_EQ(timed.total.cycles, run.total.cycles);
  EXPECT_GT(run.total.cycles, 0u);
}

const std::vector<std::string> kVtaOps = {"QConv", "QGemm", "MaxPool", "QAdd"};

TEST(Network, Vgg7PynqMatchesIntegerReference) {
  const hw::HwConfig c = preset("pynq");
  const model::LoadedModel m = quantized_vgg7(c);
  check_network(c, m.quant.graph, test_images(m.quant.graph, 0, 2), kVtaOps);
}

TEST(Network, Vgg7W4A4MatchesIntegerReference) {
  const hw::HwConfig c = preset("pynq_w4a4");
  const model::LoadedModel m = quantized_vgg7(c);
  check_network(c, m.quant.graph, test_images(m.quant.graph, 5, 1), kVtaOps);
}

TEST(Network, Vgg7W2A2MatchesIntegerReference) {
  const hw::HwConfig c = preset("pynq_w2a2");
  const model::LoadedModel m = quantized_vgg7(c);
  check_network(c, m.quant.graph, test_images(m.quant.graph, 7, 1), kVtaOps);
}

// 16-bit lanes and 64-bit accumulators: the widest datapath, whose GEMM sums overflow int32.
TEST(Network, Vgg7W16MatchesIntegerReference) {
  const hw::HwConfig c = preset("pynq_w16");
  const model::LoadedModel m = quantized_vgg7(c);
  check_network(c, m.quant.graph, test_images(m.quant.graph, 3, 2), kVtaOps);
}

TEST(Network, Vgg7Batch4Block8MatchesIntegerReference) {
  const hw::HwConfig c = preset("pynq_b4_blk8");
  const model::LoadedModel m = quantized_vgg7(c);
  check_network(c, m.quant.graph, test_images(m.quant.graph, 10, 5), kVtaOps);
}

}  // namespace

namespace {

std::filesystem::path generated_model(const std::string& name) {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("TAUVTA_MODELS_DIR"); env && *env) dirs.emplace_back(env);
  dirs.push_back(source_path("build/models"));
  for (const auto& d : dirs) {
    if (std::filesystem::exists(d / (name + ".onnx"))) return d / name;
  }
  throw Error(name + ".onnx not found: run scripts/make-models first");
}

struct Generated {
  const char* name;
  const char* preset;
  int64_t batch;
};

void PrintTo(const Generated& g, std::ostream* os) { *os << g.name << "_" << g.preset << "_b" << g.batch; }

class GeneratedNetwork : public ::testing::TestWithParam<Generated> {};

TEST_P(GeneratedNetwork, RunsOnTheAcceleratorBitExact) {
  const Generated& p = GetParam();
  const std::filesystem::path base = generated_model(p.name);
  const hw::HwConfig c = preset(p.preset);
  model::LoadOptions o;
  o.quantize = true;
  o.config = c;
  o.calibrate = base.string() + "_input.npy";
  const model::LoadedModel m = model::load_model(base.string() + ".onnx", o);
  const graph::Tensor sample = io::read_npy(base.string() + "_input.npy");
  std::vector<const graph::Tensor*> parts(size_t(p.batch), &sample);
  cpu::TensorMap in{{m.quant.graph.inputs.at(0), model::concat_batch(parts)}};
  // Every convolution, dense layer, pool and add the hardware can do runs on it; what remains
  // on the CPU is the input/output conversion and the non-power-of-two global average pool.
  check_network(c, m.quant.graph, in, {"QConv", "QConvTranspose", "QGemm", "MaxPool", "QAdd"});
}

INSTANTIATE_TEST_SUITE_P(Models, GeneratedNetwork,
                         ::testing::Values(Generated{"resnet18", "pynq", 1}, Generated{"resnet18", "pynq_w4a4", 1},
                                           Generated{"resnet18", "pynq_b4_blk8", 4},
                                           Generated{"mobilenetv2", "pynq", 1},
                                           Generated{"mobilenetv2", "pynq_w4a4", 1},
                                           Generated{"mobilenetv2", "pynq_b4_blk8", 4},
                                           Generated{"dcgan_generator", "pynq", 1},
                                           Generated{"dcgan_generator", "pynq_w4a4", 1},
                                           Generated{"dcgan_generator", "pynq_b4_blk8", 4}),
                         [](const ::testing::TestParamInfo<Generated>& i) {
                           return std::string(i.param.name) + "_" + i.param.preset;
                         });

}  // namespace

namespace tauvta {
namespace {

// A tuned schedule beats the fusion it would not fit beside: ResNet-18's layer1 3x3 convs with
// TopHub's knobs for that workload (legal alone, too large for the residual tile) keep their add
// separate; without the log they are fused.
TEST(Network, TunedScheduleKeepsTheAddSeparateWhenTheResidualWouldNotFit) {
  const std::filesystem::path base = generated_model("resnet18");
  const hw::HwConfig c = preset("pynq");
  model::LoadOptions o;
  o.quantize = true;
  o.config = c;
  o.calibrate = base.string() + "_input.npy";
  const model::LoadedModel m = model::load_model(base.string() + ".onnx", o);
  lower::ConvWorkload w;
  w.in_channels = w.out_channels = 64;
  w.height = w.width = 56;
  w.kernel_h = w.kernel_w = 3;
  w.pad_top = w.pad_left = w.pad_bottom = w.pad_right = 1;
  const lower::Schedule tuned =
      lower::Schedule::parse("tile_b=1x1,tile_h=7x8,tile_w=1x56,tile_ci=4x1,tile_co=2x2,oc_nthread=2,h_nthread=1");
  const auto count = [&](const backend::CompileOptions& co, const std::string& op, const std::string& source) {
    const backend::CompiledNetwork net = backend::compile_network(m.quant.graph, c, co);
    int n = 0;
    for (const backend::NetworkLayer& l : net.layers) {
      if (l.workload && *l.workload == w && l.op == op && l.schedule_source.find(source) != std::string::npos) ++n;
    }
    return n;
  };
  EXPECT_EQ(count({}, "conv2d+add", "default heuristic"), 2);
  backend::CompileOptions co;
  co.schedules[w] = backend::ScheduleChoice{tuned, "test log line 1"};
  EXPECT_EQ(count(co, "conv2d", "test log line 1"), 4);  // all four layer1 convs take the tuned knobs
}

// ResNet-18's conv1 (3 channels, 7x7, stride 2) reads a host im2col of its input: rows and
// columns folded, 147 channels in 10 blocks of a 1x1 kernel (10 GEMM micro-ops per output vector
// instead of the 14 of columns alone); with BLOCK_IN 8, 19 blocks instead of 21. Spare lanes of
// the last block carry the bias.
TEST(Network, FirstLayerFoldsRowsAndColumnsWhenThatNeedsFewerBlocks) {
  const std::filesystem::path base = generated_model("resnet18");
  for (const char* name : {"pynq", "pynq_b4_blk8"}) {
    SCOPED_TRACE(name);
    const hw::HwConfig c = preset(name);
    model::LoadOptions o;
    o.quantize = true;
    o.config = c;
    o.calibrate = base.string() + "_input.npy";
    const model::LoadedModel m = model::load_model(base.string() + ".onnx", o);
    const backend::CompiledNetwork net = backend::compile_network(m.quant.graph, c, {});
    ASSERT_EQ(net.folds.size(), 1u);
    const backend::InputFold& f = net.folds.begin()->second;
    EXPECT_TRUE(f.rows());
    EXPECT_EQ(f.kernel_h, 7);
    EXPECT_EQ(f.kernel_w, 7);
    EXPECT_EQ(f.out_h, 112);
    EXPECT_EQ(f.out_w, 112);
    // Its bias and rounding constant ride in spare lanes of the last block (constants -1 and -128).
    ASSERT_FALSE(f.constants.empty());
    EXPECT_LE(147 + int64_t(f.constants.size()), lower::ceil_div(147, c.block_in()) * c.block_in());
    EXPECT_EQ(f.constants[0], -1);
    const backend::NetworkLayer& conv1 = net.layers.at(1);
    ASSERT_TRUE(conv1.workload.has_value()) << conv1.name;
    EXPECT_EQ(conv1.workload->in_channels, 147 + int64_t(f.constants.size()));
    EXPECT_EQ(conv1.workload->kernel_h * conv1.workload->kernel_w, 1);
    EXPECT_EQ(conv1.workload->height, 112);
    // Its tuning task counts the layer's useful MACs, not the bias lanes'.
    bool found = false;
    for (const tune::TuneTask& t : tune::extract_tasks(net)) {
      if (t.workload() != *conv1.workload) continue;
      found = true;
      EXPECT_EQ(t.macs(), conv1.macs);
      EXPECT_EQ(t.macs(), uint64_t(64 * 147 * 112 * 112));
    }
    EXPECT_TRUE(found);
  }
}

}  // namespace
}  // namespace tauvta
