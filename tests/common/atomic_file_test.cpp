// write_file_atomic: the target is replaced whole, a symlink stays a link, permissions are kept,
// and a failed write leaves neither a damaged target nor a temporary behind.
#include "common/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tauvta_atomic_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t entries() const { return size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }
  fs::path dir_;
};

TEST_F(AtomicFile, ReplacesWholeAndLeavesNoTemporary) {
  const fs::path p = dir_ / "out.json";
  write_file_atomic(p, "first");
  EXPECT_EQ(slurp(p), "first");
  write_file_atomic(p, std::string(1 << 20, 'x'));
  EXPECT_EQ(fs::file_size(p), size_t(1) << 20);
  write_file_atomic(p, "");
  EXPECT_EQ(fs::file_size(p), 0u);
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, KeepsPermissionsAndFollowsSymlinks) {
  const fs::path real = dir_ / "real.csv", link = dir_ / "link.csv";
  write_file_atomic(real, "a");
  ASSERT_EQ(::chmod(real.c_str(), 0640), 0);
  fs::create_symlink("real.csv", link);  // relative, as users make them
  write_file_atomic(link, "b");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(real), "b");
  struct stat st {};
  ASSERT_EQ(::stat(real.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(entries(), 2u);
}

TEST_F(AtomicFile, StreamedWriterCommitsOnlyWhenAsked) {
  const fs::path p = dir_ / "table.csv";
  write_file_atomic(p, "old\n");
  {
    AtomicFileWriter w(p);
    w.stream() << "new,";
  }  // abandoned: an exception on the way out, say
  EXPECT_EQ(slurp(p), "old\n");
  AtomicFileWriter w(p);
  w.stream() << "new\n";
  w.commit();
  EXPECT_EQ(slurp(p), "new\n");
}

TEST_F(AtomicFile, FailureNamesThePathAndLeavesNothing) {
  const fs::path p = dir_ / "missing_dir" / "out.bin";
  try {
    write_file_atomic(p, "x");
    FAIL() << "wrote into a directory that does not exist";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p.string() + ": cannot open for writing"), std::string::npos) << e.what();
  }
  // A directory where the file should go: the rename fails, the temporary is removed.
  fs::create_directories(dir_ / "taken");
  fs::create_directories(dir_ / "taken" / "sub");
  EXPECT_THROW(write_file_atomic(dir_ / "taken", "x"), Error);
  EXPECT_TRUE(fs::is_directory(dir_ / "taken"));
  EXPECT_EQ(entries(), 1u);
}

}  // namespace
}  // namespace tauvta
