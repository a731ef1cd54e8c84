// Driver: the small interface between the runtime and one accelerator: its configuration, its
// physical DRAM (allocate, free, read, write) and running an instruction stream. SimDriver runs
// on the simulator; a board driver (mapping physical memory and poking the fetch registers) can
// implement the same interface without the rest of the runtime noticing.
#pragma once

#include <cstdint>
#include <map>
#include <span>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "hw/isa_layout.h"
#include "sim/dram.h"
#include "sim/report.h"
#include "sim/simulator.h"

namespace tauvta::runtime {

class Driver {
 public:
  virtual ~Driver() = default;

  virtual const hw::HwConfig& config() const = 0;
  // Physical DRAM range of at least `bytes` bytes, aligned to alignment(). Throws tauvta::Error
  // when the DRAM is exhausted.
  virtual uint64_t allocate(uint64_t bytes) = 0;
  // Releases a range returned by allocate(). Throws on an address that was not allocated.
  virtual void free(uint64_t addr) = 0;
  // Every allocation starts on a multiple of this (a power of two that is a multiple of every
  // element size, so `addr / elem_bytes` is an exact element address for every memory type).
  virtual uint64_t alignment() const = 0;
  virtual void write(uint64_t addr, std::span<const uint8_t> bytes) = 0;
  virtual void read(uint64_t addr, std::span<uint8_t> bytes) const = 0;
  // Runs a whole program (it must end with FINISH) and returns what it cost.
  virtual sim::RunReport run(std::span<const hw::RawInsn> program,
                             const sim::RunOptions& options) = 0;
  // The same program as the command builder holds it (decoded, every field already checked to
  // encode): encodes it and calls run(). The compiler's recording driver keeps instructions
  // decoded and overrides this, so lowering does not encode and decode every instruction.
  virtual sim::RunReport run_decoded(std::span<const hw::Insn> program, const hw::IsaLayout& layout,
                                     const sim::RunOptions& options);
};

// First-fit allocator over a flat physical range with coalescing of neighbours. Not thread-safe.
class DramAllocator {
 public:
  // Hands out addresses in [base, end), each a multiple of `alignment` (a power of two).
  DramAllocator(uint64_t base, uint64_t end, uint64_t alignment);

  uint64_t allocate(uint64_t bytes);
  void free(uint64_t addr);
  uint64_t alignment() const { return alignment_; }
  uint64_t bytes_in_use() const { return in_use_; }
  size_t live_allocations() const { return used_.size(); }

 private:
  uint64_t alignment_;
  uint64_t in_use_ = 0;
  std::map<uint64_t, uint64_t> free_;  // address -> size, non-adjacent
  std::map<uint64_t, uint64_t> used_;  // address -> size
};

// Smallest alignment SimDriver uses; raised to the largest element size when that is bigger.
inline constexpr uint64_t kMinDramAlignment = 4096;
inline constexpr uint64_t kDefaultDramBytes = uint64_t(1) << 30;

// The driver for the simulated board: owns its DRAM and the simulator.
class SimDriver final : public Driver {
 public:
  // The first alignment() bytes are never handed out, so physical address 0 stays invalid.
  explicit SimDriver(const hw::HwConfig& config, uint64_t dram_bytes = kDefaultDramBytes);

  const hw::HwConfig& config() const override { return config_; }
  uint64_t allocate(uint64_t bytes) override { return allocator_.allocate(bytes); }
  void free(uint64_t addr) override { allocator_.free(addr); }
  uint64_t alignment() const override { return allocator_.alignment(); }
  void write(uint64_t addr, std::span<const uint8_t> bytes) override;
  void read(uint64_t addr, std::span<uint8_t> bytes) const override;
  sim::RunReport run(std::span<const hw::RawInsn> program,
                     const sim::RunOptions& options) override;

  sim::Simulator& simulator() { return sim_; }
  sim::Dram& dram() { return dram_; }
  const DramAllocator& allocator() const { return allocator_; }

 private:
  hw::HwConfig config_;
  sim::Dram dram_;
  sim::Simulator sim_;
  DramAllocator allocator_;
};

// Bytes of one element of memory `mem` (UOP, WGT, INP, ACC, OUT, ACC_8BIT) under `config`.
uint32_t elem_bytes(const hw::HwConfig& config, hw::MemId mem);

}  // namespace tauvta::runtime
