#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta {
namespace {

// Closes the descriptor and removes the temporary unless released (the rename happened).
class TempFile {
 public:
  TempFile(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }
  void release() { path_.clear(); }

 private:
  int fd_;
  std::filesystem::path path_;
};

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what) {
  throw Error(fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno)));
}

// The name the bytes go to: a symlink's target, so the link survives.
std::filesystem::path resolve_target(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec)) return path;
  std::filesystem::path target = std::filesystem::read_symlink(path, ec);
  if (ec) return path;
  if (target.is_relative()) target = path.parent_path() / target;
  return target;
}

}  // namespace

void write_file_atomic(const std::filesystem::path& requested, std::string_view bytes) {
  const std::filesystem::path path = resolve_target(requested);
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  const std::string name = path.filename().string();
  const pid_t pid = ::getpid();
  int fd = -1;
  std::filesystem::path tmp_path;
  for (int attempt = 0; fd < 0; ++attempt) {  // O_EXCL: never reuse another writer's temporary
    tmp_path = dir / fmt::format(".{}.tmp-{}-{}", name, pid, attempt);
    fd = ::open(tmp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt > 1000)) fail(path, "cannot open for writing");
  }
  TempFile tmp(fd, tmp_path);
  struct stat old {};
  if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
    ::fchmod(tmp.fd(), old.st_mode & 07777);  // best effort: keep the file's permissions
  }
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(tmp.fd(), p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "write failed");
    p += n;
    left -= size_t(n);
  }
  // On disk before the rename, so a crash of the machine cannot leave an empty file either.
  if (::fsync(tmp.fd()) != 0 && errno != EINVAL) fail(path, "write failed (fsync)");
  if (tmp.close() != 0) fail(path, "write failed (close)");
  if (::rename(tmp.path().c_str(), path.c_str()) != 0) fail(path, "cannot replace");
  tmp.release();
}

}  // namespace tauvta
