// Wall time since a steady-clock instant, in seconds: the one helper every timed stage (compile,
// run, DSE evaluation) reports with.
#pragma once

#include <chrono>

namespace tauvta {

using SteadyClock = std::chrono::steady_clock;

inline double seconds_since(SteadyClock::time_point t0) {
  return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

}  // namespace tauvta
