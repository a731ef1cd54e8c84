// Outputs that survive a kill: `tauvta compile` is SIGKILLed at the moment it starts writing its
// artifact (a new directory entry appears, or the target's size, time or inode changes), and the
// target must then be the old file, the whole new file, or (when there was none) absent: never a
// truncated file. With a writer that truncates the target in place, the first poll after the
// truncation sees the change and the kill leaves a short file behind, so this test fails.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "backend/artifact.h"
#include "cli/cli_runner.h"
#include "common/error.h"

extern char** environ;

namespace tauvta {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string fmt_args(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) s += " '" + a + "'";
  return s;
}

struct Snapshot {
  std::set<std::string> names;
  bool target_exists = false;
  struct stat target {};
  bool operator!=(const Snapshot& o) const {
    if (names != o.names || target_exists != o.target_exists) return true;
    return target_exists && (target.st_size != o.target.st_size || target.st_ino != o.target.st_ino ||
                             target.st_mtim.tv_nsec != o.target.st_mtim.tv_nsec ||
                             target.st_mtim.tv_sec != o.target.st_mtim.tv_sec);
  }
};

Snapshot snapshot(const fs::path& dir, const fs::path& target) {
  Snapshot s;
  for (const auto& e : fs::directory_iterator(dir)) s.names.insert(e.path().filename().string());
  s.target_exists = ::stat(target.c_str(), &s.target) == 0;
  return s;
}

struct KillResult {
  bool killed_while_writing = false;  // the change was seen and the process killed before it exited
  bool exited_first = false;
};

// Starts `tauvta args...`, polls `dir` until the write begins, then SIGKILLs it.
KillResult kill_at_write(const std::vector<std::string>& args, const fs::path& dir, const fs::path& target) {
  const Snapshot before = snapshot(dir, target);
  std::vector<std::string> argv_s = {TAUVTA_CLI_PATH};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0);
  KillResult r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (snapshot(dir, target) != before) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.killed_while_writing = WIFSIGNALED(status);
      r.exited_first = !r.killed_while_writing;
      return r;
    }
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      r.exited_first = true;
      return r;
    }
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  ADD_FAILURE() << "tauvta did not start writing within 60 s";
  return r;
}

// A whole artifact: its header, manifest and checksum all check out (compile_seconds in the
// manifest makes two compiles differ by a few bytes, so "whole" cannot mean "equal").
bool is_whole_artifact(const fs::path& p) {
  try {
    backend::load_network(p);
    return true;
  } catch (const Error&) {
    return false;
  }
}

class KillDuringWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt_name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string fmt_name() { return "tauvta_kill_" + std::to_string(::getpid()); }
  std::vector<std::string> compile(int batch, const fs::path& out) const {
    return {"compile", std::string(TAUVTA_SOURCE_DIR) + "/models/vgg7_fmnist.onnx", "--batch",
            std::to_string(batch), "-o", out.string(), "--force"};
  }
  fs::path dir_;
};

TEST_F(KillDuringWrite, ArtifactIsOldOrWholeNeverTruncated) {
  // The two artifacts a kill may leave: batch 1 (old) and batch 128 (new); both a few MB.
  const fs::path old_ref = dir_ / "old.tauvta", new_ref = dir_ / "new.tauvta";
  ASSERT_EQ(testing::run_tauvta(fmt_args(compile(1, old_ref))).code, 0);
  ASSERT_EQ(testing::run_tauvta(fmt_args(compile(128, new_ref))).code, 0);
  const std::string old_bytes = read_all(old_ref), new_bytes = read_all(new_ref);
  ASSERT_GT(new_bytes.size(), 1000000u);
  ASSERT_NE(old_bytes.size(), new_bytes.size());
  ASSERT_TRUE(is_whole_artifact(new_ref));

  const fs::path out_dir = dir_ / "out", target = out_dir / "net.tauvta";
  int mid_write = 0;
  // No file before: a kill leaves none or the whole new one.
  for (int round = 0; round < 3; ++round) {
    fs::remove(target);
    const KillResult k = kill_at_write(compile(128, target), out_dir, target);
    mid_write += k.killed_while_writing;
    if (fs::exists(target)) {
      EXPECT_TRUE(is_whole_artifact(target)) << "round " << round << ": a truncated file of "
                                             << fs::file_size(target) << " bytes";
    }
  }
  // An old file before: a kill leaves it, or the whole new one.
  for (int round = 0; round < 5; ++round) {
    fs::copy_file(old_ref, target, fs::copy_options::overwrite_existing);
    const KillResult k = kill_at_write(compile(128, target), out_dir, target);
    mid_write += k.killed_while_writing;
    ASSERT_TRUE(fs::exists(target)) << "round " << round << ": the old file is gone";
    const std::string now = read_all(target);
    EXPECT_TRUE(now == old_bytes || (now.size() != old_bytes.size() && is_whole_artifact(target)))
        << "round " << round << ": " << now.size() << " bytes, neither the old artifact (" << old_bytes.size()
        << " bytes) nor a whole new one (about " << new_bytes.size() << ")";
  }
  // The kills must have landed while writing, or this test proved nothing.
  EXPECT_GE(mid_write, 4);
  // A killed writer's temporary is hidden (".net.tauvta.tmp-PID-N") and never mistaken for output.
  for (const auto& e : fs::directory_iterator(out_dir)) {
    const std::string name = e.path().filename().string();
    if (name != "net.tauvta") {
      EXPECT_EQ(name.rfind(".net.tauvta.tmp-", 0), 0u) << name;
    }
  }
}

}  // namespace
}  // namespace tauvta
