// ONNX TensorProto files: raw_data and typed fields for every dtype, a conformance-data file,
// and must-fail cases naming the file and the problem.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "io/tensor_files.h"
#include <onnx/onnx_pb.h>
#include "io_test_util.h"

namespace tauvta::io {
namespace {

using graph::DType;
using graph::Tensor;
using io_testing::error_of;
using io_testing::ScratchDir;

void save(const std::filesystem::path& p, const onnx::TensorProto& t) {
  std::ofstream f(p, std::ios::binary);
  ASSERT_TRUE(t.SerializeToOstream(&f));
}

onnx::TensorProto proto(int type, std::initializer_list<int64_t> dims) {
  onnx::TensorProto t;
  t.set_data_type(type);
  for (int64_t d : dims) t.add_dims(d);
  return t;
}

TEST(TensorPb, TypedFieldsForEveryDType) {
  ScratchDir dir;
  struct Case {
    int type;
    DType dtype;
  };
  const std::vector<Case> ints = {{onnx::TensorProto::INT8, DType::kInt8},   {onnx::TensorProto::UINT8, DType::kUInt8},
                                  {onnx::TensorProto::INT16, DType::kInt16}, {onnx::TensorProto::INT32, DType::kInt32},
                                  {onnx::TensorProto::BOOL, DType::kBool}};
  for (const Case& c : ints) {
    onnx::TensorProto p = proto(c.type, {2, 2});
    const std::vector<int64_t> v = c.dtype == DType::kBool ? std::vector<int64_t>{1, 0, 0, 1}
                                   : c.dtype == DType::kUInt8 ? std::vector<int64_t>{0, 255, 7, 128}
                                                              : std::vector<int64_t>{-1, 2, -128, 127};
    for (int64_t x : v) p.add_int32_data(int32_t(x));
    const auto path = dir / (std::string(graph::dtype_name(c.dtype)) + ".pb");
    save(path, p);
    EXPECT_EQ(read_tensor_pb(path), Tensor::from_int64(c.dtype, {2, 2}, v)) << graph::dtype_name(c.dtype);
  }
  onnx::TensorProto i64 = proto(onnx::TensorProto::INT64, {3});
  for (int64_t x : {int64_t(-1) << 40, int64_t(0), int64_t(5)}) i64.add_int64_data(x);
  save(dir / "i64.pb", i64);
  EXPECT_EQ(read_tensor_pb(dir / "i64.pb"), Tensor::from_int64(DType::kInt64, {3}, {int64_t(-1) << 40, 0, 5}));

  onnx::TensorProto f32 = proto(onnx::TensorProto::FLOAT, {1, 3});
  for (float x : {0.5f, -1.25f, 3e10f}) f32.add_float_data(x);
  save(dir / "f32.pb", f32);
  EXPECT_EQ(read_tensor_pb(dir / "f32.pb"), Tensor::from_floats({1, 3}, {0.5f, -1.25f, 3e10f}));

  onnx::TensorProto f64 = proto(onnx::TensorProto::DOUBLE, {});
  f64.add_double_data(0.1);
  save(dir / "f64.pb", f64);
  const Tensor d = read_tensor_pb(dir / "f64.pb");
  EXPECT_EQ(d.dtype(), DType::kFloat64);
  EXPECT_EQ(d.shape(), graph::Shape{});
  EXPECT_EQ(d.data<double>()[0], 0.1);
}

TEST(TensorPb, RawDataForEveryDType) {
  ScratchDir dir;
  const int types[] = {onnx::TensorProto::FLOAT, onnx::TensorProto::DOUBLE, onnx::TensorProto::INT8,
                       onnx::TensorProto::UINT8, onnx::TensorProto::INT16,  onnx::TensorProto::INT32,
                       onnx::TensorProto::INT64, onnx::TensorProto::BOOL};
  for (int d = 0; d < graph::kNumDTypes; ++d) {
    const Tensor want = Tensor::from_int64(DType(d), {3, 1}, {1, 0, 1});
    onnx::TensorProto p = proto(types[d], {3, 1});
    p.set_raw_data(std::string(reinterpret_cast<const char*>(want.raw()), want.byte_size()));
    const auto path = dir / (std::to_string(d) + ".pb");
    save(path, p);
    EXPECT_EQ(read_tensor_pb(path), want) << graph::dtype_name(DType(d));
  }
  onnx::TensorProto empty = proto(onnx::TensorProto::FLOAT, {0, 4});
  save(dir / "empty.pb", empty);
  EXPECT_EQ(read_tensor_pb(dir / "empty.pb").shape(), (graph::Shape{0, 4}));
}

TEST(TensorPb, ReadsConformanceData) {
  // ONNX's own test data (Debian's libonnx-testdata): Relu's input and output, raw_data floats.
  const std::filesystem::path dir = "/usr/share/libonnx-testdata/data/node/test_relu/test_data_set_0";
  const Tensor x = read_tensor_pb(dir / "input_0.pb");
  const Tensor y = read_tensor_pb(dir / "output_0.pb");
  ASSERT_EQ(x.dtype(), DType::kFloat32);
  ASSERT_EQ(x.shape(), (graph::Shape{3, 4, 5}));
  ASSERT_EQ(y.shape(), x.shape());
  for (int64_t i = 0; i < x.size(); ++i) EXPECT_EQ(y.floats()[size_t(i)], std::max(x.floats()[size_t(i)], 0.f));
}

TEST(TensorPb, MustFail) {
  ScratchDir dir;
  auto check = [&](const std::string& name, const onnx::TensorProto& p, const std::string& message) {
    save(dir / name, p);
    EXPECT_EQ(error_of([&] { read_tensor_pb(dir / name); }), (dir / name).string() + ": " + message) << name;
  };
  const std::string supported = " is not supported (supported: FLOAT, DOUBLE, INT8, UINT8, INT16, INT32, INT64, BOOL)";
  check("f16.pb", proto(onnx::TensorProto::FLOAT16, {2}), "element type FLOAT16" + supported);
  check("string.pb", proto(onnx::TensorProto::STRING, {2}), "element type STRING" + supported);
  check("notype.pb", proto(onnx::TensorProto::UNDEFINED, {2}), "element type UNDEFINED" + supported);

  onnx::TensorProto short_raw = proto(onnx::TensorProto::INT32, {2, 3});
  short_raw.set_raw_data(std::string(20, '\0'));
  check("shortraw.pb", short_raw, "raw_data has 20 bytes, a int32 tensor of shape [2,3] needs 24");

  onnx::TensorProto few = proto(onnx::TensorProto::FLOAT, {4});
  few.add_float_data(1.f);
  few.set_name("w");
  save(dir / "few.pb", few);
  EXPECT_EQ(error_of([&] { read_tensor_pb(dir / "few.pb"); }),
            (dir / "few.pb").string() + " (tensor 'w'): float_data holds 1 values, the shape [4] needs 4");

  onnx::TensorProto neg = proto(onnx::TensorProto::FLOAT, {2, -1});
  check("neg.pb", neg, "negative dimension in shape [2,?]");

  onnx::TensorProto ext = proto(onnx::TensorProto::FLOAT, {2});
  ext.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = ext.add_external_data();
  e->set_key("location");
  e->set_value("weights.bin");
  check("ext.pb", ext, "external tensor data is not supported (save the model with its tensors inside the .onnx file)");

  io_testing::write_bytes(dir / "garbage.pb", "\xff\xff\xff\xff garbage");
  EXPECT_EQ(error_of([&] { read_tensor_pb(dir / "garbage.pb"); }),
            (dir / "garbage.pb").string() + ": not a valid ONNX TensorProto (protobuf parse failed)");
  EXPECT_EQ(error_of([&] { read_tensor_pb(dir / "missing.pb"); }),
            (dir / "missing.pb").string() + ": cannot open for reading: No such file or directory");
}

}  // namespace
}  // namespace tauvta::io
