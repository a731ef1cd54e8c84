// Token-wise linear layers (transformer MLPs, ConvNeXt's channels-last pointwise layers) on the
// accelerator: MatMul(x [N, T, K], W) + bias with a symbolic batch becomes Reshape -> dense ->
// Reshape (graph::fuse_patterns), the compiled graph derives the rows [N*T, K] once the batch is
// bound, and the accelerator's outputs equal the integer reference's byte for byte.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/cli_runner.h"
#include "graph/onnx_builder.h"
#include "io/tensor_files.h"

namespace tauvta {
namespace {

using testing::run_tauvta;
namespace fs = std::filesystem;

graph::Tensor wave(graph::Shape s, float scale, int seed) {
  graph::Tensor t(graph::DType::kFloat32, std::move(s));
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = scale * std::sin(0.37f * float(i) + float(seed));
  return t;
}

TEST(TokenDense, RunsOnTheAcceleratorBitExactWithASymbolicBatch) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("tauvta_token_dense_{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  graph::testing::ModelBuilder b(13);
  b.input("x", {-1, 6, 32});  // [N, tokens, K], N symbolic
  b.init("w1", wave({32, 48}, 0.2f, 1)).init("b1", wave({48}, 0.1f, 2));
  b.init("w2", wave({48, 16}, 0.2f, 3)).init("b2", wave({16}, 0.1f, 4));
  b.node("MatMul", {"x", "w1"}, {"h"}, "fc1");
  b.node("Add", {"h", "b1"}, {"hb"}, "fc1_bias");
  b.node("Relu", {"hb"}, {"r"}, "relu");
  b.node("MatMul", {"r", "w2"}, {"y"}, "fc2");
  b.node("Add", {"b2", "y"}, {"out"}, "fc2_bias");
  b.output("out");
  const std::string model = (dir / "tokens.onnx").string();
  std::ofstream(model, std::ios::binary) << b.bytes();
  const std::string input = (dir / "x.npy").string();
  io::write_npy(input, wave({2, 6, 32}, 1.0f, 5), false);

  auto r = run_tauvta(fmt::format("inspect {} --placement --batch 2", model));
  ASSERT_EQ(r.code, 0) << r.out;
  // Both linear layers are dense layers on the accelerator, [12, 32] and [12, 48] rows.
  size_t dense = 0;
  for (size_t at = r.out.find(" dense "); at != std::string::npos; at = r.out.find(" dense ", at + 1)) ++dense;
  EXPECT_EQ(dense, 2u) << r.out;

  r = run_tauvta(fmt::format("run {} --input x={} --int --output-dir {} -q", model, input, (dir / "int").string()));
  ASSERT_EQ(r.code, 0) << r.out;
  r = run_tauvta(fmt::format("run {} --input x={} --batch 2 --output-dir {} -q", model, input, (dir / "acc").string()));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2 accelerator layers"), std::string::npos) << r.out;
  std::ifstream a(dir / "int" / "out.npy", std::ios::binary), c(dir / "acc" / "out.npy", std::ios::binary);
  const std::string want((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  const std::string got((std::istreambuf_iterator<char>(c)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(got, want);
  const graph::Tensor out = io::read_npy(dir / "acc" / "out.npy");
  EXPECT_EQ(out.shape(), (graph::Shape{2, 6, 16}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tauvta
