// The sequence operators (SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceErase,
// SequenceAt, SequenceLength, SplitToSequence, ConcatFromSequence, and Identity on a sequence),
// hand-computed: default and negative positions, every position just inside and just outside the
// range, the split forms, stacking and joining, and the one-line errors naming the node, the
// position and the sequence's length. Then sequences through run_float / run_float_values.
#include "common/error.h"
#include "common/error_of.h"
#include "float_test_util.h"
#include "graph/shape_inference.h"

namespace tauvta::cpu {
namespace {

using namespace testing_util;
using graph::Graph;
using graph::TensorSequence;
using graph::Value;
using tauvta::testing::error_of;

// Evaluates `op` on values (nullptr: an omitted optional input); the node is 'n_<op>' with inputs
// in0, in1, ... and output out0.
std::vector<Value> eval_values(const std::string& op, const std::vector<const Value*>& inputs,
                               std::map<std::string, AttrValue> attrs = {}) {
  Node n = make_node(op, inputs.size(), std::move(attrs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr) n.inputs[i].clear();
  }
  return eval_float_node_values(n, inputs, 17);
}

const TensorSequence& as_sequence(const Value& v) { return std::get<TensorSequence>(v); }
const Tensor& as_tensor(const Value& v) { return std::get<Tensor>(v); }

TensorSequence sequence_of(std::vector<Tensor> tensors, DType dtype = DType::kFloat32) {
  TensorSequence s;
  s.dtype = dtype;
  s.tensors = std::move(tensors);
  return s;
}

Value position(int64_t p, DType t = DType::kInt64) { return Tensor::from_int64(t, {}, {p}); }

// [1], [2,3], [4,5,6]: three float32 tensors of different shapes.
Value abc() {
  return sequence_of(
      {Tensor::from_floats({1}, {1}), Tensor::from_floats({2}, {2, 3}), Tensor::from_floats({3}, {4, 5, 6})});
}

// ---- SequenceEmpty, SequenceConstruct, SequenceLength ----

TEST(FloatSequenceOps, SequenceEmptyHasTheGivenDtypeOrFloat) {
  const Value empty = eval_values("SequenceEmpty", {}).at(0);
  EXPECT_EQ(as_sequence(empty), sequence_of({}, DType::kFloat32));
  const Value ints = eval_values("SequenceEmpty", {}, {{"dtype", int64_t(7)}}).at(0);
  EXPECT_EQ(as_sequence(ints), sequence_of({}, DType::kInt64));
  EXPECT_EQ(as_tensor(eval_values("SequenceLength", {&ints}).at(0)), Tensor::from_int64(DType::kInt64, {}, {0}));
  EXPECT_EQ(error_of([] { eval_values("SequenceEmpty", {}, {{"dtype", int64_t(10)}}); }),
            "node 'n_SequenceEmpty' (SequenceEmpty): attribute 'dtype': element type FLOAT16 is not supported "
            "(supported: FLOAT, DOUBLE, INT8, UINT8, INT16, INT32, INT64, BOOL)");
}

TEST(FloatSequenceOps, SequenceConstructKeepsOrderAndShapes) {
  const Value a = Tensor::from_floats({1}, {1}), b = Tensor::from_floats({2}, {2, 3});
  const Value c = Tensor::from_floats({3}, {4, 5, 6});
  const Value s = eval_values("SequenceConstruct", {&a, &b, &c}).at(0);
  EXPECT_EQ(as_sequence(s), as_sequence(abc()));
  EXPECT_EQ(as_tensor(eval_values("SequenceLength", {&s}).at(0)), Tensor::from_int64(DType::kInt64, {}, {3}));
  const Value i = Tensor::from_int64(DType::kInt64, {1}, {7});
  EXPECT_EQ(error_of([&] { eval_values("SequenceConstruct", {&a, &i}); }),
            "node 'n_SequenceConstruct' (SequenceConstruct): input 1 ('in1') is int64, the sequence holds float32 "
            "tensors");
}

// ---- SequenceInsert ----

TEST(FloatSequenceOps, SequenceInsertAtTheBackByDefaultAndAtAnyPosition) {
  const Value s = abc();
  const Value x = Tensor::from_floats({2}, {9, 9});
  const TensorSequence& in = as_sequence(s);
  auto inserted_at = [&](size_t k) {
    TensorSequence want = in;
    want.tensors.insert(want.tensors.begin() + int64_t(k), as_tensor(x));
    return want;
  };
  EXPECT_EQ(as_sequence(eval_values("SequenceInsert", {&s, &x}).at(0)), inserted_at(3));
  const Value p0 = position(0), p3 = position(3), m1 = position(-1), m3 = position(-3, DType::kInt32);
  EXPECT_EQ(as_sequence(eval_values("SequenceInsert", {&s, &x, &p0}).at(0)), inserted_at(0));
  EXPECT_EQ(as_sequence(eval_values("SequenceInsert", {&s, &x, &p3}).at(0)), inserted_at(3));  // length: append
  EXPECT_EQ(as_sequence(eval_values("SequenceInsert", {&s, &x, &m1}).at(0)), inserted_at(2));  // before the last
  EXPECT_EQ(as_sequence(eval_values("SequenceInsert", {&s, &x, &m3}).at(0)), inserted_at(0));
  // Shape [1] as ONNX's test_sequence_insert_at_front writes it.
  const Value one = Tensor::from_int64(DType::kInt64, {1}, {1});
  EXPECT_EQ(as_sequence(eval_values("SequenceInsert", {&s, &x, &one}).at(0)), inserted_at(1));
  EXPECT_EQ(as_sequence(s), as_sequence(abc()));  // the input sequence is a value: unchanged
  // Into an empty sequence: position 0 (or none) only.
  const Value empty = sequence_of({});
  EXPECT_EQ(as_sequence(eval_values("SequenceInsert", {&empty, &x, &p0}).at(0)).tensors,
            std::vector<Tensor>{as_tensor(x)});
}

TEST(FloatSequenceOps, SequenceInsertRefusesPositionsOutOfRangeAndOtherDtypes) {
  const Value s = abc(), x = Tensor::from_floats({1}, {9});
  const Value p4 = position(4), m4 = position(-4), f = Tensor::from_floats({}, {0});
  const Value two = Tensor::from_int64(DType::kInt64, {2}, {0, 1});
  EXPECT_EQ(error_of([&] { eval_values("SequenceInsert", {&s, &x, &p4}); }),
            "node 'n_SequenceInsert' (SequenceInsert): position 4 is out of range for a sequence of length 3 "
            "(valid: -3 to 3)");
  EXPECT_EQ(error_of([&] { eval_values("SequenceInsert", {&s, &x, &m4}); }),
            "node 'n_SequenceInsert' (SequenceInsert): position -4 is out of range for a sequence of length 3 "
            "(valid: -3 to 3)");
  EXPECT_EQ(error_of([&] { eval_values("SequenceInsert", {&s, &x, &f}); }),
            "node 'n_SequenceInsert' (SequenceInsert): input 2 has dtype float32; this kernel takes int32 or int64");
  EXPECT_EQ(error_of([&] { eval_values("SequenceInsert", {&s, &x, &two}); }),
            "node 'n_SequenceInsert' (SequenceInsert): position ('in2') has shape [2], expected a scalar");
  const Value i = Tensor::from_int64(DType::kInt64, {1}, {1});
  EXPECT_EQ(error_of([&] { eval_values("SequenceInsert", {&s, &i}); }),
            "node 'n_SequenceInsert' (SequenceInsert): input 1 ('in1') is int64, the sequence holds float32 tensors");
  EXPECT_EQ(error_of([&] { eval_values("SequenceInsert", {&x, &x}); }),
            "node 'n_SequenceInsert' (SequenceInsert): input 0 ('in0') is a tensor, expected a sequence");
  EXPECT_EQ(error_of([&] { eval_values("SequenceInsert", {&s, &s}); }),
            "node 'n_SequenceInsert' (SequenceInsert): input 1 ('in1') is a sequence of tensors, expected a tensor");
}

// ---- SequenceErase ----

TEST(FloatSequenceOps, SequenceEraseTheLastByDefaultAndAtAnyPosition) {
  const Value s = abc();
  const TensorSequence& in = as_sequence(s);
  auto erased_at = [&](size_t k) {
    TensorSequence want = in;
    want.tensors.erase(want.tensors.begin() + int64_t(k));
    return want;
  };
  EXPECT_EQ(as_sequence(eval_values("SequenceErase", {&s}).at(0)), erased_at(2));
  const Value p0 = position(0), p2 = position(2), m1 = position(-1), m3 = position(-3);
  EXPECT_EQ(as_sequence(eval_values("SequenceErase", {&s, &p0}).at(0)), erased_at(0));
  EXPECT_EQ(as_sequence(eval_values("SequenceErase", {&s, &p2}).at(0)), erased_at(2));
  EXPECT_EQ(as_sequence(eval_values("SequenceErase", {&s, &m1}).at(0)), erased_at(2));
  EXPECT_EQ(as_sequence(eval_values("SequenceErase", {&s, &m3}).at(0)), erased_at(0));
  EXPECT_EQ(as_sequence(s), as_sequence(abc()));
}

TEST(FloatSequenceOps, SequenceEraseRefusesPositionsOutOfRangeAndEmptySequences) {
  const Value s = abc(), p3 = position(3), m4 = position(-4), p0 = position(0), empty = sequence_of({});
  EXPECT_EQ(error_of([&] { eval_values("SequenceErase", {&s, &p3}); }),
            "node 'n_SequenceErase' (SequenceErase): position 3 is out of range for a sequence of length 3 (valid: "
            "-3 to 2)");
  EXPECT_EQ(error_of([&] { eval_values("SequenceErase", {&s, &m4}); }),
            "node 'n_SequenceErase' (SequenceErase): position -4 is out of range for a sequence of length 3 (valid: "
            "-3 to 2)");
  EXPECT_EQ(error_of([&] { eval_values("SequenceErase", {&empty}); }),
            "node 'n_SequenceErase' (SequenceErase): the sequence is empty; there is no last tensor to erase");
  EXPECT_EQ(error_of([&] { eval_values("SequenceErase", {&empty, &p0}); }),
            "node 'n_SequenceErase' (SequenceErase): position 0 is out of range for a sequence of length 0 (valid: "
            "none, the sequence is empty)");
}

// ---- SequenceAt ----

TEST(FloatSequenceOps, SequenceAtCountsNegativePositionsFromTheBack) {
  const Value s = abc();
  const std::vector<Tensor>& t = as_sequence(s).tensors;
  for (int64_t p : {0, 1, 2}) {
    const Value v = position(p), neg = position(p - 3, DType::kInt32);
    EXPECT_EQ(as_tensor(eval_values("SequenceAt", {&s, &v}).at(0)), t[size_t(p)]) << p;
    EXPECT_EQ(as_tensor(eval_values("SequenceAt", {&s, &neg}).at(0)), t[size_t(p)]) << p - 3;
  }
}

TEST(FloatSequenceOps, SequenceAtRefusesPositionsOutOfRange) {
  const Value s = abc(), p3 = position(3), m4 = position(-4), empty = sequence_of({}), p0 = position(0);
  EXPECT_EQ(error_of([&] { eval_values("SequenceAt", {&s, &p3}); }),
            "node 'n_SequenceAt' (SequenceAt): position 3 is out of range for a sequence of length 3 (valid: -3 to 2)");
  EXPECT_EQ(error_of([&] { eval_values("SequenceAt", {&s, &m4}); }),
            "node 'n_SequenceAt' (SequenceAt): position -4 is out of range for a sequence of length 3 (valid: -3 to "
            "2)");
  EXPECT_EQ(error_of([&] { eval_values("SequenceAt", {&empty, &p0}); }),
            "node 'n_SequenceAt' (SequenceAt): position 0 is out of range for a sequence of length 0 (valid: none, "
            "the sequence is empty)");
  EXPECT_EQ(error_of([&] { eval_values("SequenceAt", {&s}); }),
            "node 'n_SequenceAt' (SequenceAt): input 1 is required but missing");
}

// ---- SplitToSequence ----

// x = [[1,2,3,4,5],[6,7,8,9,10]]
Value x2x5() { return iota({2, 5}); }

std::vector<Tensor> split_pieces(const Value& x, const Value* split, std::map<std::string, AttrValue> attrs) {
  std::vector<const Value*> in = {&x};
  if (split != nullptr) in.push_back(split);
  return as_sequence(eval_values("SplitToSequence", in, std::move(attrs)).at(0)).tensors;
}

TEST(FloatSequenceOps, SplitToSequenceWithoutSplitCutsPiecesOfOne) {
  const Value x = x2x5();
  std::vector<Tensor> p = split_pieces(x, nullptr, {{"axis", int64_t(1)}});
  ASSERT_EQ(p.size(), 5u);
  for (size_t k = 0; k < 5; ++k) EXPECT_TRUE(near(p[k], {2, 1}, {float(k + 1), float(k + 6)})) << k;
  p = split_pieces(x, nullptr, {{"axis", int64_t(-1)}, {"keepdims", int64_t(0)}});  // the axis is dropped
  ASSERT_EQ(p.size(), 5u);
  for (size_t k = 0; k < 5; ++k) EXPECT_TRUE(near(p[k], {2}, {float(k + 1), float(k + 6)})) << k;
  p = split_pieces(x, nullptr, {});  // axis 0, keepdims 1
  ASSERT_EQ(p.size(), 2u);
  EXPECT_TRUE(near(p[0], {1, 5}, {1, 2, 3, 4, 5}));
  EXPECT_TRUE(near(p[1], {1, 5}, {6, 7, 8, 9, 10}));
  // A dimension of size 0 makes an empty sequence, still of the input's dtype.
  const Value empty_x = Tensor(DType::kInt32, {0, 3});
  const Value s = eval_values("SplitToSequence", {&empty_x}).at(0);
  EXPECT_EQ(as_sequence(s), sequence_of({}, DType::kInt32));
}

TEST(FloatSequenceOps, SplitToSequenceWithAScalarSplitLeavesASmallerLastPiece) {
  const Value x = x2x5();
  const Value two = Tensor::from_int64(DType::kInt64, {}, {2});
  // keepdims applies only without split: the axis stays.
  std::vector<Tensor> p = split_pieces(x, &two, {{"axis", int64_t(1)}, {"keepdims", int64_t(0)}});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_TRUE(near(p[0], {2, 2}, {1, 2, 6, 7}));
  EXPECT_TRUE(near(p[1], {2, 2}, {3, 4, 8, 9}));
  EXPECT_TRUE(near(p[2], {2, 1}, {5, 10}));
  const Value seven = Tensor::from_int64(DType::kInt32, {}, {7});  // larger than the axis: one piece
  p = split_pieces(x, &seven, {{"axis", int64_t(1)}});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], as_tensor(x));
}

TEST(FloatSequenceOps, SplitToSequenceWithAListOfSizes) {
  const Value x = x2x5();
  const Value sizes = Tensor::from_int64(DType::kInt32, {2}, {1, 4});
  std::vector<Tensor> p = split_pieces(x, &sizes, {{"axis", int64_t(1)}});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_TRUE(near(p[0], {2, 1}, {1, 6}));
  EXPECT_TRUE(near(p[1], {2, 4}, {2, 3, 4, 5, 7, 8, 9, 10}));
  const Value with_zero = Tensor::from_int64(DType::kInt64, {2}, {0, 5});
  p = split_pieces(x, &with_zero, {{"axis", int64_t(-1)}});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].shape(), (Shape{2, 0}));
  EXPECT_EQ(p[1], as_tensor(x));
}

TEST(FloatSequenceOps, SplitToSequenceErrors) {
  const Value x = x2x5();
  const Value short_list = Tensor::from_int64(DType::kInt64, {2}, {1, 3});
  const Value negative = Tensor::from_int64(DType::kInt64, {2}, {-1, 6});
  const Value zero = Tensor::from_int64(DType::kInt64, {}, {0});
  const Value matrix = Tensor::from_int64(DType::kInt64, {1, 1}, {5});
  const Value scalar = Tensor::from_floats({}, {2});
  EXPECT_EQ(error_of([&] { split_pieces(x, &short_list, {{"axis", int64_t(1)}}); }),
            "node 'n_SplitToSequence' (SplitToSequence): split [1,3] sums to 4, but dimension 1 has size 5");
  EXPECT_EQ(error_of([&] { split_pieces(x, &negative, {{"axis", int64_t(1)}}); }),
            "node 'n_SplitToSequence' (SplitToSequence): split [-1,6] has a negative size");
  EXPECT_EQ(error_of([&] { split_pieces(x, &zero, {{"axis", int64_t(1)}}); }),
            "node 'n_SplitToSequence' (SplitToSequence): split 0 must be positive (the size of every piece)");
  EXPECT_EQ(error_of([&] { split_pieces(x, &matrix, {{"axis", int64_t(1)}}); }),
            "node 'n_SplitToSequence' (SplitToSequence): split has shape [1,1], expected a scalar or a 1-D tensor");
  EXPECT_EQ(error_of([&] { split_pieces(x, &scalar, {}); }),
            "node 'n_SplitToSequence' (SplitToSequence): input 1 has dtype float32; this kernel takes int32 or int64");
  EXPECT_EQ(error_of([&] { split_pieces(x, nullptr, {{"axis", int64_t(2)}}); }),
            "node 'n_SplitToSequence' (SplitToSequence): axis 2 is out of range for rank 2");
  EXPECT_EQ(error_of([&] { split_pieces(scalar, nullptr, {}); }),
            "node 'n_SplitToSequence' (SplitToSequence): input 0 is a scalar; there is no axis to split along");
}

// ---- ConcatFromSequence ----

Tensor concat_of(const Value& s, std::map<std::string, AttrValue> attrs) {
  return as_tensor(eval_values("ConcatFromSequence", {&s}, std::move(attrs)).at(0));
}

TEST(FloatSequenceOps, ConcatFromSequenceJoinsAlongAnExistingAxis) {
  // [[1],[2]] and [[3,4],[5,6]] along axis 1 (or -1).
  const Value s = sequence_of({Tensor::from_floats({2, 1}, {1, 2}), Tensor::from_floats({2, 2}, {3, 4, 5, 6})});
  EXPECT_TRUE(near(concat_of(s, {{"axis", int64_t(1)}}), {2, 3}, {1, 3, 4, 2, 5, 6}));
  EXPECT_TRUE(near(concat_of(s, {{"axis", int64_t(-1)}, {"new_axis", int64_t(0)}}), {2, 3}, {1, 3, 4, 2, 5, 6}));
  // One element: itself.
  const Value one = sequence_of({Tensor::from_floats({2, 1}, {1, 2})});
  EXPECT_TRUE(near(concat_of(one, {{"axis", int64_t(0)}}), {2, 1}, {1, 2}));
  // Any dtype.
  const Value ints = sequence_of(
      {Tensor::from_int64(DType::kInt64, {2}, {1, 2}), Tensor::from_int64(DType::kInt64, {1}, {3})}, DType::kInt64);
  EXPECT_EQ(concat_of(ints, {{"axis", int64_t(0)}}), Tensor::from_int64(DType::kInt64, {3}, {1, 2, 3}));
}

TEST(FloatSequenceOps, ConcatFromSequenceStacksAlongANewAxis) {
  // [1,2] and [3,4] stacked: new axis 0 -> [[1,2],[3,4]]; new axis 1 or -1 -> [[1,3],[2,4]].
  const Value s = sequence_of({Tensor::from_floats({2}, {1, 2}), Tensor::from_floats({2}, {3, 4})});
  EXPECT_TRUE(near(concat_of(s, {{"axis", int64_t(0)}, {"new_axis", int64_t(1)}}), {2, 2}, {1, 2, 3, 4}));
  EXPECT_TRUE(near(concat_of(s, {{"axis", int64_t(1)}, {"new_axis", int64_t(1)}}), {2, 2}, {1, 3, 2, 4}));
  EXPECT_TRUE(near(concat_of(s, {{"axis", int64_t(-1)}, {"new_axis", int64_t(1)}}), {2, 2}, {1, 3, 2, 4}));
  EXPECT_TRUE(near(concat_of(s, {{"axis", int64_t(-2)}, {"new_axis", int64_t(1)}}), {2, 2}, {1, 2, 3, 4}));
  // Scalars stack into a vector.
  const Value scalars = sequence_of({Tensor::scalar_float(5), Tensor::scalar_float(6), Tensor::scalar_float(7)});
  EXPECT_TRUE(near(concat_of(scalars, {{"axis", int64_t(0)}, {"new_axis", int64_t(1)}}), {3}, {5, 6, 7}));
}

TEST(FloatSequenceOps, ConcatFromSequenceErrors) {
  const Value empty = sequence_of({});
  const Value ragged =
      sequence_of({Tensor::from_floats({2, 1}, {1, 2}), Tensor::from_floats({3, 2}, {1, 2, 3, 4, 5, 6})});
  const Value unequal = sequence_of({Tensor::from_floats({2}, {1, 2}), Tensor::from_floats({3}, {3, 4, 5})});
  const Value scalars = sequence_of({Tensor::scalar_float(5)});
  EXPECT_EQ(error_of([&] { concat_of(empty, {{"axis", int64_t(0)}}); }),
            "node 'n_ConcatFromSequence' (ConcatFromSequence): the sequence is empty; there is nothing to concatenate");
  EXPECT_EQ(error_of([&] { concat_of(ragged, {{"axis", int64_t(1)}}); }),
            "node 'n_ConcatFromSequence' (ConcatFromSequence): element 1 (float32[3,2]) does not match element 0 "
            "(float32[2,1]) outside axis 1");
  EXPECT_EQ(error_of([&] { concat_of(unequal, {{"axis", int64_t(0)}, {"new_axis", int64_t(1)}}); }),
            "node 'n_ConcatFromSequence' (ConcatFromSequence): element 1 (float32[3]) does not match element 0 "
            "(float32[2]) (new_axis 1 stacks tensors of one shape)");
  EXPECT_EQ(error_of([&] { concat_of(unequal, {{"axis", int64_t(2)}, {"new_axis", int64_t(1)}}); }),
            "node 'n_ConcatFromSequence' (ConcatFromSequence): axis 2 is out of range for rank 2");
  EXPECT_EQ(error_of([&] { concat_of(unequal, {{"axis", int64_t(-3)}, {"new_axis", int64_t(1)}}); }),
            "node 'n_ConcatFromSequence' (ConcatFromSequence): axis -3 is out of range for rank 2");
  EXPECT_EQ(error_of([&] { concat_of(ragged, {{"axis", int64_t(2)}}); }),
            "node 'n_ConcatFromSequence' (ConcatFromSequence): axis 2 is out of range for rank 2");
  EXPECT_EQ(error_of([&] { concat_of(scalars, {{"axis", int64_t(0)}}); }),
            "node 'n_ConcatFromSequence' (ConcatFromSequence): the elements are scalars; there is no axis to "
            "concatenate along (new_axis 0)");
}

// ---- Identity, and sequences where tensors belong ----

TEST(FloatSequenceOps, IdentityPassesATensorOrASequence) {
  const Value s = abc(), t = Tensor::from_floats({2}, {1, 2});
  EXPECT_EQ(as_sequence(eval_values("Identity", {&s}).at(0)), as_sequence(s));
  EXPECT_EQ(as_tensor(eval_values("Identity", {&t}).at(0)), as_tensor(t));
  EXPECT_EQ(eval1("Identity", {&as_tensor(t)}), as_tensor(t));  // the tensor API still works
}

TEST(FloatSequenceOps, TensorOperatorsAndTheTensorApiRefuseSequences) {
  const Value s = sequence_of({Tensor::from_floats({1}, {1}), Tensor::from_floats({1}, {-1})});
  EXPECT_EQ(error_of([&] { eval_values("Relu", {&s}); }),
            "node 'n_Relu' (Relu): input 0 ('in0') is a sequence of 2 float32 tensors; Relu takes tensors");
  const Tensor x = Tensor::from_floats({1}, {1});
  EXPECT_EQ(error_of([&] { eval("SequenceConstruct", {&x}); }),
            "node 'n_SequenceConstruct' (SequenceConstruct): output 0 ('out0') is a sequence of 1 float32 tensor; "
            "only tensors can be returned here");
  EXPECT_EQ(error_of([&] { eval("SequenceAt", {&x, &x}); }),
            "node 'n_SequenceAt' (SequenceAt): input 0 ('in0') is a tensor, expected a sequence");
}

// ---- sequences through run_float and run_float_values ----

Node graph_node(const std::string& name, const std::string& op, std::vector<std::string> in,
                std::vector<std::string> out, std::map<std::string, AttrValue> attrs = {}) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attrs = std::move(attrs);
  return n;
}

// x [2,5] -> SplitToSequence(split 2, axis 1) -> parts; y = SequenceAt(parts, -1);
// len = SequenceLength(parts); z = ConcatFromSequence(parts, axis 1) == x.
Graph split_and_join_graph() {
  Graph g;
  g.name = "split_join";
  g.opset = 17;
  g.inputs = {"x"};
  g.outputs = {"y", "len", "z"};
  g.initializers["two"] = Tensor::from_int64(DType::kInt64, {}, {2});
  g.initializers["last"] = Tensor::from_int64(DType::kInt64, {}, {-1});
  g.nodes = {graph_node("split", "SplitToSequence", {"x", "two"}, {"parts"}, {{"axis", int64_t(1)}}),
             graph_node("at", "SequenceAt", {"parts", "last"}, {"y"}),
             graph_node("length", "SequenceLength", {"parts"}, {"len"}),
             graph_node("join", "ConcatFromSequence", {"parts"}, {"z"}, {{"axis", int64_t(1)}})};
  graph::ValueInfo& x = g.info_mut("x");
  x.shape = {2, 5};
  x.known_shape = true;
  return graph::infer_shapes(g);
}

TEST(FloatSequenceExecutor, SequencesFlowBetweenNodesOfATensorGraph) {
  const Graph g = split_and_join_graph();
  ASSERT_TRUE(g.info("parts")->sequence);
  EXPECT_EQ(g.info("parts")->shape, (Shape{2, -1}));  // 5 is not a multiple of 2: the last piece is smaller
  std::map<std::string, bool> tensor_seen;
  FloatRunStats stats;
  const Tensor x = iota({2, 5});
  const TensorMap out = run_float(
      g, {{"x", x}},
      [&](const Node& n, const std::vector<const Tensor*>& outs) { tensor_seen[n.name] = outs.at(0) != nullptr; },
      &stats);
  EXPECT_TRUE(near(out.at("y"), {2, 1}, {5, 10}));
  EXPECT_EQ(out.at("len"), Tensor::from_int64(DType::kInt64, {}, {3}));
  EXPECT_EQ(out.at("z"), x);
  // The observer gets no tensor for the sequence.
  EXPECT_EQ(tensor_seen,
            (std::map<std::string, bool>{{"split", false}, {"at", true}, {"length", true}, {"join", true}}));
  // parts (40 bytes) and z (40 bytes) are live at once.
  EXPECT_GE(stats.peak_live_bytes, 80);
}

// s (a sequence input of float32 vectors) and t -> SequenceInsert -> s2 (a sequence output);
// first = SequenceAt(s2, 0).
Graph insert_graph() {
  Graph g;
  g.name = "insert";
  g.opset = 17;
  g.inputs = {"s", "t"};
  g.outputs = {"s2", "first"};
  g.initializers["zero"] = Tensor::from_int64(DType::kInt64, {}, {0});
  g.nodes = {graph_node("ins", "SequenceInsert", {"s", "t"}, {"s2"}),
             graph_node("at", "SequenceAt", {"s2", "zero"}, {"first"})};
  graph::ValueInfo& s = g.info_mut("s");
  s.sequence = true;
  s.shape = {-1};
  s.known_shape = true;
  graph::ValueInfo& t = g.info_mut("t");
  t.shape = {2};
  t.known_shape = true;
  return graph::infer_shapes(g);
}

TEST(FloatSequenceExecutor, RunFloatValuesTakesAndReturnsSequences) {
  const Graph g = insert_graph();
  const TensorSequence s = sequence_of({Tensor::from_floats({1}, {1}), Tensor::from_floats({2}, {2, 3})});
  const Tensor t = Tensor::from_floats({2}, {4, 5});
  const ValueMap out = run_float_values(g, {{"s", s}, {"t", t}});
  EXPECT_EQ(as_sequence(out.at("s2")), sequence_of({s.tensors[0], s.tensors[1], t}));
  EXPECT_EQ(as_tensor(out.at("first")), s.tensors[0]);
}

TEST(FloatSequenceExecutor, GraphInputsAndOutputsOfTheWrongKindAreRefused) {
  const Graph g = insert_graph();
  const TensorSequence s = sequence_of({Tensor::from_floats({1}, {1})});
  const Tensor t = Tensor::from_floats({2}, {4, 5});
  EXPECT_EQ(error_of([&] { run_float(g, {{"s", t}, {"t", t}}); }),
            "graph 'insert': output 's2' is a sequence of tensors; only tensors can be returned here "
            "(run_float_values returns sequences)");
  EXPECT_EQ(error_of([&] { run_float_values(g, {{"s", t}, {"t", t}}); }),
            "graph 'insert': input 's' is a sequence of float32 tensors; a tensor was given");
  EXPECT_EQ(error_of([&] { run_float_values(g, {{"s", s}, {"t", s}}); }),
            "graph 'insert': input 't' is a tensor; a sequence of 1 float32 tensor was given");
  const TensorSequence ints = sequence_of({Tensor::from_int64(DType::kInt64, {1}, {1})}, DType::kInt64);
  EXPECT_EQ(error_of([&] { run_float_values(g, {{"s", ints}, {"t", t}}); }),
            "graph 'insert': input 's' is a sequence of 1 int64 tensor, the graph expects float32 elements");
  const TensorSequence matrices = sequence_of({Tensor::from_floats({1, 1}, {1})});
  EXPECT_EQ(error_of([&] { run_float_values(g, {{"s", matrices}, {"t", t}}); }),
            "graph 'insert': input 's': element 0 has shape [1,1], the graph expects elements of shape [?]");
  const TensorSequence mixed =
      sequence_of({Tensor::from_floats({1}, {1}), Tensor::from_int64(DType::kInt64, {1}, {1})});
  EXPECT_EQ(error_of([&] { run_float_values(g, {{"s", mixed}, {"t", t}}); }),
            "graph 'insert': input 's': element 1 is int64 in a sequence of float32 tensors");
}

// A kernel's run-time failure inside a graph names the node, the position and the length.
TEST(FloatSequenceExecutor, OutOfRangePositionsInAGraphNameTheNode) {
  Graph g = insert_graph();
  g.initializers["zero"] = Tensor::from_int64(DType::kInt64, {}, {5});
  const TensorSequence s = sequence_of({Tensor::from_floats({1}, {1})});
  EXPECT_EQ(error_of([&] { run_float_values(g, {{"s", s}, {"t", Tensor::from_floats({2}, {4, 5})}}); }),
            "node 'at' (SequenceAt): position 5 is out of range for a sequence of length 2 (valid: -2 to 1)");
}

}  // namespace
}  // namespace tauvta::cpu
