// FlatHashIndex: from 64-bit content hashes to indices of entries the caller stores, in one flat
// open-addressed table (linear probing, Fibonacci hashing of the hash's high bits). Several
// entries may share a hash; find() hands each candidate to the caller's full comparison. It
// replaces node-based std::unordered_(multi)map where lowering looks kernels up for every tile:
// a probe touches one cache line instead of chasing bucket and node pointers.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tauvta {

class FlatHashIndex {
 public:
  static constexpr size_t npos = SIZE_MAX;

  // The first index stored under `hash` for which `match(index)` is true, or npos.
  template <class Match>
  size_t find(uint64_t hash, Match&& match) const {
    if (slots_.empty()) return npos;
    for (size_t s = home(hash);; s = (s + 1) & mask()) {
      const Slot& slot = slots_[s];
      if (slot.index == npos) return npos;
      if (slot.hash == hash && match(slot.index)) return slot.index;
    }
  }

  void insert(uint64_t hash, size_t index) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    place(Slot{hash, index});
    ++used_;
  }

  void clear() {
    slots_.clear();
    used_ = 0;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    size_t index = npos;  // npos: empty
  };

  size_t mask() const { return slots_.size() - 1; }
  size_t home(uint64_t hash) const {
    return size_t((hash * 0x9e3779b97f4a7c15ull) >> (64 - std::countr_zero(slots_.size())));
  }
  void place(const Slot& x) {
    size_t s = home(x.hash);
    while (slots_[s].index != npos) s = (s + 1) & mask();
    slots_[s] = x;
  }
  // Doubles the table (at most half full keeps probes short) and re-places every entry.
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : 2 * old.size(), Slot{});
    for (const Slot& x : old) {
      if (x.index != npos) place(x);
    }
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace tauvta
