// UopKernelCache: the JIT micro-kernel cache. Mirrors what sits in the device's micro-op SRAM:
// kernels with identical micro-op words share one DRAM copy and, while resident, one SRAM range
// (content-hash lookup, full compare on a hash match). Placement is a ring: a missing kernel goes
// at the ring cursor (wrapping to 0 when it would run past the end), evicting every resident
// kernel it overlaps, so replacement is FIFO in load order (not LRU). The caller issues the
// LOAD UOP instruction that place() returns on a miss; that load runs on the compute module, in
// program order with the GEMM/ALU instructions that use it, so it needs no dependency tokens.
#pragma once

#include <cstdint>
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "common/flat_hash_index.h"
#include "hw/insn.h"
#include "hw/isa_layout.h"
#include "runtime/device.h"
#include "runtime/uop_kernel.h"

namespace tauvta::runtime {

struct UopCacheStats {
  uint64_t hits = 0;         // kernel already resident
  uint64_t misses = 0;       // kernel loaded into the SRAM
  uint64_t evictions = 0;    // resident kernels overwritten by a load
  uint64_t uops_loaded = 0;  // micro-ops moved DRAM -> SRAM
  uint64_t kernels = 0;      // distinct kernels staged in DRAM
  uint64_t splits = 0;       // kernels too large for the SRAM, run in materialized chunks
  uint64_t trims = 0;        // times the staged DRAM copies were dropped (trim())
  friend bool operator==(const UopCacheStats&, const UopCacheStats&) = default;
};

struct UopPlacement {
  uint32_t bgn = 0, end = 0;    // SRAM range [bgn, end) holding the kernel
  std::vector<hw::Insn> loads;  // LOAD UOPs to issue before use (miss; x_size is 16 bits, so a
                                // huge kernel takes several), empty on a hit
};

class UopKernelCache {
 public:
  // `capacity` = micro-op SRAM depth; 0 means the depth of the driver's config.
  explicit UopKernelCache(Driver& driver, uint32_t capacity = 0);

  uint32_t capacity() const { return capacity_; }
  // Makes `words` resident (1 <= size <= capacity). Throws tauvta::Error otherwise.
  UopPlacement place(std::span<const uint32_t> words);
  // The same with the words' hash_uop_words() already known (an EncodedKernel's).
  UopPlacement place(std::span<const uint32_t> words, uint64_t hash);
  // Forget what the SRAM holds (after a failed or timing-only run, or an SRAM reset). DRAM
  // copies stay, so later misses only cost the load.
  void invalidate();
  void note_split() { ++stats_.splits; }
  // DRAM bytes holding staged kernel copies.
  uint64_t staged_bytes() const { return staged_bytes_; }
  // Called between runs (no stream refers to a staged copy any more): when the staged copies
  // exceed `max_bytes`, forget every kernel and free their DRAM, so a device that runs many
  // different programs does not grow its DRAM use without bound. Returns whether it trimmed.
  bool trim(uint64_t max_bytes = kDefaultMaxStagedBytes);
  static constexpr uint64_t kDefaultMaxStagedBytes = uint64_t(16) << 20;

  // Forgets every kernel and its DRAM copy and closes the staging chunk: the kernels staged next
  // are placed as a fresh cache places them, from the start of a new chunk. A compiled network
  // restarts at each layer so a layer's micro-op loads are the ones it has when compiled alone.
  void restart();

  const UopCacheStats& stats() const { return stats_; }
  void reset_stats();
  size_t resident_kernels() const { return resident_.size(); }
  std::string dump() const;  // resident kernels by SRAM range

 private:
  struct Entry {
    std::vector<uint32_t> words;
    uint32_t dram_elem = 0;  // UOP element address of the DRAM copy
    bool resident = false;
    uint32_t bgn = 0;
  };

  uint32_t stage(std::span<const uint32_t> words);  // writes a DRAM copy, returns its address

  Driver& driver_;
  uint32_t capacity_;
  std::vector<Entry> entries_;
  FlatHashIndex by_hash_;  // entries_ by hash_uop_words (equal words: one entry)
  std::map<uint32_t, size_t> resident_;  // SRAM bgn -> entry
  uint32_t cursor_ = 0;
  // DRAM staging arena: kernels are packed into chunks; a full chunk starts a new one.
  std::vector<DramBuffer> chunks_;
  size_t open_chunk_ = SIZE_MAX;
  uint64_t chunk_used_ = 0;
  uint64_t staged_bytes_ = 0;
  UopCacheStats stats_;
};

}  // namespace tauvta::runtime
