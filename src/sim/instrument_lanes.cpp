#include "sim/instrument_lanes.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "common/target_clones.h"

namespace tauvta::sim {

template <typename T>
TAUVTA_TARGET_CLONES("avx2", "default") ClampCheck<T> check_clamp(const T* __restrict pre,
                                                                            const T* __restrict out,
                                                                            size_t n, int64_t lo,
                                                                            int64_t hi) {
  const T l = T(lo), h = T(hi);
  T pmin = std::numeric_limits<T>::max(), pmax = std::numeric_limits<T>::min(), differ = 0;
  for (size_t k = 0; k < n; ++k) {
    const T p = pre[k];
    pmin = std::min(pmin, p);
    pmax = std::max(pmax, p);
    differ |= T(out[k] != std::max(l, std::min(p, h)));
  }
  ClampCheck<T> c;
  c.pre_min = pmin;
  c.pre_max = pmax;
  c.clamped = differ == 0;
  return c;
}

template <typename T>
TAUVTA_TARGET_CLONES("avx2", "default") LaneSummary<T> summarize(const T* __restrict pre,
                                                                           const T* __restrict out,
                                                                           size_t n, int64_t lo,
                                                                           int64_t hi,
                                                                           int64_t zero_threshold) {
  const T l = T(lo), h = T(hi), zt = T(zero_threshold);
  T omin = std::numeric_limits<T>::max(), omax = std::numeric_limits<T>::min(), pmin = omin,
    pmax = omax, differ = 0;
  int64_t sum = 0, sumsq = 0, zeros = 0;
  for (size_t k = 0; k < n; ++k) {
    const T o = out[k], p = pre[k];
    omin = std::min(omin, o);
    omax = std::max(omax, o);
    pmin = std::min(pmin, p);
    pmax = std::max(pmax, p);
    // Outputs are at most 16 bits: the square is a 32 x 32 -> 64-bit product (AVX2 has that one).
    const int64_t o32 = int64_t(int32_t(o));
    sum += o32;
    sumsq += o32 * o32;
    zeros += int64_t((o >= T(-zt)) & (o <= zt));
    differ |= T(o != std::max(l, std::min(p, h)));
  }
  LaneSummary<T> s;
  s.out_min = omin;
  s.out_max = omax;
  s.pre_min = pmin;
  s.pre_max = pmax;
  s.sum = sum;
  s.sumsq = sumsq;
  s.zeros = zeros;
  s.clamped = differ == 0;
  return s;
}

// One stored element row's lanes at the cast: the value before it (the MIN's input if a MIN saw
// the lane, else the accumulator or the output), the output, and whether the cast changed the
// value; clears the lanes' flags. Returns nonzero if any lane overflowed. The pointers never
// alias (restrict) and every operation is a compare, select or bitwise one (no 64-bit shifts or
// multiplies, which AVX2 lacks), so the loop vectorizes at both accumulator widths (the 64-bit
// compares need SSE4.2 at least: AVX2 is cloned in and picked at run time).
template <typename Acc, typename Out, typename Lane>
TAUVTA_TARGET_CLONES("avx2", "default") Lane cast_lanes(
    const Acc* __restrict acc, const Out* __restrict outbuf, Acc* __restrict flags,
    const Acc* __restrict pre_in, Lane* __restrict pre, Lane* __restrict out,
    Lane* __restrict overflow, int lanes, Acc out_mask) {
  Lane any = 0;
  for (int k = 0; k < lanes; ++k) {
    const Acc f = flags[k];
    flags[k] = 0;
    const Acc a = acc[k], o = Acc(outbuf[k]), p = pre_in[k];  // loads outside the selects
    // The OUT lane holds the low bits of the accumulator unless a GEMM with reset wrote it
    // (then the accumulator was zeroed and the output is the value itself); `o` is sign-extended
    // from the output width, so the low bits agreeing means it came from `a`. The narrowing
    // changed the value iff the accumulator it came from does not fit the output width.
    const bool from_acc = ((a ^ o) & out_mask) == 0;
    const Acc narrow = from_acc ? a : o;
    pre[k] = Lane((f & 1) != 0 ? p : narrow);  // kSeen
    out[k] = Lane(o);
    const Lane overflowed = Lane(((f & 2) != 0) | (from_acc & (a != o)));  // kClipped, or narrowed
    overflow[k] = overflowed;
    any |= overflowed;
  }
  return any;
}

template <typename Acc, typename Out>
TAUVTA_TARGET_CLONES("avx2", "default") bool any_overflow(const Acc* __restrict acc, const Out* __restrict outbuf,
                                                           Acc* __restrict flags, size_t n, Acc out_mask) {
  Acc any = 0;
  for (size_t k = 0; k < n; ++k) {
    const Acc a = acc[k], o = Acc(outbuf[k]);
    any |= (flags[k] & 2) | (Acc(((a ^ o) & out_mask) == 0) & Acc(a != o));  // kClipped, or narrowed
  }
  if (any == 0) std::memset(flags, 0, n * sizeof(Acc));  // else cast_lanes reads and clears them
  return any != 0;
}

template bool any_overflow(const int32_t*, const int8_t*, int32_t*, size_t, int32_t);
template bool any_overflow(const int32_t*, const int16_t*, int32_t*, size_t, int32_t);
template bool any_overflow(const int64_t*, const int8_t*, int64_t*, size_t, int64_t);
template bool any_overflow(const int64_t*, const int16_t*, int64_t*, size_t, int64_t);

// Whether n lanes' accumulators and values before the cast all fit 32 bits.
TAUVTA_TARGET_CLONES("avx2", "default") bool fit_32_bits(const int64_t* __restrict acc,
                                                                   const int64_t* __restrict pre,
                                                                   size_t n) {
  int64_t wide = 0;
  for (size_t k = 0; k < n; ++k) {
    wide |= int64_t((acc[k] < INT32_MIN) | (acc[k] > INT32_MAX) | (pre[k] < INT32_MIN) |
                    (pre[k] > INT32_MAX));
  }
  return wide == 0;
}

template ClampCheck<int32_t> check_clamp(const int32_t*, const int32_t*, size_t, int64_t, int64_t);
template ClampCheck<int64_t> check_clamp(const int64_t*, const int64_t*, size_t, int64_t, int64_t);
template LaneSummary<int32_t> summarize(const int32_t*, const int32_t*, size_t, int64_t, int64_t,
                                        int64_t);
template LaneSummary<int64_t> summarize(const int64_t*, const int64_t*, size_t, int64_t, int64_t,
                                        int64_t);
template int32_t cast_lanes(const int32_t*, const int8_t*, int32_t*, const int32_t*, int32_t*,
                            int32_t*, int32_t*, int, int32_t);
template int32_t cast_lanes(const int32_t*, const int16_t*, int32_t*, const int32_t*, int32_t*,
                            int32_t*, int32_t*, int, int32_t);
template int32_t cast_lanes(const int64_t*, const int8_t*, int64_t*, const int64_t*, int32_t*,
                            int32_t*, int32_t*, int, int64_t);
template int32_t cast_lanes(const int64_t*, const int16_t*, int64_t*, const int64_t*, int32_t*,
                            int32_t*, int32_t*, int, int64_t);
template int64_t cast_lanes(const int64_t*, const int8_t*, int64_t*, const int64_t*, int64_t*,
                            int64_t*, int64_t*, int, int64_t);
template int64_t cast_lanes(const int64_t*, const int16_t*, int64_t*, const int64_t*, int64_t*,
                            int64_t*, int64_t*, int, int64_t);

}  // namespace tauvta::sim
