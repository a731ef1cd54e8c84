// Counting integer values: a histogram over a range with below/above counts (what an
// observation reports), and the pending counters the instruments fill per stored element
// (exact per value or binned, branch-free slots, drained into a histogram).
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tauvta::sim {

// A histogram over integer values: `bins` equal bins over [lo, hi), plus the values below and
// at or above the range.
struct IntHistogram {
  int64_t lo = 0, hi = 1;
  std::vector<uint64_t> counts;
  uint64_t below = 0, above = 0;
  IntHistogram() = default;
  IntHistogram(int64_t lo_, int64_t hi_, int bins);
  void add(int64_t v, uint64_t times = 1) {
    if (v < lo) {
      below += times;
    } else if (v >= hi) {
      above += times;
    } else {
      // (v - lo) < hi - lo < 2^40 and at most 2^16 bins: the product fits 64 bits.
      counts[size_t(((v - lo) * int64_t(counts.size())) / (hi - lo))] += times;
    }
  }
  void merge(const IntHistogram& o);
  int64_t bin_lo(size_t b) const;  // first value of bin b
};

// Counts of integer values in `bins` equal bins over [lo, hi) while a run fills them, with the
// values below and above the range as two more slots, so no branch picks the slot. With one
// value per bin (bins == hi - lo) the counts are exact. Eight interleaved copies, so that a run of
// equal values (a ReLU layer's zeros) does not wait on its own increments: an increment waits
// for the store of the one before it to the same counter, about 7 cycles, so with four copies a
// run of zeros counted at under a value per cycle. The counters are 32
// bits: their owner drains them before 2^32 values have been added.
class BinCounter {
 public:
  BinCounter() = default;
  BinCounter(int64_t lo, int64_t hi, size_t bins);
  explicit BinCounter(const IntHistogram& h) : BinCounter(h.lo, h.hi, h.counts.size()) {}
  bool empty() const { return counts_.empty(); }
  // Adds v[k] for k < n; returns whether some value lay outside [lo, hi).
  template <typename T>
  bool add_all(const T* v, size_t n) {
    return add<T, true>(v, n);
  }
  // Adds v[k] for k < n, for a caller that already knows whether some lay outside.
  template <typename T>
  void count_all(const T* v, size_t n) {
    add<T, false>(v, n);
  }
  // Calls fn(slot, count) for every slot holding a count (0: below, 1 + b: bin b, bins + 1:
  // above) and starts again from zero.
  template <typename F>
  void drain(F&& fn) {
    for (size_t slot = 0; slot < stride_; ++slot) {
      uint64_t n = 0;
      for (size_t c = 0; c < kCopies; ++c) {
        n += counts_[c * stride_ + slot];
        counts_[c * stride_ + slot] = 0;
      }
      if (n != 0) fn(slot, n);
    }
  }
  void flush(IntHistogram& h);  // drain into h's below, bins and above
  size_t bins() const { return bins_; }

 private:
  template <typename T, bool kOutside>
  bool add(const T* v, size_t n) {
    if (shift_ >= 0) {
      // 32-bit lanes whose range fits 32 bits (every config's up to 16-bit outputs) count in
      // 32-bit arithmetic: narrower compares and no widening per value. The span must fit too:
      // a value's distance from lo is taken in 32 bits.
      if constexpr (sizeof(T) <= 4) {
        if (lo_ - 1 >= INT32_MIN && hi_ <= INT32_MAX && hi_ - lo_ <= INT32_MAX) {
          return add_shifted<int32_t, kOutside>(v, n);
        }
      }
      return add_shifted<int64_t, kOutside>(v, n);
    }
    const int64_t lo = lo_, hi = hi_;
    uint32_t* c = counts_.data();
    const size_t stride = stride_;
    bool outside = false;
    // (v - lo) < hi - lo < 2^40 and at most 2^16 bins: the product fits 64 bits.
    for (size_t k = 0; k < n; ++k) {
      const int64_t x = int64_t(v[k]);
      const size_t slot = x < lo    ? 0
                          : x >= hi ? bins_ + 1
                                    : 1 + size_t(((x - lo) * int64_t(bins_)) / (hi - lo));
      ++c[(k % kCopies) * stride + slot];
      if constexpr (kOutside) outside |= x < lo || x >= hi;
    }
    return outside;
  }
  // Power-of-two bins: lo - 1 lands in slot 0, hi in slot bins + 1 ((v' - lo) >> shift is -1 or
  // bins). kCopies values per step, one per copy, so the copies' offsets are constants.
  template <typename W, bool kOutside, typename T>
  bool add_shifted(const T* v, size_t n) {
    const W lo = W(lo_), below = W(lo_ - 1), hi = W(hi_);
    const int sh = shift_;
    uint32_t* c = counts_.data();
    const size_t stride = stride_;
    auto slot = [&](W x) { return size_t(1 + ((x - lo) >> sh)); };
    W outside = 0;
    size_t k = 0;
    if constexpr (std::is_same_v<T, int32_t> && std::is_same_v<W, int32_t>) {
      // 32-bit lanes: the slots of a block come from one vectorized pass, so the per-value work
      // left is the increment itself.
      uint32_t slots[kSlotBlock];
      for (; k + kSlotBlock <= n; k += kSlotBlock) {
        outside |= W(block_slots(v + k, lo, hi, sh, slot_offsets_.data(), slots));
        for (size_t j = 0; j < kSlotBlock; ++j) ++c[slots[j]];
      }
    }
    for (; k + kCopies <= n; k += kCopies) {
      W x[kCopies];
      for (size_t j = 0; j < kCopies; ++j) x[j] = std::clamp(W(v[k + j]), below, hi);
      for (size_t j = 0; j < kCopies; ++j) ++c[j * stride + slot(x[j])];
      if constexpr (kOutside) {
        for (size_t j = 0; j < kCopies; ++j) outside |= W((x[j] == below) | (x[j] == hi));
      }
    }
    for (; k < n; ++k) {
      const W x = std::clamp(W(v[k]), below, hi);
      ++c[slot(x)];
      if constexpr (kOutside) outside |= W((x == below) | (x == hi));
    }
    return outside != 0;
  }

  static constexpr size_t kCopies = 8;
  static constexpr size_t kSlotBlock = 64;
  // slots[j] = slot_offsets[j] + the slot of v[j] (clamped to lo - 1 and hi), for kSlotBlock
  // values; returns whether one was clamped.
  static bool block_slots(const int32_t* v, int32_t lo, int32_t hi, int shift, const uint32_t* slot_offsets,
                          uint32_t* slots);
  int64_t lo_ = 0, hi_ = 1;
  int shift_ = -1;  // log2 of the bin width when it is a power of two
  size_t bins_ = 0, stride_ = 0;
  std::vector<uint32_t> counts_;
  std::vector<uint32_t> slot_offsets_;  // (j % kCopies) * stride_ + 1 for j < kSlotBlock
};

}  // namespace tauvta::sim
