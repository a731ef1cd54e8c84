// Every libonnx-testdata node model whose operators are all in the frontend's list is imported and
// shape-inferred; the inferred dtype and shape of each graph output must equal the reference
// output_N.pb. Models the frontend rejects on purpose are listed with the message they must give.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <onnx/onnx-data_pb.h>  // SequenceProto (and onnx_pb.h)

#include "common/error.h"
#include "common/onnx_node_data.h"
#include "graph/onnx_import.h"
#include "graph/shape_inference.h"

namespace tauvta::graph {
namespace {

namespace fs = std::filesystem;
const fs::path kNodeDir = tauvta::testing::kOnnxNodeTests;

// Listed operators' node tests that need something out of scope: types a Tensor cannot hold and
// non-tensor values. (Training-mode Dropout with run-time ratio and training_mode imports and has
// known shapes; run_float refuses the random case, see tests/cpu/onnx_node_conformance_test.cpp.)
const std::map<std::string, std::string>& kRejected = tauvta::testing::onnx_tests_rejected_at_import();

// (operator, input index) pairs whose runtime value decides the output shape; the test feeds the
// reference input there as a constant, as an exporter would.
const std::set<std::pair<std::string, size_t>> kShapeOperands = {
    {"Reshape", 1}, {"Slice", 1}, {"Slice", 2}, {"Slice", 3}, {"Slice", 4}, {"Resize", 2},
    {"Resize", 3},  {"Unsqueeze", 1}, {"Squeeze", 1}, {"Pad", 1}, {"Upsample", 1},
    {"ConstantOfShape", 0}, {"Expand", 1}, {"Tile", 1}, {"Split", 1}, {"ReduceSum", 1},
    {"Range", 0}, {"Range", 1}, {"Range", 2},
};

onnx::ModelProto load_model(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromIstream(&in)) << p;
  return m;
}

onnx::TensorProto load_tensor(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  onnx::TensorProto t;
  EXPECT_TRUE(in && t.ParseFromIstream(&in)) << p;
  return t;
}

// Tests under `dir` whose operators are all in the frontend's list (names relative to `dir`'s
// parent when `with_suite`).
std::vector<std::string> listed_operator_tests(const fs::path& dir, bool with_suite) {
  std::vector<std::string> names;
  if (!fs::is_directory(dir)) return names;
  const std::vector<std::string> ops = supported_onnx_operators();
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!fs::exists(entry.path() / "model.onnx")) continue;
    const onnx::ModelProto m = load_model(entry.path() / "model.onnx");
    const bool listed = std::all_of(m.graph().node().begin(), m.graph().node().end(), [&](const onnx::NodeProto& n) {
      return std::find(ops.begin(), ops.end(), n.op_type()) != ops.end();
    });
    if (!listed || m.graph().node_size() == 0) continue;
    names.push_back(with_suite ? (dir.filename() / entry.path().filename()).string() : entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

const std::vector<std::string>& test_names() {
  static const std::vector<std::string> names = listed_operator_tests(kNodeDir, false);
  return names;
}

// ONNX's models converted from PyTorch modules (pytorch-converted, pytorch-operator).
const std::vector<std::string>& pytorch_test_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = listed_operator_tests(kNodeDir.parent_path() / "pytorch-converted", true);
    for (std::string& n : listed_operator_tests(kNodeDir.parent_path() / "pytorch-operator", true)) all.push_back(n);
    return all;
  }();
  return names;
}

onnx::SequenceProto load_sequence(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  onnx::SequenceProto s;
  EXPECT_TRUE(in && s.ParseFromIstream(&in)) << p;
  return s;
}

// Whether every dimension the inference knows agrees with `want` (an unknown rank agrees with all).
bool compatible(const ValueInfo& v, const Shape& want) {
  if (!v.known_shape) return true;
  if (v.shape.size() != want.size()) return false;
  for (size_t d = 0; d < want.size(); ++d) {
    if (v.shape[d] >= 0 && v.shape[d] != want[d]) return false;
  }
  return true;
}

// A sequence output (the graph declares one; output_N.pb is a SequenceProto): inferred as a
// sequence of the elements' dtype, with an element shape every reference element fits.
void expect_sequence_output(const ValueInfo& v, const fs::path& file) {
  ASSERT_TRUE(v.sequence) << v.name << ": inferred a tensor, the reference is a sequence";
  const onnx::SequenceProto ref = load_sequence(file);
  for (const onnx::TensorProto& t : ref.tensor_values()) {
    const Shape want(t.dims().begin(), t.dims().end());
    EXPECT_EQ(onnx_elem_type(v.dtype), t.data_type()) << v.name;
    EXPECT_TRUE(compatible(v, want)) << v.name << ": element shape " << shape_string(v.shape) << ", reference element "
                                     << shape_string(want);
  }
}

// Imports dir/model.onnx, infers shapes with the reference inputs' shapes (shape-deciding operands
// fed as constants) and compares every output with output_N.pb. A sequence input binds nothing
// (its elements' shapes are run-time facts); a sequence output is checked element by element.
void expect_reference_shapes(const fs::path& dir) {
  Graph g = import_onnx(dir / "model.onnx");
  ShapeInferenceOptions options;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const std::string name = g.inputs[i];
    if (g.info(name) != nullptr && g.info(name)->sequence) continue;
    const Tensor t = tensor_from_onnx(load_tensor(dir / "test_data_set_0" / fmt::format("input_{}.pb", i)), name);
    bool shape_operand = false;
    for (const Node& n : g.nodes) {
      for (size_t k = 0; k < n.inputs.size(); ++k) shape_operand |= n.inputs[k] == name && kShapeOperands.count({n.op_type, k});
    }
    if (shape_operand) {
      g.initializers[name] = t;
    } else {
      options.input_shapes[name] = t.shape();
    }
  }
  std::erase_if(g.inputs, [&](const std::string& n) { return g.initializers.count(n) != 0; });
  const Graph inferred = infer_shapes(g, options);
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const fs::path file = dir / "test_data_set_0" / fmt::format("output_{}.pb", i);
    const std::string& out = g.outputs[i];
    if (g.info(out) != nullptr && g.info(out)->sequence) {
      ASSERT_NE(inferred.info(out), nullptr) << out;
      expect_sequence_output(*inferred.info(out), file);
      continue;
    }
    const onnx::TensorProto ref = load_tensor(file);
    const Shape want(ref.dims().begin(), ref.dims().end());
    if (g.is_initializer(out)) {
      EXPECT_EQ(g.initializers.at(out).shape(), want) << out;
      continue;
    }
    const ValueInfo* v = inferred.info(out);
    ASSERT_NE(v, nullptr) << out;
    EXPECT_TRUE(fully_known(*v)) << out << ": " << shape_string(v->shape);
    EXPECT_EQ(shape_string(v->shape), shape_string(want)) << out;
    EXPECT_EQ(onnx_elem_type(v->dtype), ref.data_type()) << out;
  }
}

// ONNX's "simple" model cases of the sequence operators: the node tests of ONNX 1.12 only cover
// SequenceInsert (and Identity on a sequence); these cover the other seven.
const std::vector<std::string>& sequence_model_names() {
  static const std::vector<std::string> names = {"test_sequence_model1", "test_sequence_model2",
                                                 "test_sequence_model3", "test_sequence_model4",
                                                 "test_sequence_model5", "test_sequence_model6",
                                                 "test_sequence_model7", "test_sequence_model8"};
  return names;
}
const fs::path kSimpleDir = kNodeDir.parent_path() / "simple";

TEST(NodeModelShapes, CoverTheListedOperators) {
  // Guards against a silently empty parameter list (missing data, broken filter).
  ASSERT_GE(test_names().size(), 490u) << "libonnx-testdata missing under " << kNodeDir;
  std::set<std::string> seen_ops;
  for (const std::string& name : test_names()) {
    const onnx::ModelProto m = load_model(kNodeDir / name / "model.onnx");
    for (const auto& n : m.graph().node()) seen_ops.insert(n.op_type());
  }
  for (const std::string& name : sequence_model_names()) {
    const onnx::ModelProto m = load_model(kSimpleDir / name / "model.onnx");
    for (const auto& n : m.graph().node()) seen_ops.insert(n.op_type());
  }
  for (const std::string& op : supported_onnx_operators()) EXPECT_TRUE(seen_ops.count(op)) << op;
  // 16 float16/bfloat16/string casts, an optional, and 14 float16/uint16-64 variants of Max, Min,
  // Mod and Pow.
  EXPECT_EQ(kRejected.size(), 31u);
  for (const auto& [name, message] : kRejected) {
    EXPECT_TRUE(std::find(test_names().begin(), test_names().end(), name) != test_names().end()) << name;
  }
}

class NodeModelShapes : public ::testing::TestWithParam<std::string> {};

TEST_P(NodeModelShapes, InferredOutputsMatchReference) {
  const fs::path dir = kNodeDir / GetParam();
  const auto rejected = kRejected.find(GetParam());
  if (rejected != kRejected.end()) {
    try {
      import_onnx(dir / "model.onnx");
      FAIL() << "expected the import to fail with: " << rejected->second;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr(rejected->second));
      EXPECT_THAT(e.what(), ::testing::HasSubstr((dir / "model.onnx").string()));
    }
    return;
  }
  expect_reference_shapes(dir);
}

INSTANTIATE_TEST_SUITE_P(Onnx, NodeModelShapes, ::testing::ValuesIn(test_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// The sequence models (tensor inputs and outputs, sequences in between): every inferred output
// agrees with the reference, exactly except where a shape depends on what the inference does not
// track (as in ONNX's own): a sequence started by SequenceEmpty has no known element shape, and
// the joined axis of ConcatFromSequence depends on the sequence's length.
class SequenceModelShapes : public ::testing::TestWithParam<std::string> {};

TEST_P(SequenceModelShapes, InferredOutputsAgreeWithReference) {
  const fs::path dir = kSimpleDir / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << "libonnx-testdata is not installed";
  static const std::map<std::string, std::string> kPartial = {
      {"test_sequence_model1", "unranked"},
      {"test_sequence_model4", "[2,?,4]"},
      {"test_sequence_model5", "[2,3,4,?]"},
  };
  Graph g = import_onnx(dir / "model.onnx");
  ShapeInferenceOptions options;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const fs::path file = dir / "test_data_set_0" / fmt::format("input_{}.pb", i);
    const Tensor t = tensor_from_onnx(load_tensor(file), g.inputs[i]);
    options.input_shapes[g.inputs[i]] = t.shape();
  }
  const Graph inferred = infer_shapes(g, options);
  ASSERT_EQ(g.outputs.size(), 1u);
  const onnx::TensorProto ref = load_tensor(dir / "test_data_set_0" / "output_0.pb");
  const Shape want(ref.dims().begin(), ref.dims().end());
  const ValueInfo* v = inferred.info(g.outputs[0]);
  ASSERT_NE(v, nullptr);
  EXPECT_FALSE(v->sequence);
  EXPECT_EQ(onnx_elem_type(v->dtype), ref.data_type());
  EXPECT_TRUE(compatible(*v, want)) << shape_string(v->shape) << " vs " << shape_string(want);
  const std::string got = v->known_shape ? shape_string(v->shape) : "unranked";
  const auto partial = kPartial.find(GetParam());
  EXPECT_EQ(got, partial == kPartial.end() ? shape_string(want) : partial->second);
}

INSTANTIATE_TEST_SUITE_P(Onnx, SequenceModelShapes, ::testing::ValuesIn(sequence_model_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

class PytorchModelShapes : public ::testing::TestWithParam<std::string> {};

// Models of opset 9 and newer (or unchanged since), and older ones ONNX's version converter
// upgrades, must match the reference; the rest must be refused naming the opset upgrade, nothing
// else.
TEST_P(PytorchModelShapes, InferredOutputsMatchReference) {
  const fs::path dir = kNodeDir.parent_path() / GetParam();
  try {
    import_onnx(dir / "model.onnx");
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::AnyOf(::testing::HasSubstr("could not be upgraded to opset 9 by ONNX's version converter"),
                                           ::testing::HasSubstr("after ONNX's version converter upgraded the model")));
    return;
  }
  expect_reference_shapes(dir);
}

TEST(PytorchModelShapes, Found) {
  EXPECT_GE(pytorch_test_names().size(), 80u);
  size_t importable = 0;
  for (const std::string& name : pytorch_test_names()) {
    try {
      import_onnx(kNodeDir.parent_path() / name / "model.onnx");
      ++importable;
    } catch (const Error&) {
    }
  }
  EXPECT_GE(importable, 45u);  // the opset 9+ ones
}

INSTANTIATE_TEST_SUITE_P(Onnx, PytorchModelShapes, ::testing::ValuesIn(pytorch_test_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           std::replace(name.begin(), name.end(), '/', '_');
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace tauvta::graph
