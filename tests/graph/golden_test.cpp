// print_graph() after each pass of the pipeline on a small CNN (opset 11, so the import
// normalizations show too), checked against tests/graph/golden/small_cnn/*.txt. Run with
// TAUVTA_UPDATE_GOLDEN=1 to rewrite the files after an intended change, then review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "graph/onnx_import.h"
#include "graph/passes.h"
#include "graph/shape_inference.h"
#include "onnx_builder.h"

namespace tauvta::graph {
namespace {

using testing::attr_float;
using testing::attr_int;
using testing::attr_ints;
using testing::ModelBuilder;

const std::filesystem::path kGoldenDir = std::filesystem::path(TAUVTA_SOURCE_DIR) / "tests/graph/golden";

void expect_golden(const std::string& actual, const std::filesystem::path& file) {
  const std::filesystem::path path = kGoldenDir / file;
  const char* update = std::getenv("TAUVTA_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; run the test with TAUVTA_UPDATE_GOLDEN=1 to create it";
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "after " << file << " (TAUVTA_UPDATE_GOLDEN=1 rewrites the golden file)";
}

Tensor ramp(Shape s, float scale) {
  Tensor t(DType::kFloat32, s);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = scale * float((i * 7) % 11 - 5);
  return t;
}

// conv -> BN -> relu -> maxpool -> dropout -> view(N, -1) -> gemm -> BN -> clip -> softmax, with
// one dead branch and one unused constant.
ModelBuilder small_cnn() {
  ModelBuilder b(11);
  b.input("x", {-1, 1, 8, 8});
  b.init("w1", ramp({4, 1, 3, 3}, 0.1f)).init("b1", ramp({4}, 0.01f));
  for (const char* p : {"bn1.s", "bn1.b", "bn1.m"}) b.init(p, ramp({4}, 0.2f));
  b.init("bn1.v", Tensor::from_floats({4}, {1, 2, 3, 4}));
  b.init("w2", ramp({10, 64}, 0.01f)).init("b2", ramp({10}, 0.1f));
  for (const char* p : {"bn2.s", "bn2.b", "bn2.m"}) b.init(p, ramp({10}, 0.3f));
  b.init("bn2.v", ramp({10}, 0.0f));
  attr_ints(b.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  attr_float(b.node("BatchNormalization", {"c1", "bn1.s", "bn1.b", "bn1.m", "bn1.v"}, {"n1"}, "bn1"), "epsilon", 1e-3f);
  b.node("Relu", {"n1"}, {"r1"}, "relu1");
  auto& mp = b.node("MaxPool", {"r1"}, {"p1"}, "pool1");
  attr_ints(mp, "kernel_shape", {2, 2});
  attr_ints(mp, "strides", {2, 2});
  b.node("Sigmoid", {"p1"}, {"unused"}, "dead_sigmoid");
  attr_float(b.node("Dropout", {"p1"}, {"d1"}, "drop"), "ratio", 0.25f);
  testing::attr_tensor(b.node("Constant", {}, {"zero"}), "value", Tensor::from_int64(DType::kInt64, {}, {0}));
  testing::attr_tensor(b.node("Constant", {}, {"minus1"}), "value", testing::ints({-1}));
  testing::attr_tensor(b.node("Constant", {}, {"lonely"}), "value", Tensor::scalar_float(3));
  b.node("Shape", {"d1"}, {"shape"});
  attr_int(b.node("Gather", {"shape", "zero"}, {"batch"}), "axis", 0);
  attr_ints(b.node("Unsqueeze", {"batch"}, {"batch1"}), "axes", {0});
  attr_int(b.node("Concat", {"batch1", "minus1"}, {"target"}), "axis", 0);
  b.node("Reshape", {"d1", "target"}, {"flat"}, "view");
  attr_int(b.node("Gemm", {"flat", "w2", "b2"}, {"g"}, "fc"), "transB", 1);
  b.node("BatchNormalization", {"g", "bn2.s", "bn2.b", "bn2.m", "bn2.v"}, {"n2"}, "bn2");
  testing::attr_tensor(b.node("Constant", {}, {"lo"}), "value", Tensor::scalar_float(0));
  testing::attr_tensor(b.node("Constant", {}, {"hi"}), "value", Tensor::scalar_float(6));
  b.node("Clip", {"n2", "lo", "hi"}, {"relu6"}, "clip");
  b.node("Softmax", {"relu6"}, {"probs"}, "softmax");
  b.output("probs", {-1, 10});
  return b;
}

TEST(GoldenPasses, SmallCnnAfterEachPass) {
  Graph g = small_cnn().import();
  expect_golden(print_graph(g), "small_cnn/1_import.txt");
  ShapeInferenceOptions options;
  options.batch = 2;
  g = infer_shapes(g, options);
  expect_golden(print_graph(g), "small_cnn/2_infer_shapes.txt");
  g = fold_constants(g);
  expect_golden(print_graph(g), "small_cnn/3_fold_constants.txt");
  g = fold_batch_norm(g);
  expect_golden(print_graph(g), "small_cnn/4_fold_batch_norm.txt");
  g = remove_dead_nodes(g);
  expect_golden(print_graph(g), "small_cnn/5_remove_dead_nodes.txt");
}

}  // namespace
}  // namespace tauvta::graph
