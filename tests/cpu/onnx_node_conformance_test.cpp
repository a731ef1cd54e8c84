// ONNX's own node tests (Debian's libonnx-testdata) through the whole float path: import_onnx ->
// infer_shapes -> run_float_values (sequence inputs and outputs are SequenceProto files), compared
// with the expected outputs under the tolerances of ONNX's backend test runner
// (numpy.testing.assert_allclose, rtol 1e-3, atol 1e-7; exact for integer and bool outputs).
// Every test directory whose model uses only the operators of issue 3 is selected by reading the
// model's node types; the few whose models need something tauvta deliberately does not represent
// must be rejected with the error pinned in kExpectedErrors.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>  // with ONNX_ML=1 (set by the onnx_proto target): the onnx-ml messages

#include "common/error.h"
#include "common/onnx_node_data.h"
#include "cpu/float_executor.h"
#include "graph/graph.h"
#include "graph/onnx_import.h"
#include "graph/shape_inference.h"
#include "io/tensor_files.h"

namespace tauvta::cpu {
namespace {

namespace fs = std::filesystem;
using graph::DType;
using graph::Tensor;

const fs::path kNodeTests = tauvta::testing::kOnnxNodeTests;

// The operators of issue 3 (plus Cast, Squeeze and Slice, which exporters put in the
// Shape/Gather/Unsqueeze chains that fold to constants).
const std::set<std::string> kIssueOperators = {
    "Conv", "ConvTranspose", "Gemm", "MatMul", "Add", "Sub", "Mul", "Relu", "LeakyRelu", "PRelu", "Clip",
    "Sigmoid", "Tanh", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization",
    "Flatten", "Reshape", "Transpose", "Concat", "Pad", "Softmax", "Identity", "Dropout", "Constant", "Shape",
    "Gather", "Unsqueeze", "Squeeze", "Cast", "Slice", "Resize", "Upsample", "QuantizeLinear",
    "DequantizeLinear",
    // What the edge models and transformers added (issue 20).
    "HardSigmoid", "HardSwish", "Div", "Pow", "Mod", "Max", "Min", "Abs", "Neg", "Ceil", "Floor", "Erf", "Exp",
    "Log", "Sqrt", "Reciprocal", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "Not", "And", "Or",
    "Xor", "Where", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "LayerNormalization", "ConstantOfShape", "Range",
    "Expand", "Tile", "Split", "ScatterND",
    // Common in exported models (issue 33).
    "Elu", "Selu", "Softplus", "LogSoftmax", "InstanceNormalization", "Sign", "Shrink", "Sum", "Mean",
    // ONNX's sequence type (ONNX 1.12 has node tests for SequenceInsert and Identity on a
    // sequence only; tests/model/onnx_model_cases_test.cpp runs the others' model cases).
    "SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceErase", "SequenceAt", "SequenceLength",
    "SplitToSequence", "ConcatFromSequence"};

// Selected tests the full path must reject, with the text the error must contain: they need what
// tauvta deliberately does not represent (the import refuses them) or random training-mode
// Dropout (the import keeps the node and run_float refuses it).
const std::map<std::string, std::string> kExpectedErrors = [] {
  std::map<std::string, std::string> m = tauvta::testing::onnx_tests_rejected_at_import();
  const auto& random = tauvta::testing::onnx_tests_random_dropout();
  m.insert(random.begin(), random.end());
  return m;
}();

// Kernel-level runs (no frontend) that must fail: random Dropout.
const std::map<std::string, std::string>& kExpectedKernelErrors =
    tauvta::testing::onnx_tests_random_dropout();

bool load_model(const fs::path& path, onnx::ModelProto& m) {
  std::ifstream in(path, std::ios::binary);
  return in && m.ParseFromIstream(&in);
}

// Element types a graph::Tensor holds (ONNX codes: FLOAT, UINT8, INT8, INT16, INT32, INT64, BOOL,
// DOUBLE), as a tensor or as the elements of a sequence.
bool representable(const onnx::TypeProto& t) {
  static const std::set<int> kCodes = {1, 2, 3, 5, 6, 7, 9, 11};
  if (t.has_sequence_type()) return representable(t.sequence_type().elem_type());
  return t.has_tensor_type() && kCodes.count(t.tensor_type().elem_type()) > 0;
}

// A test's value file: a SequenceProto where the model declares a sequence, else a TensorProto
// (the bytes do not tell them apart).
graph::Value read_value_file(const fs::path& file, const onnx::TypeProto& declared) {
  if (!declared.has_sequence_type()) return io::read_tensor_pb(file);
  const int code = declared.sequence_type().elem_type().tensor_type().elem_type();
  return io::read_sequence_pb(file, graph::dtype_from_onnx_elem_type(code, file.string()));
}

struct Discovery {
  std::vector<std::string> selected;  // models using only the issue's operators
  std::vector<std::string> skipped;   // models using another operator
  // Selected, with every input and output a tensor or a sequence of tensors of a representable
  // element type.
  std::vector<std::string> kernel_level;
};

const Discovery& discover() {
  static const Discovery d = [] {
    Discovery out;
    std::error_code ec;
    if (!fs::is_directory(kNodeTests, ec)) return out;
    std::vector<std::string> dirs;
    for (const auto& e : fs::directory_iterator(kNodeTests)) {
      if (e.is_directory() && fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path().filename().string());
    }
    std::sort(dirs.begin(), dirs.end());
    for (const std::string& dir : dirs) {
      onnx::ModelProto m;
      bool ours = load_model(kNodeTests / dir / "model.onnx", m) && m.graph().node_size() > 0;
      for (const auto& n : m.graph().node()) ours = ours && kIssueOperators.count(n.op_type()) > 0;
      (ours ? out.selected : out.skipped).push_back(dir);
      if (!ours) continue;
      bool plain = true;
      for (const auto& v : m.graph().input()) plain = plain && representable(v.type());
      for (const auto& v : m.graph().output()) plain = plain && representable(v.type());
      for (const auto& n : m.graph().node()) {
        for (const auto& a : n.attribute()) {
          if (n.op_type() == "Cast" && a.name() == "to") plain = plain && representable([&] {
            onnx::TypeProto t;
            t.mutable_tensor_type()->set_elem_type(int32_t(a.i()));
            return t;
          }());
        }
      }
      if (plain) out.kernel_level.push_back(dir);
    }
    return out;
  }();
  return d;
}

std::vector<fs::path> numbered_files(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (int i = 0; fs::exists(dir / fmt::format("{}_{}.pb", prefix, i)); ++i) {
    files.push_back(dir / fmt::format("{}_{}.pb", prefix, i));
  }
  return files;
}

// Imports, infers shapes for the given inputs and runs the float reference on test_data_set_0.
// Sequence inputs (as the imported graph declares them) are read as SequenceProtos and bind no
// shape.
ValueMap run_case(const fs::path& dir, graph::Graph& g) {
  g = graph::import_onnx(dir / "model.onnx");
  const fs::path data = dir / "test_data_set_0";
  const std::vector<fs::path> input_files = numbered_files(data, "input");
  ValueMap inputs;
  graph::ShapeInferenceOptions options;
  if (input_files.size() != g.inputs.size()) {
    throw Error(fmt::format("{} input files for {} graph inputs", input_files.size(), g.inputs.size()));
  }
  for (size_t i = 0; i < input_files.size(); ++i) {
    const graph::ValueInfo* declared = g.info(g.inputs[i]);
    if (declared != nullptr && declared->sequence) {
      inputs[g.inputs[i]] = io::read_sequence_pb(input_files[i], declared->dtype);
      continue;
    }
    Tensor t = io::read_tensor_pb(input_files[i]);
    options.input_shapes[g.inputs[i]] = t.shape();
    inputs[g.inputs[i]] = std::move(t);
  }
  g = graph::infer_shapes(g, options);
  return run_float_values(g, inputs);
}

// numpy.testing.assert_allclose(actual, expected, rtol, atol) with NaNs equal; exact otherwise.
std::string compare(const std::string& name, const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape()) {
    return fmt::format("output '{}': got {}{}, expected {}{}", name, graph::dtype_name(actual.dtype()),
                       graph::shape_string(actual.shape()), graph::dtype_name(expected.dtype()),
                       graph::shape_string(expected.shape()));
  }
  const double rtol = 1e-3, atol = 1e-7;
  int64_t bad = 0, first = -1;
  double worst = 0;
  if (!graph::dtype_is_integer(actual.dtype())) {
    const std::vector<float> a = actual.to_float();
    std::vector<double> e;
    if (expected.dtype() == DType::kFloat64) {
      e.assign(expected.data<double>(), expected.data<double>() + expected.size());
    } else {
      for (float f : expected.to_float()) e.push_back(f);
    }
    std::vector<double> av;
    if (actual.dtype() == DType::kFloat64) {
      av.assign(actual.data<double>(), actual.data<double>() + actual.size());
    } else {
      av.assign(a.begin(), a.end());
    }
    for (size_t i = 0; i < e.size(); ++i) {
      const bool both_nan = std::isnan(av[i]) && std::isnan(e[i]);
      const double err = std::fabs(av[i] - e[i]);
      if (!both_nan && !(err <= atol + rtol * std::fabs(e[i]))) {
        if (first < 0) first = int64_t(i);
        ++bad;
        worst = std::max(worst, err);
      }
    }
    if (bad == 0) return "";
    return fmt::format("output '{}': {} of {} elements differ (max abs error {:g}); first at {}: got {:g}, expected {:g}",
                       name, bad, e.size(), worst, first, av[size_t(first)], e[size_t(first)]);
  }
  const std::vector<int64_t> a = actual.to_int64(), e = expected.to_int64();
  for (size_t i = 0; i < e.size(); ++i) {
    if (a[i] != e[i]) {
      if (first < 0) first = int64_t(i);
      ++bad;
    }
  }
  if (bad == 0) return "";
  return fmt::format("output '{}': {} of {} elements differ; first at {}: got {}, expected {}", name, bad, e.size(),
                     first, a[size_t(first)], e[size_t(first)]);
}

// compare() for values: a sequence matches element by element (and in length).
std::string compare_values(const std::string& name, const graph::Value& actual, const graph::Value& expected) {
  const auto* a = std::get_if<graph::TensorSequence>(&actual);
  const auto* e = std::get_if<graph::TensorSequence>(&expected);
  if ((a == nullptr) != (e == nullptr)) {
    return fmt::format("output '{}': got a {}, expected a {}", name, a ? "sequence" : "tensor",
                       e ? "sequence" : "tensor");
  }
  if (a == nullptr) return compare(name, std::get<Tensor>(actual), std::get<Tensor>(expected));
  if (a->dtype != e->dtype || a->length() != e->length()) {
    return fmt::format("output '{}': got a {}, expected a {}", name, a->describe(), e->describe());
  }
  for (size_t k = 0; k < a->tensors.size(); ++k) {
    const std::string diff = compare(fmt::format("{}[{}]", name, k), a->tensors[k], e->tensors[k]);
    if (!diff.empty()) return diff;
  }
  return "";
}

// The declared type of every graph output of a test's model, in order.
std::vector<onnx::TypeProto> output_types(const fs::path& dir) {
  onnx::ModelProto m;
  if (!load_model(dir / "model.onnx", m)) throw Error("model.onnx does not parse");
  std::vector<onnx::TypeProto> types;
  for (const auto& v : m.graph().output()) types.push_back(v.type());
  return types;
}

class OnnxNodeConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeConformance, MatchesReferenceOutputs) {
  const std::string name = GetParam();
  const fs::path dir = kNodeTests / name;
  graph::Graph g;
  auto expected_error = kExpectedErrors.find(name);
  if (expected_error != kExpectedErrors.end()) {
    try {
      run_case(dir, g);
      FAIL() << "expected an error containing \"" << expected_error->second << "\"";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected_error->second), std::string::npos) << e.what();
    }
    return;
  }
  ValueMap outputs;
  try {
    outputs = run_case(dir, g);
  } catch (const Error& e) {
    FAIL() << e.what();
  }
  const std::vector<fs::path> output_files = numbered_files(dir / "test_data_set_0", "output");
  ASSERT_EQ(output_files.size(), g.outputs.size());
  const std::vector<onnx::TypeProto> types = output_types(dir);
  ASSERT_EQ(types.size(), g.outputs.size());
  for (size_t i = 0; i < output_files.size(); ++i) {
    const graph::Value expected = read_value_file(output_files[i], types[i]);
    ASSERT_TRUE(outputs.count(g.outputs[i])) << g.outputs[i];
    const std::string diff = compare_values(g.outputs[i], outputs.at(g.outputs[i]), expected);
    EXPECT_TRUE(diff.empty()) << diff;
  }
}

INSTANTIATE_TEST_SUITE_P(Node, OnnxNodeConformance, ::testing::ValuesIn(discover().selected),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OnnxNodeConformance);


// Kernel level: every node of the model through eval_float_node_values in file order, attributes
// and initializers taken from the protobuf as they are (no frontend normalization, no shape
// inference), so the kernels are checked against the reference data on their own.
graph::Node node_from_proto(const onnx::NodeProto& p, size_t index) {
  graph::Node n;
  n.name = p.name().empty() ? fmt::format("node{}", index) : p.name();
  n.op_type = p.op_type();
  n.inputs.assign(p.input().begin(), p.input().end());
  n.outputs.assign(p.output().begin(), p.output().end());
  for (const auto& a : p.attribute()) {
    switch (a.type()) {
      case onnx::AttributeProto::FLOAT: n.attrs[a.name()] = a.f(); break;
      case onnx::AttributeProto::INT: n.attrs[a.name()] = int64_t(a.i()); break;
      case onnx::AttributeProto::STRING: n.attrs[a.name()] = a.s(); break;
      case onnx::AttributeProto::FLOATS: n.attrs[a.name()] = std::vector<float>(a.floats().begin(), a.floats().end()); break;
      case onnx::AttributeProto::INTS: n.attrs[a.name()] = std::vector<int64_t>(a.ints().begin(), a.ints().end()); break;
      case onnx::AttributeProto::TENSOR: n.attrs[a.name()] = graph::tensor_from_onnx(a.t(), a.name()); break;
      default: throw Error(fmt::format("attribute '{}' of type {} in the test model", a.name(), int(a.type())));
    }
  }
  return n;
}

std::vector<graph::Value> run_nodes(const fs::path& dir) {
  onnx::ModelProto m;
  if (!load_model(dir / "model.onnx", m)) throw Error("model.onnx does not parse");
  int64_t opset = 1;
  for (const auto& o : m.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  }
  std::map<std::string, graph::Value> env;
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) {
    env[t.name()] = graph::tensor_from_onnx(t, t.name());
    inits.insert(t.name());
  }
  const std::vector<fs::path> input_files = numbered_files(dir / "test_data_set_0", "input");
  size_t next = 0;
  for (const auto& v : m.graph().input()) {
    if (inits.count(v.name())) continue;
    if (next >= input_files.size()) throw Error("fewer input files than graph inputs");
    env[v.name()] = read_value_file(input_files[next++], v.type());
  }
  for (int i = 0; i < m.graph().node_size(); ++i) {
    const graph::Node n = node_from_proto(m.graph().node(i), size_t(i));
    std::vector<const graph::Value*> args;
    for (const std::string& in : n.inputs) args.push_back(in.empty() ? nullptr : &env.at(in));
    std::vector<graph::Value> outs = eval_float_node_values(n, args, opset);
    for (size_t k = 0; k < outs.size() && k < n.outputs.size(); ++k) {
      if (!n.outputs[k].empty()) env[n.outputs[k]] = std::move(outs[k]);
    }
  }
  std::vector<graph::Value> result;
  for (const auto& v : m.graph().output()) result.push_back(env.at(v.name()));
  return result;
}

class OnnxNodeKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeKernels, MatchesReferenceOutputs) {
  const std::string name = GetParam();
  const fs::path dir = kNodeTests / name;
  auto expected_error = kExpectedKernelErrors.find(name);
  if (expected_error != kExpectedKernelErrors.end()) {
    try {
      run_nodes(dir);
      FAIL() << "expected an error containing \"" << expected_error->second << "\"";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected_error->second), std::string::npos) << e.what();
    }
    return;
  }
  std::vector<graph::Value> outputs;
  try {
    outputs = run_nodes(dir);
  } catch (const Error& e) {
    FAIL() << e.what();
  }
  const std::vector<fs::path> output_files = numbered_files(dir / "test_data_set_0", "output");
  ASSERT_EQ(output_files.size(), outputs.size());
  const std::vector<onnx::TypeProto> types = output_types(dir);
  for (size_t i = 0; i < output_files.size(); ++i) {
    const std::string diff =
        compare_values(fmt::format("#{}", i), outputs[i], read_value_file(output_files[i], types.at(i)));
    EXPECT_TRUE(diff.empty()) << diff;
  }
}

INSTANTIATE_TEST_SUITE_P(Node, OnnxNodeKernels, ::testing::ValuesIn(discover().kernel_level),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OnnxNodeKernels);

// The selection itself: the data must be installed and the count is pinned (Debian's
// libonnx-testdata 1.12), so a change in discovery or data is noticed; every expected error names
// a selected test.
TEST(OnnxNodeConformanceSelection, FindsEveryTestOfTheIssueOperators) {
  ASSERT_TRUE(fs::is_directory(kNodeTests)) << kNodeTests << " is missing: install libonnx-testdata";
  const Discovery& d = discover();
  EXPECT_EQ(d.selected.size(), 526u);
  // All but float16/bfloat16/string/unsigned 16-64-bit elements and optional values (sequences of
  // tensors included: test_identity_sequence, test_sequence_insert_at_back and _at_front).
  EXPECT_EQ(d.kernel_level.size(), 526u - 31u);
  EXPECT_EQ(d.selected.size() + d.skipped.size(), 932u);
  // 491 of the 526 pass on the full path; 31 unrepresentable, 4 random Dropout.
  EXPECT_EQ(kExpectedErrors.size(), 35u);
  for (const auto& [dir, message] : kExpectedErrors) {
    EXPECT_TRUE(std::find(d.selected.begin(), d.selected.end(), dir) != d.selected.end()) << dir;
  }
}

}  // namespace
}  // namespace tauvta::cpu
