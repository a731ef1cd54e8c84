// Counting accumulator wraps in the integer reference: the output elements of each requantizing
// node (QConv, QConvTranspose, QGemm) whose exact sum, bias included, leaves the
// accumulator's width, or whose rounding ADD or left SHR then does. The accelerator wraps them
// silently (two's complement, as the integer reference does); a wrap is almost always a wrong
// value, so the exploration reports the measured rate per layer beside the compile-time worst
// case (graph/quantize_builder.cpp's warning). Thread-safe: batch workers add concurrently.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace tauvta::cpu {

struct WrapCount {
  int64_t wrapped = 0;   // output elements whose accumulation wrapped
  int64_t elements = 0;  // output elements computed
  double rate() const { return elements ? double(wrapped) / double(elements) : 0.0; }
};

class AccumulatorWraps {
 public:
  void add(const std::string& node, int64_t wrapped, int64_t elements) {
    std::lock_guard<std::mutex> lock(mu_);
    WrapCount& c = by_node_[node];
    c.wrapped += wrapped;
    c.elements += elements;
  }
  std::map<std::string, WrapCount> by_node() const {
    std::lock_guard<std::mutex> lock(mu_);
    return by_node_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, WrapCount> by_node_;
};

// Whether requantizing the exact sum `acc` wraps in an `acc_bits` accumulator: the sum itself, the
// rounding ADD of 2^(shift-1), or a left shift (shift < 0) leaves the width.
inline bool accumulator_wraps(int64_t acc, int64_t shift, int acc_bits) {
  if (acc_bits >= 64) return false;
  const int64_t hi = (int64_t(1) << (acc_bits - 1)) - 1, lo = -hi - 1;
  if (acc < lo || acc > hi) return true;
  if (shift > 0) return acc > hi - (int64_t(1) << std::min<int64_t>(shift - 1, 62));  // hi - 2^62 does not overflow
  if (shift < 0) {
    if (-shift >= acc_bits) return acc != 0;
    return acc < (lo >> -shift) || acc > (hi >> -shift);  // acc * 2^-shift inside [lo, hi]
  }
  return false;
}

}  // namespace tauvta::cpu
