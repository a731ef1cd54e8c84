#include "sim/value_counts.h"

#include <fmt/format.h>

#include <bit>

#include "common/error.h"
#include "common/target_clones.h"

namespace tauvta::sim {

IntHistogram::IntHistogram(int64_t lo_, int64_t hi_, int bins) : lo(lo_), hi(hi_) {
  if (bins < 1 || hi_ <= lo_) {
    throw Error(fmt::format("histogram: {} bins over [{}, {}) is not a range", bins, lo_, hi_));
  }
  counts.assign(size_t(bins), 0);
}

void IntHistogram::merge(const IntHistogram& o) {
  if (o.counts.size() != counts.size() || o.lo != lo || o.hi != hi) {
    throw InternalError("IntHistogram::merge: different bins");
  }
  for (size_t b = 0; b < counts.size(); ++b) counts[b] += o.counts[b];
  below += o.below;
  above += o.above;
}

int64_t IntHistogram::bin_lo(size_t b) const {
  // The smallest v with floor((v - lo) * bins / (hi - lo)) >= b.
  const int64_t span = hi - lo, n = int64_t(counts.size());
  return lo + (int64_t(b) * span + n - 1) / n;
}

BinCounter::BinCounter(int64_t lo, int64_t hi, size_t bins)
    : lo_(lo), hi_(hi), bins_(bins), stride_(bins + 2) {
  const uint64_t span = uint64_t(hi - lo);
  if (span % bins == 0 && std::has_single_bit(span / bins)) shift_ = std::countr_zero(span / bins);
  counts_.assign(kCopies * stride_, 0);
  slot_offsets_.resize(kSlotBlock);
  for (size_t j = 0; j < kSlotBlock; ++j) slot_offsets_[j] = uint32_t((j % kCopies) * stride_ + 1);
}

TAUVTA_TARGET_CLONES("avx2", "default")
bool BinCounter::block_slots(const int32_t* v, int32_t lo, int32_t hi, int shift, const uint32_t* slot_offsets,
                             uint32_t* slots) {
  const int32_t below = lo - 1;  // the caller keeps lo - 1 within int32
  int32_t outside = 0;
  for (size_t j = 0; j < kSlotBlock; ++j) {
    const int32_t x = std::clamp(v[j], below, hi);
    outside |= int32_t(x == below) | int32_t(x == hi);
    slots[j] = slot_offsets[j] + uint32_t((x - lo) >> shift);
  }
  return outside != 0;
}

void BinCounter::flush(IntHistogram& h) {
  drain([&](size_t slot, uint64_t n) {
    (slot == 0 ? h.below : slot == bins_ + 1 ? h.above : h.counts[slot - 1]) += n;
  });
}

}  // namespace tauvta::sim
