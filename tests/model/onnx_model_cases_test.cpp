// ONNX's own model cases whose inputs differ in their first dimension (Debian's libonnx-testdata,
// pytorch-operator and simple): a first dimension is a batch only where the model says so, so the
// model pipeline (`tauvta run --float`) takes them as they are and reproduces their outputs.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <string>

#include "cpu/float_executor.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

class OnnxModelCase : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxModelCase, FloatPipelineTakesItAndMatches) {
  const fs::path dir = fs::path("/usr/share/libonnx-testdata/data") / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << "libonnx-testdata is not installed";
  model::LoadOptions o;
  o.quantize = false;
  const model::LoadedModel m = model::load_model(dir / "model.onnx", o);
  const graph::Graph& g = m.float_graph;
  cpu::TensorMap inputs;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    inputs[g.inputs[i]] = io::read_tensor_pb(dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb"));
  }
  const cpu::TensorMap out = cpu::run_float(g, inputs);
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const graph::Tensor want = io::read_tensor_pb(dir / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb"));
    const graph::Tensor& got = out.at(g.outputs[i]);
    ASSERT_EQ(got.shape(), want.shape()) << g.outputs[i];
    const std::vector<float> a = got.to_float(), e = want.to_float();
    for (size_t k = 0; k < e.size(); ++k) {
      if (std::isnan(a[k]) && std::isnan(e[k])) continue;
      if (std::isinf(e[k]) && a[k] == e[k]) continue;
      ASSERT_LE(std::fabs(a[k] - e[k]), 1e-6 + 1e-4 * std::fabs(e[k])) << g.outputs[i] << "[" << k << "]";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(DifferentFirstDimensions, OnnxModelCase,
                         ::testing::Values("pytorch-operator/test_operator_mm", "pytorch-operator/test_operator_addmm",
                                           "pytorch-operator/test_operator_add_broadcast",
                                           "pytorch-operator/test_operator_add_size1_right_broadcast",
                                           "simple/test_expand_shape_model3", "simple/test_expand_shape_model4"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param.substr(p.param.find('/') + 1);
                           for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

}  // namespace
}  // namespace tauvta
