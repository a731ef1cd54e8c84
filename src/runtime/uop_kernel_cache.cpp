#include "runtime/uop_kernel_cache.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/isa_fields.h"

namespace tauvta::runtime {
namespace {

constexpr uint64_t kChunkBytes = uint64_t(1) << 18;


}  // namespace

UopKernelCache::UopKernelCache(Driver& driver, uint32_t capacity)
    : driver_(driver),
      capacity_(capacity != 0 ? capacity : driver.config().uop_depth()) {}

uint32_t UopKernelCache::stage(std::span<const uint32_t> words) {
  const uint64_t bytes = words.size() * 4;
  size_t index = 0;
  uint64_t offset = 0;
  if (bytes > kChunkBytes) {
    chunks_.emplace_back(driver_, bytes);  // a dedicated buffer; the open chunk stays open
    staged_bytes_ += bytes;
    index = chunks_.size() - 1;
  } else {
    if (open_chunk_ == SIZE_MAX || chunk_used_ + bytes > kChunkBytes) {
      chunks_.emplace_back(driver_, kChunkBytes);
      staged_bytes_ += kChunkBytes;
      open_chunk_ = chunks_.size() - 1;
      chunk_used_ = 0;
    }
    index = open_chunk_;
    offset = chunk_used_;
    chunk_used_ += bytes;
  }
  DramBuffer* buf = &chunks_[index];
  std::vector<uint8_t> raw(bytes);
  for (size_t i = 0; i < words.size(); ++i) {
    for (int b = 0; b < 4; ++b) raw[4 * i + b] = uint8_t(words[i] >> (8 * b));
  }
  buf->copy_in(raw, offset);
  return buf->elem_addr(hw::MemId::kUop, offset / 4);
}

UopPlacement UopKernelCache::place(std::span<const uint32_t> words) { return place(words, hash_uop_words(words)); }

UopPlacement UopKernelCache::place(std::span<const uint32_t> words, uint64_t h) {
  if (words.empty() || words.size() > capacity_) {
    throw Error(fmt::format("micro-op kernel of {} micro-ops does not fit the {}-entry micro-op "
                            "buffer",
                            words.size(), capacity_));
  }
  size_t id = by_hash_.find(h, [&](size_t at) {
    const Entry& e = entries_[at];
    return std::equal(e.words.begin(), e.words.end(), words.begin(), words.end());
  });
  if (id == FlatHashIndex::npos) {
    id = entries_.size();
    Entry e;
    e.words.assign(words.begin(), words.end());
    e.dram_elem = stage(words);
    entries_.push_back(std::move(e));
    by_hash_.insert(h, id);
    ++stats_.kernels;
  }
  Entry& e = entries_[id];
  const uint32_t n = uint32_t(words.size());
  if (e.resident) {
    ++stats_.hits;
    return UopPlacement{e.bgn, e.bgn + n, {}};
  }
  ++stats_.misses;
  if (cursor_ + n > capacity_) cursor_ = 0;
  const uint32_t bgn = cursor_;
  const uint32_t end = bgn + n;
  // Evict every resident kernel overlapping [bgn, end).
  auto it = resident_.lower_bound(bgn);
  if (it != resident_.begin()) {
    auto prev = std::prev(it);
    const Entry& p = entries_[prev->second];
    if (prev->first + p.words.size() > bgn) it = prev;
  }
  while (it != resident_.end() && it->first < end) {
    entries_[it->second].resident = false;
    ++stats_.evictions;
    it = resident_.erase(it);
  }
  e.resident = true;
  e.bgn = bgn;
  resident_.emplace(bgn, id);
  cursor_ = end;
  stats_.uops_loaded += n;

  UopPlacement placement{bgn, end, {}};
  constexpr uint32_t kMaxUopRow = hw::field_max(hw::Field::kXSize);
  for (uint32_t done = 0; done < n; done += kMaxUopRow) {
    const uint32_t len = std::min(kMaxUopRow, n - done);
    hw::Insn load;
    load.opcode = hw::Opcode::kLoad;
    load.memory_type = uint8_t(hw::MemId::kUop);
    load.sram_base = bgn + done;
    load.dram_base = e.dram_elem + done;
    load.y_size = 1;
    load.x_size = len;
    load.x_stride = len;
    placement.loads.push_back(load);
  }
  return placement;
}

void UopKernelCache::invalidate() {
  for (auto& [bgn, id] : resident_) entries_[id].resident = false;
  resident_.clear();
  cursor_ = 0;
}

void UopKernelCache::restart() {
  invalidate();
  entries_.clear();
  by_hash_.clear();
  chunks_.clear();  // frees the DRAM
  open_chunk_ = SIZE_MAX;
  chunk_used_ = 0;
  staged_bytes_ = 0;
}

bool UopKernelCache::trim(uint64_t max_bytes) {
  if (staged_bytes_ <= max_bytes) return false;
  restart();
  ++stats_.trims;
  return true;
}

void UopKernelCache::reset_stats() {
  const uint64_t kernels = stats_.kernels;
  stats_ = UopCacheStats{};
  stats_.kernels = kernels;
}

std::string UopKernelCache::dump() const {
  uint64_t used = 0;
  for (const auto& [bgn, id] : resident_) used += entries_[id].words.size();
  std::string s = fmt::format("micro-op SRAM: {} of {} entries used by {} kernel(s), ring cursor {}",
                              used, capacity_, resident_.size(), cursor_);
  for (const auto& [bgn, id] : resident_) {
    const Entry& e = entries_[id];
    s += fmt::format("\n  [{}, {}) kernel {} from DRAM UOP element {}", bgn, bgn + e.words.size(),
                     id, e.dram_elem);
  }
  return s;
}

}  // namespace tauvta::runtime
