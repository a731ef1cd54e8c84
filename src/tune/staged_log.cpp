#include "tune/staged_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::tune {

namespace fs = std::filesystem;

StagedLog::StagedLog(const fs::path& log, const fs::path& work) : log_(log), work_(work) {
  // A thread works on one log at a time, so process and thread make the copy's name unique.
  if (work_.empty()) {
    work_ = log.string() +
            fmt::format(".staging-{}-{:x}", ::getpid(), std::hash<std::thread::id>{}(std::this_thread::get_id()));
  }
  if (!log.parent_path().empty()) fs::create_directories(log.parent_path());
  if (fs::exists(log)) {
    fs::copy_file(log, work_, fs::copy_options::overwrite_existing);
  } else {
    std::ofstream(work_, std::ios::binary | std::ios::trunc);
  }
}

StagedLog::~StagedLog() {
  std::error_code ec;
  if (!committed_) fs::remove(work_, ec);
}

std::string StagedLog::added() const {
  std::ifstream in(work_, std::ios::binary);
  in.seekg(std::streamoff(mark_));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void StagedLog::commit() {
  const int fd = ::open(work_.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    throw Error(fmt::format("{}: cannot sync the tuning log", work_.string()));
  }
  ::close(fd);
  fs::rename(work_, log_);
  committed_ = true;
}

}  // namespace tauvta::tune
