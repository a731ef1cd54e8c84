// Progress lines on stderr: redrawn in place on a terminal; on a pipe or log file only every
// `every`-th update and the last one, each on its own line, so logs stay readable.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <iostream>
#include <string>

#include <fmt/format.h>

namespace tauvta {

inline bool stderr_is_terminal() {
  static const bool tty = ::isatty(STDERR_FILENO) == 1;
  return tty;
}

// `step` counts updates from 1; `last` marks the final one.
inline void show_progress(const std::string& line, int64_t step, bool last, int64_t every = 10) {
  if (stderr_is_terminal()) {
    std::cerr << "\r" << line << (last ? "\n" : "") << std::flush;
  } else if (last || step % every == 0) {
    std::cerr << line << "\n" << std::flush;
  }
}

// "[#########...............] 120/1000 images": a bar of 40 cells, then `what` after the counts.
inline std::string progress_bar_line(int64_t done, int64_t total, const std::string& what) {
  constexpr int64_t kWidth = 40;
  const int64_t filled = total > 0 ? kWidth * done / total : kWidth;
  return fmt::format("[{}{}] {}/{} {}", std::string(size_t(filled), '#'), std::string(size_t(kWidth - filled), '.'),
                     done, total, what);
}

}  // namespace tauvta
