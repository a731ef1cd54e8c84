// .npy reading and writing: numpy-written files (tests/io/data, made by make_numpy_files.py)
// read back exactly, our writer reproduces numpy's bytes, and malformed files fail with messages
// naming the file and the problem.
#include <gtest/gtest.h>

#include <cstring>

#include "io/tensor_files.h"
#include "io_test_util.h"

namespace tauvta::io {
namespace {

using graph::DType;
using graph::Tensor;
using io_testing::error_of;
using io_testing::read_bytes;
using io_testing::ScratchDir;
using io_testing::write_bytes;

const std::filesystem::path kData = std::filesystem::path(TAUVTA_SOURCE_DIR) / "tests/io/data";

// A v1.0 .npy file with the given header dict and data bytes (numpy's padding).
std::string npy_bytes(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  if (major != 1) out += std::string(2, '\0');
  return out + header + data;
}

std::string float_bytes(std::initializer_list<float> v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), std::data(v), s.size());
  return s;
}

TEST(Npy, ReadsNumpyFloat32) {
  const Tensor t = read_npy(kData / "np_f32_2x3.npy");
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(t.shape(), (graph::Shape{2, 3}));
  EXPECT_EQ(t.to_float(), (std::vector<float>{-0.5f, -0.25f, 0.f, 0.25f, 0.5f, 0.75f}));
}

TEST(Npy, ReadsNumpyIntegerBoolScalarAndEmpty) {
  const Tensor i64 = read_npy(kData / "np_i64_4.npy");
  EXPECT_EQ(i64.dtype(), DType::kInt64);
  EXPECT_EQ(i64.to_int64(), (std::vector<int64_t>{-3, 0, 7, int64_t(1) << 40}));

  const Tensor u8 = read_npy(kData / "np_u8_scalar.npy");
  EXPECT_EQ(u8.dtype(), DType::kUInt8);
  EXPECT_EQ(u8.shape(), graph::Shape{});
  EXPECT_EQ(u8.to_int64(), std::vector<int64_t>{200});

  const Tensor b = read_npy(kData / "np_bool_2x2.npy");
  EXPECT_EQ(b.dtype(), DType::kBool);
  EXPECT_EQ(b.to_int64(), (std::vector<int64_t>{1, 0, 0, 1}));

  const Tensor e = read_npy(kData / "np_i8_empty.npy");
  EXPECT_EQ(e.dtype(), DType::kInt8);
  EXPECT_EQ(e.shape(), (graph::Shape{0, 5}));
  EXPECT_EQ(e.size(), 0);
}

TEST(Npy, ReadsFormatVersions2And3) {
  for (const char* name : {"np_f64_v2.npy", "np_f64_v3.npy"}) {
    const Tensor t = read_npy(kData / name);
    EXPECT_EQ(t.dtype(), DType::kFloat64) << name;
    ASSERT_EQ(t.shape(), graph::Shape{3}) << name;
    EXPECT_EQ(t.data<double>()[0], 1.5);
    EXPECT_EQ(t.data<double>()[1], -2.25);
    EXPECT_EQ(t.data<double>()[2], 1e300);
  }
}

TEST(Npy, WriterReproducesNumpyBytes) {
  ScratchDir dir;
  for (const char* name : {"np_f32_2x3.npy", "np_i64_4.npy", "np_u8_scalar.npy", "np_bool_2x2.npy",
                           "np_i8_empty.npy"}) {
    const Tensor t = read_npy(kData / name);
    write_npy(dir / name, t, false);
    EXPECT_EQ(read_bytes(dir / name), read_bytes(kData / name)) << name;
  }
}

TEST(Npy, RoundTripsEveryDType) {
  ScratchDir dir;
  for (int d = 0; d < graph::kNumDTypes; ++d) {
    const auto dtype = DType(d);
    const Tensor t = Tensor::from_int64(dtype, {2, 1, 3}, {1, 0, 1, 1, 0, 1});
    const auto path = dir / (std::string(graph::dtype_name(dtype)) + ".npy");
    write_npy(path, t, false);
    EXPECT_EQ(read_npy(path), t) << graph::dtype_name(dtype);
  }
  Tensor f = Tensor::from_floats({1, 2, 2}, {1.f, -0.f, 3.5e-20f, -7.f});
  write_npy(dir / "f.npy", f, false);
  EXPECT_EQ(read_npy(dir / "f.npy"), f);
}

TEST(Npy, RefusesToOverwriteUnlessAsked) {
  ScratchDir dir;
  const Tensor a = Tensor::from_floats({1}, {1.f}), b = Tensor::from_floats({2}, {2.f, 3.f});
  write_npy(dir / "x.npy", a, false);
  EXPECT_EQ(error_of([&] { write_npy(dir / "x.npy", b, false); }),
            (dir / "x.npy").string() + ": already exists; refusing to overwrite it");
  EXPECT_EQ(read_npy(dir / "x.npy"), a);
  write_npy(dir / "x.npy", b, true);
  EXPECT_EQ(read_npy(dir / "x.npy"), b);
}

TEST(Npy, AcceptsHeaderVariants) {
  ScratchDir dir;
  // Keys in another order, double quotes, no trailing comma, Python 2 long dims, '<u1'.
  write_bytes(dir / "a.npy", npy_bytes("{\"shape\": (1L, 2L), \"fortran_order\": False, \"descr\": \"<u1\"}",
                                       std::string("\x05\xfa", 2)));
  const Tensor t = read_npy(dir / "a.npy");
  EXPECT_EQ(t.dtype(), DType::kUInt8);
  EXPECT_EQ(t.shape(), (graph::Shape{1, 2}));
  EXPECT_EQ(t.to_int64(), (std::vector<int64_t>{5, 250}));
}

struct BadNpy {
  const char* name;
  std::string bytes;
  std::string message;  // after "<path>: "
};

TEST(Npy, MalformedFilesFailNamingTheFileAndTheProblem) {
  ScratchDir dir;
  const std::string f32x2 = float_bytes({1.f, 2.f});
  const std::vector<BadNpy> cases = {
      {"fortran.npy", read_bytes(kData / "np_f32_fortran.npy"),
       "array is stored in Fortran order (fortran_order: True, shape [2,3]); only C order is supported "
       "(save np.ascontiguousarray(a))"},
      {"bigendian.npy", npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", f32x2),
       "dtype '>f4' is big-endian; only little-endian .npy files are supported (convert with "
       "array.astype(array.dtype.newbyteorder('<')))"},
      {"half.npy", npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", "abcd"),
       "unsupported dtype '<f2' (supported: <f4 <f8 |i1 |u1 <i2 <i4 <i8 |b1)"},
      {"nomagic.npy", "PK\x03\x04 this is a zip file",
       "not a .npy file (missing the \\x93NUMPY magic string)"},
      {"version.npy", std::string("\x93NUMPY\x04\x00\x10\x00", 10) + std::string(16, ' '),
       ".npy format version 4.0 is not supported (1.0, 2.0 and 3.0 are)"},
      {"shortdata.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f32x2),
       "truncated data: shape [3] of float32 needs 12 bytes, the file has 8"},
      {"longdata.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f32x2),
       "4 unexpected bytes after the data of shape [1] of float32"},
      {"shortheader.npy", std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 17),
       "truncated .npy header: it declares 64 bytes, the file has 7 after the prefix"},
      {"missingkey.npy", npy_bytes("{'descr': '<f4', 'shape': (2,), }", f32x2), ""},
      {"structured.npy", npy_bytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", f32x2),
       ""},
      {"badbool.npy", npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", "\x01\x02"),
       "bool element 1 has byte value 2"},
  };
  for (const BadNpy& c : cases) {
    const auto path = dir / c.name;
    write_bytes(path, c.bytes);
    const std::string msg = error_of([&] { read_npy(path); });
    if (!c.message.empty()) {
      EXPECT_EQ(msg, path.string() + ": " + c.message) << c.name;
    } else {
      EXPECT_EQ(msg.rfind(path.string() + ": malformed .npy header (", 0), 0u) << c.name << ": " << msg;
    }
  }
  const std::string missing = error_of([&] { read_npy(dir / "missingkey.npy"); });
  EXPECT_NE(missing.find("missing key 'fortran_order'"), std::string::npos) << missing;
  const std::string structured = error_of([&] { read_npy(dir / "structured.npy"); });
  EXPECT_NE(structured.find("structured dtypes are not supported"), std::string::npos) << structured;
  EXPECT_EQ(error_of([&] { read_npy(dir / "nonexistent.npy"); }),
            (dir / "nonexistent.npy").string() + ": cannot open for reading: No such file or directory");
  EXPECT_EQ(error_of([&] { read_npy(dir.path()); }), dir.path().string() + ": is a directory, not a file");
}

}  // namespace
}  // namespace tauvta::io
