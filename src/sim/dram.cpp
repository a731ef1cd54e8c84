#include "sim/dram.h"

#include <sys/mman.h>

#include <cstring>

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::sim {

Dram::Dram(uint64_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) throw Error(fmt::format("cannot reserve {} bytes of simulated DRAM", bytes));
  data_ = static_cast<uint8_t*>(p);
}

Dram::~Dram() {
  if (data_ != nullptr) munmap(data_, size_);
}

void Dram::check(uint64_t addr, uint64_t len, std::string_view what) const {
  if (addr > size_ || len > size_ - addr) {
    throw Error(fmt::format("{}: DRAM bytes [{:#x}, {:#x}) are past the end of DRAM (size {:#x})",
                            what, addr, addr + len, size_));
  }
}

void Dram::write(uint64_t addr, std::span<const uint8_t> bytes, std::string_view what) {
  if (!bytes.empty()) std::memcpy(at(addr, bytes.size(), what), bytes.data(), bytes.size());
}

void Dram::read(uint64_t addr, std::span<uint8_t> bytes, std::string_view what) const {
  if (!bytes.empty()) std::memcpy(bytes.data(), at(addr, bytes.size(), what), bytes.size());
}

}  // namespace tauvta::sim
