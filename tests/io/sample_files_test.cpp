// A directory of .npy samples: natural order, only .npy files, errors for empty or missing dirs.
#include <gtest/gtest.h>

#include "io/sample_files.h"
#include "io/tensor_files.h"
#include "io_test_util.h"

namespace tauvta::io {
namespace {

using graph::Tensor;
using io_testing::error_of;
using io_testing::ScratchDir;

TEST(SampleFiles, LoadsNpyFilesInNaturalOrder) {
  ScratchDir dir;
  for (int i : {10, 2, 1}) {
    write_npy(dir / std::string("x").append(std::to_string(i)).append(".npy"), Tensor::from_floats({1}, {float(i)}), false);
  }
  io_testing::write_bytes(dir / "notes.txt", "not a sample");
  std::filesystem::create_directory(dir / "sub.npy");
  const auto files = load_npy_dir(dir.path());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].path.filename(), "x1.npy");
  EXPECT_EQ(files[1].path.filename(), "x2.npy");
  EXPECT_EQ(files[2].path.filename(), "x10.npy");
  EXPECT_EQ(files[2].tensor.floats()[0], 10.f);
}

TEST(SampleFiles, MustFail) {
  ScratchDir dir;
  EXPECT_EQ(error_of([&] { list_npy_files(dir.path()); }), dir.path().string() + ": the directory holds no .npy files");
  EXPECT_EQ(error_of([&] { list_npy_files(dir / "none"); }),
            (dir / "none").string() + ": not a directory (expected a directory of .npy files)");
  io_testing::write_bytes(dir / "bad.npy", "garbage");
  EXPECT_EQ(error_of([&] { load_npy_dir(dir.path()); }),
            (dir / "bad.npy").string() + ": not a .npy file (missing the \\x93NUMPY magic string)");
}

}  // namespace
}  // namespace tauvta::io
