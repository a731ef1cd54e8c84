// The float reference against torch: each model goes through the pipeline's float passes
// (import, shape inference, constant folding, batch-norm folding, dead-node removal) and
// run_float, and its output must match what torch computed for the same input when the model was
// exported (cosine >= 0.9999, max abs error within 1e-3 of the output's range).
//
// Models and their NAME_input.npy / NAME_output.npy are looked up in $TAUVTA_MODELS_DIR, then
// build/models, then models/. The trained VGG-7 is committed under models/ and must always be
// there; the others come from scripts/make-models (scripts/test runs it before ctest), and a
// missing one fails the test with that instruction rather than skipping.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cpu/float_executor.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"

namespace tauvta::model {
namespace {

namespace fs = std::filesystem;

struct TorchModel {
  const char* name;
  bool committed;  // in models/ in the repository; otherwise made by scripts/make-models
};

void PrintTo(const TorchModel& m, std::ostream* os) { *os << m.name; }

std::vector<fs::path> search_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("TAUVTA_MODELS_DIR"); env && *env) dirs.emplace_back(env);
  dirs.push_back(fs::path(TAUVTA_SOURCE_DIR) / "build" / "models");
  dirs.push_back(fs::path(TAUVTA_SOURCE_DIR) / "models");
  return dirs;
}

// The first directory holding all three files of `name`, or empty.
fs::path find_model_dir(const std::string& name) {
  for (const fs::path& d : search_dirs()) {
    if (fs::exists(d / (name + ".onnx")) && fs::exists(d / (name + "_input.npy")) &&
        fs::exists(d / (name + "_output.npy"))) {
      return d;
    }
  }
  return {};
}

class TorchMatch : public ::testing::TestWithParam<TorchModel> {};

TEST_P(TorchMatch, FloatReferenceMatchesTorch) {
  const TorchModel& m = GetParam();
  const std::string name = m.name;
  const fs::path dir = find_model_dir(name);
  if (dir.empty()) {
    std::string where;
    for (const fs::path& d : search_dirs()) where += (where.empty() ? "" : ", ") + d.string();
    if (m.committed) {
      FAIL() << "committed model models/" << name << ".onnx (with " << name << "_input.npy and " << name
             << "_output.npy) is missing from " << where << "; it is part of the repository (regenerate with "
             << "/usr/bin/python3 models/train_vgg7.py)";
    }
    FAIL() << name << ".onnx with " << name << "_input.npy and " << name << "_output.npy not found in " << where
           << "; run scripts/make-models to generate it (writes build/models, or $TAUVTA_MODELS_DIR)";
  }

  const graph::Tensor input = io::read_npy(dir / (name + "_input.npy"));
  const graph::Tensor want = io::read_npy(dir / (name + "_output.npy"));
  LoadOptions options;
  options.batch = input.rank() > 0 ? input.shape()[0] : 0;
  const LoadedModel loaded = load_model(dir / (name + ".onnx"), options);
  const graph::Graph& g = loaded.float_graph;
  ASSERT_EQ(g.inputs.size(), 1u);
  ASSERT_EQ(g.outputs.size(), 1u);

  const cpu::TensorMap outputs = cpu::run_float(g, {{g.inputs[0], input}});
  const graph::Tensor& got = outputs.at(g.outputs[0]);
  ASSERT_EQ(got.dtype(), graph::DType::kFloat32);
  ASSERT_EQ(got.shape(), want.shape()) << name;

  double dot = 0, ng = 0, nw = 0, max_err = 0, max_ref = 0;
  for (int64_t i = 0; i < got.size(); ++i) {
    const double a = got.floats()[size_t(i)], b = want.floats()[size_t(i)];
    dot += a * b;
    ng += a * a;
    nw += b * b;
    max_err = std::max(max_err, std::abs(a - b));
    max_ref = std::max(max_ref, std::abs(b));
  }
  const double cosine = dot / std::sqrt(ng * nw);
  std::cout << fmt::format("[torch-match] {}: {} nodes, output {}, cosine {:.9f} (1 - cosine {:.2g}), max abs error {:.3g} "
                           "(max |torch| {:.3g})\n",
                           name, g.nodes.size(), graph::shape_string(got.shape()), cosine, 1 - cosine, max_err, max_ref);
  RecordProperty("cosine", fmt::format("{:.9f}", cosine));
  RecordProperty("max_abs_error", fmt::format("{:.3g}", max_err));
  EXPECT_GE(cosine, 0.9999) << name;
  EXPECT_LE(max_err, 1e-3 * std::max(1.0, max_ref)) << name;
}

INSTANTIATE_TEST_SUITE_P(Models, TorchMatch,
                         ::testing::Values(TorchModel{"vgg7_fmnist", true}, TorchModel{"resnet18", false},
                                           TorchModel{"mobilenetv2", false}, TorchModel{"dcgan_generator", false},
                                           TorchModel{"vgg7", false}),
                         [](const ::testing::TestParamInfo<TorchModel>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace tauvta::model
