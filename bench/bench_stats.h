// Small statistics the benchmark programs share.
#pragma once

#include <algorithm>
#include <vector>

namespace tauvta::bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace tauvta::bench
