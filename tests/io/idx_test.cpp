// IDX files: gzip-compressed and plain files written by the test, Debian's Fashion-MNIST, and
// must-fail cases (bad magic, unsupported element type, truncation) pinning the messages.
#include <gtest/gtest.h>
#include <zlib.h>

#include <array>

#include "io/sample_files.h"
#include "io/tensor_files.h"
#include "io_test_util.h"

namespace tauvta::io {
namespace {

using graph::DType;
using graph::Tensor;
using io_testing::error_of;
using io_testing::ScratchDir;

std::string be32(uint32_t v) {
  return {char(v >> 24), char((v >> 16) & 0xff), char((v >> 8) & 0xff), char(v & 0xff)};
}

void write_gzip(const std::filesystem::path& p, const std::string& bytes) {
  gzFile f = gzopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), unsigned(bytes.size())), int(bytes.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

// Three 2x3 images with pixel (n, r, c) = 100 n + 10 r + c.
std::string images_file() {
  std::string s = be32(0x803) + be32(3) + be32(2) + be32(3);
  for (int n = 0; n < 3; ++n)
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c) s += char(100 * n + 10 * r + c);
  return s;
}

TEST(Idx, ReadsPlainAndGzippedImagesAndLabels) {
  ScratchDir dir;
  io_testing::write_bytes(dir / "images-idx3-ubyte", images_file());
  write_gzip(dir / "images-idx3-ubyte.gz", images_file());
  for (const char* name : {"images-idx3-ubyte", "images-idx3-ubyte.gz"}) {
    const Tensor t = read_idx(dir / name);
    EXPECT_EQ(t.dtype(), DType::kUInt8) << name;
    ASSERT_EQ(t.shape(), (graph::Shape{3, 2, 3})) << name;
    for (int i = 0; i < 18; ++i) EXPECT_EQ(t.raw()[i], 100 * (i / 6) + 10 * (i / 3 % 2) + i % 3) << name;
  }
  write_gzip(dir / "labels.gz", be32(0x801) + be32(4) + std::string("\x09\x00\x03\x07", 4));
  const Tensor labels = read_idx(dir / "labels.gz");
  EXPECT_EQ(labels.shape(), graph::Shape{4});
  EXPECT_EQ(labels.to_int64(), (std::vector<int64_t>{9, 0, 3, 7}));
}

TEST(Idx, ImagesToNchwFloat) {
  ScratchDir dir;
  io_testing::write_bytes(dir / "images", images_file());
  const Tensor images = read_idx(dir / "images");
  const Tensor all = idx_images_to_nchw(images, 0.5f);
  ASSERT_EQ(all.shape(), (graph::Shape{3, 1, 2, 3}));
  EXPECT_EQ(all.floats()[7], 0.5f * 101);
  const Tensor one = idx_images_to_nchw(images, 1.f / 255, 2, 1);
  ASSERT_EQ(one.shape(), (graph::Shape{1, 1, 2, 3}));
  EXPECT_EQ(one.floats()[5], 212.f * (1.f / 255));
  EXPECT_EQ(error_of([&] { idx_images_to_nchw(images, 1.f, 2, 2); }),
            "images [2, 4) requested from a file of 3 images");
  EXPECT_EQ(error_of([&] { idx_images_to_nchw(Tensor(DType::kUInt8, {4}), 1.f); }),
            "IDX images must be uint8 [N, rows, cols]; got uint8[4]");
}

TEST(Idx, ReadsFashionMnist) {
  const std::filesystem::path dir = "/usr/share/datasets/fashion-mnist";
  const Tensor labels = read_idx(dir / "t10k-labels-idx1-ubyte.gz");
  ASSERT_EQ(labels.shape(), graph::Shape{10000});
  std::array<int, 10> count{};
  for (int64_t l : labels.to_int64()) {
    ASSERT_LT(l, 10);
    ++count[size_t(l)];
  }
  for (int c : count) EXPECT_EQ(c, 1000);  // the test set is balanced
  const Tensor images = read_idx(dir / "t10k-images-idx3-ubyte.gz");
  ASSERT_EQ(images.shape(), (graph::Shape{10000, 28, 28}));
  int64_t sum = 0;
  for (int64_t i = 0; i < images.size(); ++i) sum += images.raw()[i];
  EXPECT_GT(sum, 0);
}

TEST(Idx, MustFail) {
  ScratchDir dir;
  auto check = [&](const std::string& name, const std::string& bytes, bool gz, const std::string& message) {
    const auto path = dir / name;
    if (gz) {
      write_gzip(path, bytes);
    } else {
      io_testing::write_bytes(path, bytes);
    }
    EXPECT_EQ(error_of([&] { read_idx(path); }), path.string() + ": " + message) << name;
  };
  check("png", "\x89PNG\r\n\x1a\n....", false,
        "bad IDX magic number 0x89504E47; expected 0x00000801 (labels) or 0x00000803 (images)");
  check("zero-dims", be32(0x800), true,
        "bad IDX magic number 0x00000800; expected 0x00000801 (labels) or 0x00000803 (images)");
  check("floats", be32(0xD01) + be32(1) + "abcd", false,
        "IDX element type 0x0D (float32) is not supported; only unsigned bytes (0x08, magic 0x00000801 "
        "labels / 0x00000803 images)");
  check("tiny", std::string(2, '\0'), false, "truncated IDX file: 2 bytes, too short for the 4-byte magic number");
  check("header.gz", be32(0x803) + be32(10), true,
        "truncated gzip-compressed IDX file: the header needs 16 bytes for 3 dimensions, the file has 8");
  check("data.gz", be32(0x803) + be32(10) + be32(28) + be32(28) + std::string(100, '\1'), true,
        "truncated gzip-compressed IDX file: shape [10,28,28] needs 7840 data bytes, the file has 100");
  check("labels", be32(0x801) + be32(3) + "\1\2", false,
        "truncated IDX file: shape [3] needs 3 data bytes, the file has 2");
  check("extra", be32(0x801) + be32(1) + "\1\2", false, "1 unexpected bytes after the data of shape [1]");

  // A gzip stream cut short: zlib notices the missing end of the stream.
  write_gzip(dir / "full.gz", images_file());
  const std::string whole = io_testing::read_bytes(dir / "full.gz");
  io_testing::write_bytes(dir / "cut.gz", whole.substr(0, whole.size() - 12));
  const std::string cut = error_of([&] { read_idx(dir / "cut.gz"); });
  EXPECT_EQ(cut, (dir / "cut.gz").string() + ": corrupt or truncated gzip data (unexpected end of file)");

  EXPECT_EQ(error_of([&] { read_idx(dir / "missing.gz"); }),
            (dir / "missing.gz").string() + ": cannot open for reading: No such file or directory");
}

}  // namespace
}  // namespace tauvta::io
