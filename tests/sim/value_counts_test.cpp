// BinCounter against IntHistogram::add, value by value: exact per-value counters and binned ones
// (power-of-two widths and others, a span wider than 32 bits), values inside and outside the
// range, runs of one value (a ReLU's zeros) and lengths around the vectorized block of 64 and the
// 8 interleaved copies.
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "sim/value_counts.h"

namespace tauvta::sim {
namespace {

struct Range {
  int64_t lo, hi;
  int bins;
};

template <typename T>
void expect_counts_match(const Range& r, const std::vector<T>& v) {
  IntHistogram want(r.lo, r.hi, r.bins), got(r.lo, r.hi, r.bins);
  bool any_outside = false;
  for (T x : v) {
    want.add(int64_t(x));
    any_outside |= int64_t(x) < r.lo || int64_t(x) >= r.hi;
  }
  BinCounter c(want);
  EXPECT_EQ(c.add_all(v.data(), v.size()), any_outside);
  // The same values again through the path that does not look for outside values: twice the counts.
  c.count_all(v.data(), v.size());
  c.flush(got);
  ASSERT_EQ(got.counts.size(), want.counts.size());
  for (size_t b = 0; b < want.counts.size(); ++b) {
    ASSERT_EQ(got.counts[b], 2 * want.counts[b]) << "bin " << b << " of [" << r.lo << ", " << r.hi << ")";
  }
  EXPECT_EQ(got.below, 2 * want.below);
  EXPECT_EQ(got.above, 2 * want.above);
}

template <typename T>
void check_type(int64_t spread) {
  const Range ranges[] = {
      {-128, 128, 256},  // exact per value (the int8 output's counters)
      {-128, 128, 16},   // power-of-two bins
      {0, 128, 128},     // a ReLU's outputs
      {-1000, 1000, 7},  // bins of no power-of-two width
      {-(int64_t(1) << 20), int64_t(1) << 20, 64},
      // Ends within 32 bits but a span past INT32_MAX (bins of 2^30): distances from lo need 64.
      {-(int64_t(1) << 31) + 1, (int64_t(1) << 30) + 1, 3},
  };
  std::mt19937_64 rng(5);
  for (const Range& r : ranges) {
    for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(63), size_t(64), size_t(65), size_t(200),
                     size_t(1000)}) {
      std::vector<T> v(n);
      for (T& x : v) {
        const uint64_t k = rng() % 4;  // half zeros, some at the range's edges, the rest spread
        x = k < 2 ? T(0) : k == 2 ? T(rng() % 2 ? r.lo : r.hi - 1) : T(int64_t(rng() % uint64_t(2 * spread)) - spread);
      }
      expect_counts_match(r, v);
      if (n > 0) {  // a value just outside at each end
        v[n / 2] = T(r.lo - 1);
        v[n - 1] = T(r.hi);
        expect_counts_match(r, v);
      }
    }
  }
}

TEST(BinCounter, Int32LanesCountAsTheHistogramDoes) { check_type<int32_t>(1 << 21); }
TEST(BinCounter, Int64LanesCountAsTheHistogramDoes) { check_type<int64_t>(int64_t(1) << 21); }
TEST(BinCounter, Int16LanesCountAsTheHistogramDoes) { check_type<int16_t>(1 << 14); }

}  // namespace
}  // namespace tauvta::sim
