// tauvta inspect end to end: the summary table, --fold, --json (and refusing to overwrite it),
// and one-line errors for bad models.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "onnx_builder.h"

namespace tauvta::graph {
namespace {

using ::testing::HasSubstr;
using testing::attr_int;
using testing::attr_ints;
using testing::ModelBuilder;

namespace fs = std::filesystem;

struct ScratchDir {
  fs::path path = fs::temp_directory_path() / fmt::format("tauvta_inspect_{}", ::getpid());
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() { fs::remove_all(path); }
};

// x[N,3,8,8] -> conv 3x3 (16) -> BN -> relu -> global avg pool -> flatten -> gemm (10).
void write_model(const fs::path& p) {
  ModelBuilder b(13);
  b.input("x", {-1, 3, 8, 8});
  b.init("w", Tensor(DType::kFloat32, {16, 3, 3, 3})).init("b", Tensor(DType::kFloat32, {16}));
  for (const char* n : {"s", "bb", "m"}) b.init(n, Tensor(DType::kFloat32, {16}));
  b.init("v", Tensor::from_floats({16}, std::vector<float>(16, 1.0f)));
  b.init("fc", Tensor(DType::kFloat32, {10, 16})).init("fcb", Tensor(DType::kFloat32, {10}));
  attr_ints(b.node("Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  b.node("BatchNormalization", {"c", "s", "bb", "m", "v"}, {"n"}, "bn");
  b.node("Relu", {"n"}, {"r"}, "relu");
  b.node("GlobalAveragePool", {"r"}, {"p"}, "gap");
  b.node("Flatten", {"p"}, {"f"}, "flatten");
  attr_int(b.node("Gemm", {"f", "fc", "fcb"}, {"y"}, "fc"), "transB", 1);
  b.output("y");
  std::ofstream(p, std::ios::binary) << b.bytes();
}

TEST(InspectCli, PrintsShapesMacsAndTotals) {
  ScratchDir dir;
  write_model(dir.path / "m.onnx");
  const auto r = tauvta::testing::run_tauvta(fmt::format("inspect {} --batch 4", (dir.path / "m.onnx").string()));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("input   x: float32[4,3,8,8]"));
  EXPECT_THAT(r.out, HasSubstr("output  y: float32[4,10]"));
  // conv: 4*16*8*8 outputs, 3*3*3 MACs each; 16*27 weights + 16 biases.
  EXPECT_THAT(r.out, ::testing::ContainsRegex("0  conv +Conv +float32\\[4,16,8,8\\] +110592 +448\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("1  bn +BatchNormalization +float32\\[4,16,8,8\\] +64\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("5  fc +Gemm +float32\\[4,10\\] +640 +170\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("  BatchNormalization +1\n"));
  EXPECT_THAT(r.out, HasSubstr("total   6 nodes, 111.23 k MACs (111232), 682 parameters (682)"));

  const auto folded = tauvta::testing::run_tauvta(fmt::format("inspect {} --fold --ir", (dir.path / "m.onnx").string()));
  ASSERT_EQ(folded.code, 0) << folded.out;
  EXPECT_THAT(folded.out, HasSubstr("6 nodes imported, 5 after folding"));
  EXPECT_THAT(folded.out, ::testing::Not(HasSubstr("BatchNormalization")));
  EXPECT_THAT(folded.out, HasSubstr("node   conv = Conv(x, w_bn, conv_bias_bn) {pads=[1,1,1,1]} -> n: float32[1,16,8,8]"));
}

TEST(InspectCli, WritesJsonAndRefusesToOverwrite) {
  ScratchDir dir;
  write_model(dir.path / "m.onnx");
  const std::string json = (dir.path / "m.json").string();
  const std::string cmd = fmt::format("inspect {} --json {}", (dir.path / "m.onnx").string(), json);
  ASSERT_EQ(tauvta::testing::run_tauvta(cmd).code, 0);
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["opset"], 13);
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({1, 3, 8, 8}));
  EXPECT_EQ(j["nodes"].size(), 6u);
  EXPECT_EQ(j["nodes"][0]["macs"], 16 * 64 * 27);
  EXPECT_EQ(j["nodes"][5]["output_shape"], nlohmann::json({1, 10}));
  EXPECT_EQ(j["op_counts"]["Relu"], 1);
  EXPECT_EQ(j["total_params"], 682);
  const auto again = tauvta::testing::run_tauvta(cmd);
  EXPECT_EQ(again.code, 1);
  EXPECT_EQ(again.out, fmt::format("tauvta: error: {}: file exists; pass --force to overwrite it\n", json));
  EXPECT_EQ(tauvta::testing::run_tauvta(cmd + " --force").code, 0);
}

TEST(InspectCli, BadModelsAreOneLineErrors) {
  ScratchDir dir;
  std::ofstream(dir.path / "junk.onnx") << "junk";
  auto r = tauvta::testing::run_tauvta(fmt::format("inspect {}", (dir.path / "junk.onnx").string()));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, fmt::format("tauvta: error: {}: not a valid ONNX model (the protobuf message does not parse)\n",
                               (dir.path / "junk.onnx").string()));
  ModelBuilder b;
  b.input("x", {1, 4});
  b.node("LSTM", {"x"}, {"y"}, "lstm");
  b.output("y");
  std::ofstream(dir.path / "lstm.onnx", std::ios::binary) << b.bytes();
  r = tauvta::testing::run_tauvta(fmt::format("inspect {}", (dir.path / "lstm.onnx").string()));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("lstm.onnx: node 'lstm' (LSTM): operator LSTM is not supported (supported: Abs, Add,"));
}

}  // namespace
}  // namespace tauvta::graph

namespace tauvta::graph {
namespace {

// The hostile model of the fuzzing report: one Pad of 10^9 on a 1x1x2x2 input. Every command
// that loads models refuses it at once instead of growing without bound; the limit is an option.
TEST(InspectCli, HostileShapesAreRefusedBeforeAllocating) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("tauvta_hostile_{}", ::getpid());
  fs::create_directories(dir);
  const auto write_pad = [&](const std::string& name, int64_t p) {
    ModelBuilder b(13);
    b.input("x", {1, 1, 2, 2});
    b.init("pads", Tensor::from_int64(DType::kInt64, {8}, {0, 0, p, p, 0, 0, p, p}));
    b.node("Pad", {"x", "pads"}, {"y"}, "pad");
    b.output("y");
    std::ofstream(dir / name, std::ios::binary) << b.bytes();
  };
  write_pad("hostile.onnx", 1000000000);
  write_pad("big.onnx", 10000);  // 1.5 GiB: under the default limit, over a 100 MiB one
  const std::string hostile = (dir / "hostile.onnx").string();
  for (const std::string& cmd : {"inspect " + hostile, "run " + hostile + " --float", "run " + hostile + " --timing-only",
                                "compile " + hostile + " -o " + (dir / "h.tauvta").string()}) {
    const auto r = tauvta::testing::run_tauvta(cmd);
    EXPECT_EQ(r.code, 1) << cmd << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("node 'pad' (Pad): output 'y', float32 [1,1,2000000002,2000000002] would take more "
                                 "than 2^63 bytes, over the 4 GiB tensor limit"))
        << cmd;
  }
  const auto r = tauvta::testing::run_tauvta("inspect " + (dir / "big.onnx").string() + " --max-tensor-mib 100");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("would take 1.49 GiB, over the 0.09766 GiB tensor limit"));
  EXPECT_EQ(tauvta::testing::run_tauvta("inspect " + (dir / "big.onnx").string()).code, 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tauvta::graph
