#include "runtime/driver.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::runtime {

sim::RunReport Driver::run_decoded(std::span<const hw::Insn> program, const hw::IsaLayout& layout,
                                   const sim::RunOptions& options) {
  std::vector<hw::RawInsn> raw;
  raw.reserve(program.size());
  for (const hw::Insn& insn : program) raw.push_back(layout.encode(insn));
  return run(raw, options);
}

uint32_t elem_bytes(const hw::HwConfig& config, hw::MemId mem) {
  switch (mem) {
    case hw::MemId::kUop: return uint32_t(config.uop_elem_bytes());
    case hw::MemId::kWgt: return uint32_t(config.wgt_elem_bytes());
    case hw::MemId::kInp: return uint32_t(config.inp_elem_bytes());
    case hw::MemId::kAcc: return uint32_t(config.acc_elem_bytes());
    case hw::MemId::kOut: return uint32_t(config.out_elem_bytes());
    case hw::MemId::kAcc8: return uint32_t(std::max(1, config.acc_elem_bytes() / 4));
  }
  throw InternalError(fmt::format("elem_bytes: memory id {}", int(mem)));
}

DramAllocator::DramAllocator(uint64_t base, uint64_t end, uint64_t alignment)
    : alignment_(alignment) {
  if (!std::has_single_bit(alignment)) {
    throw InternalError(fmt::format("DRAM alignment {} is not a power of two", alignment));
  }
  base = (base + alignment - 1) & ~(alignment - 1);
  end &= ~(alignment - 1);
  if (end > base) free_.emplace(base, end - base);
}

uint64_t DramAllocator::allocate(uint64_t bytes) {
  const uint64_t size = std::max<uint64_t>(alignment_, (bytes + alignment_ - 1) & ~(alignment_ - 1));
  if (size < bytes) throw Error(fmt::format("cannot allocate {} bytes of DRAM", bytes));
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const uint64_t addr = it->first;
    const uint64_t rest = it->second - size;
    free_.erase(it);
    if (rest != 0) free_.emplace(addr + size, rest);
    used_.emplace(addr, size);
    in_use_ += size;
    return addr;
  }
  uint64_t largest = 0;
  for (const auto& [a, s] : free_) largest = std::max(largest, s);
  throw Error(fmt::format("out of device DRAM: cannot allocate {} bytes ({} in use, largest free "
                          "block {} bytes)",
                          bytes, in_use_, largest));
}

void DramAllocator::free(uint64_t addr) {
  auto it = used_.find(addr);
  if (it == used_.end()) {
    throw Error(fmt::format("free of DRAM address {:#x}, which is not an allocation", addr));
  }
  uint64_t start = addr;
  uint64_t size = it->second;
  in_use_ -= size;
  used_.erase(it);
  // Merge with the free neighbours on both sides.
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  free_.emplace(start, size);
}

namespace {

uint64_t sim_alignment(const hw::HwConfig& c) {
  uint64_t a = kMinDramAlignment;
  for (int m = 0; m < hw::kNumMemIds; ++m) {
    a = std::max<uint64_t>(a, std::bit_ceil(uint64_t(elem_bytes(c, hw::MemId(m)))));
  }
  return a;
}

}  // namespace

SimDriver::SimDriver(const hw::HwConfig& config, uint64_t dram_bytes)
    : config_(config),
      dram_(dram_bytes),
      sim_(config_, dram_),
      allocator_(sim_alignment(config_), dram_bytes, sim_alignment(config_)) {}

void SimDriver::write(uint64_t addr, std::span<const uint8_t> bytes) {
  dram_.write(addr, bytes, "host write");
}

void SimDriver::read(uint64_t addr, std::span<uint8_t> bytes) const {
  dram_.read(addr, bytes, "host read");
}

sim::RunReport SimDriver::run(std::span<const hw::RawInsn> program,
                              const sim::RunOptions& options) {
  return sim_.run(program, options);
}

}  // namespace tauvta::runtime
