// The batch a model's inputs declare is the batch it is compiled for unless --batch says otherwise
// (issue 17, item 5): small conv models with inputs [4,1,8,8] and [2,1,8,8] compile at their own
// batch through the library (model::default_batch) and the CLI, and run bit-exact against the
// integer reference on pynq, W4A4 and BATCH=4; --batch overrides; a symbolic batch stays 1;
// inputs declaring different batches are a one-line error naming them (through the library:
// calibration, and so the CLI's compile, takes one-input models only).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/compile_network.h"
#include "backend/network_runner.h"
#include "cli/cli_runner.h"
#include "common/error.h"
#include "cpu/int_executor.h"
#include "graph/onnx_builder.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"
#include "quant/quant_test_models.h"
#include "../model/pipeline_test_util.h"

namespace {

using namespace tauvta;
using graph::testing::attr_int;
using graph::testing::attr_ints;
using tauvta::testing::run_tauvta;
using tauvta::testing::source_path;
namespace fs = std::filesystem;

// x[batch,1,8,8] -> conv 3x3 (8) -> relu -> maxpool 2x2 -> conv 3x3 (16) -> relu -> flatten ->
// gemm (10) -> y; batch -1 is symbolic.
void write_model(const fs::path& path, int64_t batch) {
  graph::testing::ModelBuilder b(13);
  b.input("x", {batch, 1, 8, 8});
  b.init("w1", tauvta::testing::wave({8, 1, 3, 3}, 0.6f, 1)).init("b1", tauvta::testing::wave({8}, 0.1f, 2));
  b.init("w2", tauvta::testing::wave({16, 8, 3, 3}, 0.2f, 3)).init("b2", tauvta::testing::wave({16}, 0.1f, 4));
  b.init("w3", tauvta::testing::wave({10, 256}, 0.1f, 5)).init("b3", tauvta::testing::wave({10}, 0.1f, 6));
  attr_ints(b.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"}, "relu1");
  auto& pool = b.node("MaxPool", {"r1"}, {"p1"}, "pool");
  attr_ints(pool, "kernel_shape", {2, 2});
  attr_ints(pool, "strides", {2, 2});
  attr_ints(b.node("Conv", {"p1", "w2", "b2"}, {"c2"}, "conv2"), "pads", {1, 1, 1, 1});
  b.node("Relu", {"c2"}, {"r2"}, "relu2");
  b.node("Flatten", {"r2"}, {"f"}, "flatten");
  attr_int(b.node("Gemm", {"f", "w3", "b3"}, {"y"}, "fc"), "transB", 1);
  b.output("y", {batch, 10});
  std::ofstream(path, std::ios::binary) << b.bytes();
}

graph::Tensor images(int64_t n) {
  graph::Tensor t(graph::DType::kFloat32, {n, 1, 8, 8});
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = float((i * 37) % 101) / 100.0f;
  return t;
}

// The models, their inputs (also the calibration data) and a two-input model whose inputs
// disagree, written once.
struct Files {
  fs::path dir = tauvta::testing::fresh_dir("declared_batch");
  Files() {
    for (int64_t n : {4, 2, -1}) write_model(model(n), n);
    for (int64_t n : {4, 2}) io::write_npy(input(n), images(n), true);
    graph::testing::ModelBuilder b(13);
    b.input("a", {4, 1, 2, 2}).input("b", {2, 1, 2, 2});
    b.node("Add", {"a", "b"}, {"y"}, "add");
    b.output("y");
    std::ofstream(dir / "disagree.onnx", std::ios::binary) << b.bytes();
    // Matrices: [2, 3] x [3, 4] declares no batch (ONNX's test_operator_mm).
    graph::testing::ModelBuilder mm(13);
    mm.input("a", {2, 3}).input("b", {3, 4});
    mm.node("MatMul", {"a", "b"}, {"y"}, "mm");
    mm.output("y");
    std::ofstream(dir / "mm.onnx", std::ios::binary) << mm.bytes();
  }
  ~Files() { fs::remove_all(dir); }
  fs::path model(int64_t n) const { return dir / fmt::format("b{}.onnx", n < 0 ? "N" : std::to_string(n)); }
  fs::path input(int64_t n) const { return dir / fmt::format("x{}.npy", n); }
};

const Files& files() {
  static const Files f;
  return f;
}

model::LoadedModel load(const fs::path& model, const hw::HwConfig& c, const fs::path& calibrate, int64_t batch = 0) {
  model::LoadOptions o;
  o.quantize = true;
  o.config = c;
  o.calibrate = calibrate;
  o.batch = batch;
  return model::load_model(model, o);
}

class DeclaredBatch : public ::testing::TestWithParam<const char*> {};

TEST_P(DeclaredBatch, CompilesAtTheDeclaredBatchAndRunsBitExact) {
  const hw::HwConfig c = hw::HwConfig::load(source_path(std::string("configs/") + GetParam() + ".json"));
  for (int64_t batch : {4, 2}) {
    SCOPED_TRACE(fmt::format("batch {}", batch));
    const model::LoadedModel m = load(files().model(batch), c, files().input(batch));
    EXPECT_EQ(m.float_graph.info("x")->shape, (graph::Shape{-1, 1, 8, 8}));  // the references take any batch
    ASSERT_EQ(model::default_batch(m), batch);
    backend::CompileOptions co;
    co.batch = model::default_batch(m);
    const backend::CompiledNetwork net = backend::compile_network(m.quant.graph, c, co);
    EXPECT_EQ(net.graph.info("x")->shape, (graph::Shape{batch, 1, 8, 8}));
    EXPECT_EQ(net.vta_layers(), 4u);  // both convolutions, the pool and the dense layer
    const cpu::TensorMap in = {{"x", images(batch)}};
    backend::NetworkRunner runner(net);
    backend::NetworkRunOptions ro;
    ro.check_hazards = true;
    const backend::NetworkRun run = runner.run(in, ro);
    EXPECT_TRUE(run.total.hazards.empty());
    const graph::Tensor want = cpu::run_int(net.graph, in).at("y");
    EXPECT_EQ(want.shape(), (graph::Shape{batch, 10}));
    EXPECT_TRUE(run.outputs.at("y") == want) << "the accelerator differs from the integer reference";
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, DeclaredBatch, ::testing::Values("pynq", "pynq_w4a4", "pynq_b4_blk8"));

TEST(DeclaredBatchLibrary, SymbolicIsOneAndLoadOptionsOverride) {
  const hw::HwConfig c;
  EXPECT_EQ(model::default_batch(load(files().model(-1), c, files().input(2))), 1);
  const model::LoadedModel m = load(files().model(4), c, files().input(2), 2);
  EXPECT_EQ(model::default_batch(m), 2);
  EXPECT_EQ(m.float_graph.info("y")->shape, (graph::Shape{2, 10}));
}

TEST(DeclaredBatchLibrary, DisagreeingInputsAreAnErrorNamingThem) {
  model::LoadOptions o;
  const model::LoadedModel m = model::load_model(files().dir / "disagree.onnx", o);
  try {
    model::default_batch(m);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "the model's image inputs declare different batches ('a' [4,1,2,2], 'b' [2,1,2,2]); pass --batch N to "
              "choose one");
  }
}

// A first dimension is a batch only where the model says so: matrices of different heights are
// not a batch conflict, and the float reference runs them.
TEST(DeclaredBatchLibrary, MatricesDeclareNoBatch) {
  model::LoadOptions o;
  const model::LoadedModel m = model::load_model(files().dir / "mm.onnx", o);
  EXPECT_EQ(model::default_batch(m), 1);  // no input carries a batch
  EXPECT_EQ(m.float_graph.info("y")->shape, (graph::Shape{2, 4}));
}

TEST(DeclaredBatchCli, RunCompileAndOverride) {
  const Files& f = files();
  const std::string b4 = f.model(4).string(), x4 = f.input(4).string(), x2 = f.input(2).string();
  const std::string cfg = " --config " + source_path("configs/pynq_b4_blk8.json").string() + " --calibrate " + x4;
  // The declared batch by default: bit-exact against the integer reference run in the same
  // process and by `run --int`.
  auto r = run_tauvta(fmt::format("run {} -q --input {}{} --compare-float --report {} --output-dir {}", b4, x4, cfg,
                                  (f.dir / "r4.json").string(), (f.dir / "acc4").string()));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("output y: float32[4,10]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compare y: identical to the integer reference: yes"), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(f.dir / "r4.json"))["batch"], 4);
  r = run_tauvta(fmt::format("run {} --int --input {}{} --output-dir {}", b4, x4, cfg, (f.dir / "int4").string()));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(io::read_npy(f.dir / "acc4" / "y.npy") == io::read_npy(f.dir / "int4" / "y.npy"));

  // --batch overrides it.
  r = run_tauvta(fmt::format("run {} --batch 2 --input {}{} --compare-float", b4, x2, cfg));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("compare y: identical to the integer reference: yes"), std::string::npos) << r.out;
  r = run_tauvta(fmt::format("run {} --batch 2 --input {}{}", b4, x4, cfg));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("input 'x' has shape [4,1,8,8], the compiled network expects [2,1,8,8]"), std::string::npos)
      << r.out;

  // compile keeps the declared batch in the artifact; --batch must agree with it at run time.
  const std::string art = (f.dir / "b4.tauvta").string();
  r = run_tauvta(fmt::format("compile {}{} -o {}", b4, cfg, art));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("compiled for 4x8_i8w8a32_15_15_18_17 at batch 4"), std::string::npos) << r.out;
  r = run_tauvta(fmt::format("run {} --input {} --output-dir {}", art, x4, (f.dir / "art4").string()));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(io::read_npy(f.dir / "art4" / "y.npy") == io::read_npy(f.dir / "int4" / "y.npy"));
  r = run_tauvta(fmt::format("run {} --batch 2 --input {}", art, x2));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out,
            fmt::format("tauvta: error: {} was compiled for batch 4; --batch asks for 2: compile it again\n", art));

  // inspect shows the declared batch, or --batch's.
  r = run_tauvta(fmt::format("inspect {} --placement --json {}", b4, (f.dir / "i.json").string()));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("input   x: float32[4,1,8,8]"), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(f.dir / "i.json"))["batch"], 4);
  r = run_tauvta("inspect " + b4 + " --batch 2");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("output  y: float32[2,10]"), std::string::npos) << r.out;
}

}  // namespace
