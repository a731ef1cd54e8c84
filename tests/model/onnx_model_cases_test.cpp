// ONNX's own model cases (Debian's libonnx-testdata) through the model pipeline: those whose
// inputs differ in their first dimension (pytorch-operator and simple; a first dimension is a batch
// only where the model says so, so `tauvta run --float` takes them as they are and reproduces their
// outputs), and the sequence models.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <string>

#include "common/error.h"
#include "cpu/float_executor.h"
#include "io/tensor_files.h"
#include "model/pipeline.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

// Runs the case's model through the float pipeline on test_data_set_0's inputs and compares every
// output with its expected file: integers exactly, floats within ONNX's backend-test tolerance
// (rtol 1e-3, atol 1e-7; NaN equal to NaN, infinities exactly).
void expect_float_pipeline_matches(const fs::path& dir) {
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
    ASSERT_EQ(got.dtype(), want.dtype()) << g.outputs[i];
    ASSERT_EQ(got.shape(), want.shape()) << g.outputs[i];
    if (graph::dtype_is_integer(want.dtype())) {
      EXPECT_EQ(got.to_int64(), want.to_int64()) << g.outputs[i];
      continue;
    }
    const graph::Tensor a = got.cast(graph::DType::kFloat64), e = want.cast(graph::DType::kFloat64);
    for (int64_t k = 0; k < e.size(); ++k) {
      const double x = a.data<double>()[k], y = e.data<double>()[k];
      if (std::isnan(x) && std::isnan(y)) continue;
      if (std::isinf(y) && x == y) continue;
      ASSERT_LE(std::fabs(x - y), 1e-7 + 1e-3 * std::fabs(y)) << g.outputs[i] << "[" << k << "]";
    }
  }
}

class OnnxModelCase : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxModelCase, FloatPipelineTakesItAndMatches) {
  const fs::path dir = fs::path("/usr/share/libonnx-testdata/data") / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << "libonnx-testdata is not installed";
  expect_float_pipeline_matches(dir);
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

// A PyTorch export whose Sum takes three operands (Sum and Mean were refused before).
INSTANTIATE_TEST_SUITE_P(VariadicSum, OnnxModelCase,
                         ::testing::Values("pytorch-operator/test_operator_symbolic_override_nested"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.param.substr(p.param.find('/') + 1);
                         });

// ONNX's sequence models (simple/test_sequence_model1..8: tensors in and out, the sequence
// operators in between) through the model pipeline and `run_float`, within ONNX's backend-test
// tolerance (rtol 1e-3, atol 1e-7; integer outputs exactly). Quantizing them is refused before
// calibration, naming the first node that makes a sequence.
class OnnxSequenceModelCase : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxSequenceModelCase, FloatPipelineMatchesReference) {
  const fs::path dir = fs::path("/usr/share/libonnx-testdata/data/simple") / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << "libonnx-testdata is not installed";
  expect_float_pipeline_matches(dir);
}

TEST_P(OnnxSequenceModelCase, IntegerPathRefusesItNamingTheNode) {
  const fs::path dir = fs::path("/usr/share/libonnx-testdata/data/simple") / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << "libonnx-testdata is not installed";
  model::LoadOptions o;
  o.quantize = true;
  try {
    model::load_model(dir / "model.onnx", o);
    FAIL() << "quantizing a model with sequences must be refused";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("node '"), std::string::npos) << msg;
    EXPECT_NE(msg.find("is a sequence of tensors; the integer path (quantization, the integer reference, the "
                       "accelerator) carries tensors only"),
              std::string::npos)
        << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(Sequences, OnnxSequenceModelCase,
                         ::testing::Values("test_sequence_model1", "test_sequence_model2", "test_sequence_model3",
                                           "test_sequence_model4", "test_sequence_model5", "test_sequence_model6",
                                           "test_sequence_model7", "test_sequence_model8"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace tauvta
