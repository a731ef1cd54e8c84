// A tuning log worked on through a copy, so that an interrupted tuning leaves the log as the last
// finished one left it. work() is a copy of the log beside it (`log`.staging-PID-THREAD: a thread
// tunes one log at a time); commit() fsyncs the copy and renames it over the log. Destroyed
// without commit() (an error, or the process killed before it), the copy is dropped and the log
// is untouched, so a rerun resumes from the same records and tunes exactly as the first attempt.
// The DSE evaluator tunes its designs this way, and a `tune --slurm` worker tunes each task on a
// copy of the shared log and keeps only the records it added (added()).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace tauvta::tune {

class StagedLog {
 public:
  // `work`: where the copy goes (default: beside the log, named by process and thread).
  explicit StagedLog(const std::filesystem::path& log, const std::filesystem::path& work = {});
  ~StagedLog();
  StagedLog(const StagedLog&) = delete;
  StagedLog& operator=(const StagedLog&) = delete;

  const std::filesystem::path& work() const { return work_; }
  // Marks where the copy ends now (call after opening it: TrialLog may cut a torn last line).
  void mark() { mark_ = std::filesystem::file_size(work_); }
  // The bytes appended to the copy since mark().
  std::string added() const;
  // Replaces the log with the copy. Throws tauvta::Error naming the file on failure.
  void commit();

 private:
  std::filesystem::path log_, work_;
  uintmax_t mark_ = 0;
  bool committed_ = false;
};

}  // namespace tauvta::tune
