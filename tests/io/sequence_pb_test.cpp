// ONNX SequenceProto files: sequences of tensors (with the conformance data's own file), the
// element dtype an empty sequence needs from the caller, and must-fail cases naming the file.
#include <gtest/gtest.h>

#include <fstream>

#include <onnx/onnx-data_pb.h>

#include "io/tensor_files.h"
#include "io_test_util.h"

namespace tauvta::io {
namespace {

using graph::DType;
using graph::Tensor;
using io_testing::error_of;
using io_testing::ScratchDir;

void save_sequence(const std::filesystem::path& p, const onnx::SequenceProto& s) {
  std::ofstream f(p, std::ios::binary);
  ASSERT_TRUE(s.SerializeToOstream(&f));
}

onnx::TensorProto int64_proto(std::initializer_list<int64_t> values) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(int64_t(values.size()));
  for (int64_t v : values) t.add_int64_data(v);
  return t;
}

TEST(SequencePb, ReadsTensorsInOrder) {
  ScratchDir dir;
  onnx::SequenceProto s;
  s.set_name("seq");
  s.set_elem_type(onnx::SequenceProto::TENSOR);
  *s.add_tensor_values() = int64_proto({1, 2, 3});
  *s.add_tensor_values() = int64_proto({4});
  save_sequence(dir / "s.pb", s);
  const graph::TensorSequence got = read_sequence_pb(dir / "s.pb");
  EXPECT_EQ(got.dtype, DType::kInt64);
  ASSERT_EQ(got.length(), 2);
  EXPECT_EQ(got.tensors[0], Tensor::from_int64(DType::kInt64, {3}, {1, 2, 3}));
  EXPECT_EQ(got.tensors[1], Tensor::from_int64(DType::kInt64, {1}, {4}));
  EXPECT_EQ(read_sequence_pb(dir / "s.pb", DType::kInt64), got);
}

TEST(SequencePb, AnEmptySequenceTakesTheGivenDtype) {
  ScratchDir dir;
  onnx::SequenceProto s;
  s.set_elem_type(onnx::SequenceProto::TENSOR);
  save_sequence(dir / "empty.pb", s);
  const graph::TensorSequence got = read_sequence_pb(dir / "empty.pb", DType::kBool);
  EXPECT_EQ(got.dtype, DType::kBool);
  EXPECT_TRUE(got.tensors.empty());
  EXPECT_EQ(error_of([&] { read_sequence_pb(dir / "empty.pb"); }),
            (dir / "empty.pb").string() + ": an empty sequence records no element dtype, and none was given");
}

TEST(SequencePb, ReadsTheConformanceData) {
  const std::filesystem::path file =
      "/usr/share/libonnx-testdata/data/node/test_sequence_insert_at_back/test_data_set_0/output_0.pb";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "libonnx-testdata is not installed";
  const graph::TensorSequence s = read_sequence_pb(file, DType::kInt64);
  ASSERT_EQ(s.length(), 4);
  std::vector<graph::Shape> shapes;
  for (const Tensor& t : s.tensors) shapes.push_back(t.shape());
  EXPECT_EQ(shapes, (std::vector<graph::Shape>{{4}, {3}, {2}, {3}}));
  EXPECT_EQ(s.tensors[0], Tensor::from_int64(DType::kInt64, {4}, {1, 2, 3, 4}));
}

// The bytes of a SequenceProto also parse as a TensorProto; read_tensor_pb says what the file is.
TEST(SequencePb, ReadAsATensorTheFileIsNamedASequence) {
  ScratchDir dir;
  onnx::SequenceProto s;
  s.set_name("sequence");
  s.set_elem_type(onnx::SequenceProto::TENSOR);
  *s.add_tensor_values() = int64_proto({1, 2});
  *s.add_tensor_values() = int64_proto({3});
  save_sequence(dir / "s.pb", s);
  EXPECT_EQ(error_of([&] { read_tensor_pb(dir / "s.pb"); }),
            (dir / "s.pb").string() + ": holds an ONNX SequenceProto (a sequence of 2 tensors), not a TensorProto; a "
                                      "tensor is expected here");
}

TEST(SequencePb, MustFail) {
  ScratchDir dir;
  const auto message = [&](const std::string& name, const onnx::SequenceProto& s) {
    save_sequence(dir / name, s);
    return error_of([&] { read_sequence_pb(dir / name, DType::kInt64); });
  };
  onnx::SequenceProto maps;
  maps.set_elem_type(onnx::SequenceProto::MAP);
  maps.add_map_values();
  EXPECT_EQ(message("maps.pb", maps),
            (dir / "maps.pb").string() + ": a sequence of MAP with non-tensor values; only sequences of tensors are "
                                         "supported");
  onnx::SequenceProto untyped;
  EXPECT_EQ(message("untyped.pb", untyped),
            (dir / "untyped.pb").string() + ": a sequence of UNDEFINED; only sequences of tensors are supported");
  onnx::SequenceProto mixed;
  mixed.set_name("m");
  mixed.set_elem_type(onnx::SequenceProto::TENSOR);
  *mixed.add_tensor_values() = int64_proto({1});
  onnx::TensorProto* f = mixed.add_tensor_values();
  f->set_data_type(onnx::TensorProto::FLOAT);
  f->add_float_data(1.0f);
  EXPECT_EQ(message("mixed.pb", mixed),
            (dir / "mixed.pb").string() +
                " (sequence 'm'): element 1 is float32, expected int64 like the caller asked");
  save_sequence(dir / "mixed.pb", mixed);
  EXPECT_EQ(error_of([&] { read_sequence_pb(dir / "mixed.pb"); }),
            (dir / "mixed.pb").string() + " (sequence 'm'): element 1 is float32, expected int64 like element 0");
  onnx::SequenceProto bad_element;
  bad_element.set_elem_type(onnx::SequenceProto::TENSOR);
  bad_element.add_tensor_values()->set_data_type(onnx::TensorProto::FLOAT16);
  EXPECT_EQ(message("f16.pb", bad_element),
            (dir / "f16.pb").string() + ": element 0: element type FLOAT16 is not supported (supported: FLOAT, "
                                        "DOUBLE, INT8, UINT8, INT16, INT32, INT64, BOOL)");
  io_testing::write_bytes(dir / "garbage.pb", "\xff\xff\xff\xff garbage");
  EXPECT_EQ(error_of([&] { read_sequence_pb(dir / "garbage.pb"); }),
            (dir / "garbage.pb").string() + ": not a valid ONNX SequenceProto (protobuf parse failed)");
  EXPECT_EQ(error_of([&] { read_sequence_pb(dir / "missing.pb"); }),
            (dir / "missing.pb").string() + ": cannot open for reading: No such file or directory");
}

}  // namespace
}  // namespace tauvta::io
