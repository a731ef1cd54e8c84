// The instruments' loops over accumulator lanes, one pass each over a STORE's (or a row's)
// lanes: compares, selects and reductions only, compiled for AVX2 as well as the baseline and
// picked at run time (the 64-bit compares need at least SSE4.2). Instantiated for 32- and 64-bit
// accumulators, 8- and 16-bit outputs, 32- and 64-bit counted lanes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tauvta::sim {

// Whether every lane's output is its value before the cast clamped to [lo, hi] (MIN, then MAX),
// and the extremes of the values before the cast.
template <typename T>
struct ClampCheck {
  T pre_min, pre_max;
  bool clamped = false;
};
template <typename T>
ClampCheck<T> check_clamp(const T* pre, const T* out, size_t n, int64_t lo, int64_t hi);

// What lanes add to the running statistics, and check_clamp's answers, in one pass.
template <typename T>
struct LaneSummary {
  T out_min, out_max, pre_min, pre_max;
  int64_t sum = 0, sumsq = 0;
  int64_t zeros = 0;  // |out| <= the zero threshold
  bool clamped = false;
};
template <typename T>
LaneSummary<T> summarize(const T* pre, const T* out, size_t n, int64_t lo, int64_t hi,
                         int64_t zero_threshold);

// A STORE's lanes at the cast: the value before it (the MIN's input `pre_in` where a MIN saw the
// lane, else the accumulator or the output), the output, and whether the cast changed the value
// (1 or 0), from the accumulators, the OUT lanes and the lanes' flags (bit 0: a MIN saw it, bit 1:
// a clip at the type's limit changed it), which it clears. `out_mask` has the output width's low
// bits set. Returns nonzero if any lane overflowed.
template <typename Acc, typename Out, typename Lane>
Lane cast_lanes(const Acc* acc, const Out* outbuf, Acc* flags, const Acc* pre_in, Lane* pre,
                Lane* out, Lane* overflow, int lanes, Acc out_mask);

// Whether n lanes' accumulators and values before the cast all fit 32 bits.
bool fit_32_bits(const int64_t* acc, const int64_t* pre, size_t n);

// Whether some of n lanes overflowed as cast_lanes decides it (a clip at the type's limit changed
// it, or the narrowing did), reading the lanes and clearing their flags without cast_lanes' other
// writes: the overflow instrument alone pays for those only when something overflowed.
template <typename Acc, typename Out>
bool any_overflow(const Acc* acc, const Out* outbuf, Acc* flags, size_t n, Acc out_mask);

}  // namespace tauvta::sim
