// Whole files written so that a reader, or a kill at any moment, sees the old file or the whole
// new one, never a truncated one: the bytes go to a temporary file beside the target (same
// directory, so the same filesystem), are flushed to disk, and the temporary is renamed over the
// target (rename(2) replaces a name atomically). Append-only logs (tuning logs, the DSE result
// cache) do not use this; they append and flush one line at a time.
#pragma once

#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>

namespace tauvta {

// Replaces `path` with `bytes`. A symlink is followed (its target is replaced, the link kept); an
// existing file's permission bits are kept. Throws tauvta::Error naming the path on failure, and
// leaves no temporary behind unless the process itself is killed (then a hidden
// ".NAME.tmp-PID-N" may remain beside the target; the target itself is intact).
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

// For writers that stream their output: write to stream(), then commit(). Nothing reaches `path`
// before commit(); destroyed without commit() (an exception on the way), the target is untouched.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::filesystem::path path) : path_(std::move(path)) {}
  std::ostream& stream() { return buffer_; }
  void commit() { write_file_atomic(path_, buffer_.view()); }

 private:
  std::filesystem::path path_;
  std::ostringstream buffer_;
};

}  // namespace tauvta
