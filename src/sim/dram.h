// Dram: the board's flat, byte-addressed DRAM. Pages are mapped lazily (a large DRAM costs
// nothing until touched) and start zeroed. Every access is bounds-checked and names what it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace tauvta::sim {

class Dram {
 public:
  explicit Dram(uint64_t bytes);
  ~Dram();
  Dram(const Dram&) = delete;
  Dram& operator=(const Dram&) = delete;

  uint64_t size() const { return size_; }
  bool contains(uint64_t addr, uint64_t len) const { return addr <= size_ && len <= size_ - addr; }
  // Unchecked pointer; callers check contains() first (builds no message on the hot path).
  uint8_t* raw(uint64_t addr) { return data_ + addr; }
  // Throws tauvta::Error "<what>: DRAM bytes [addr, addr+len) are past the end (size N)".
  void check(uint64_t addr, uint64_t len, std::string_view what) const;
  uint8_t* at(uint64_t addr, uint64_t len, std::string_view what) {
    check(addr, len, what);
    return data_ + addr;
  }
  const uint8_t* at(uint64_t addr, uint64_t len, std::string_view what) const {
    check(addr, len, what);
    return data_ + addr;
  }
  void write(uint64_t addr, std::span<const uint8_t> bytes, std::string_view what = "write");
  void read(uint64_t addr, std::span<uint8_t> bytes, std::string_view what = "read") const;

 private:
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace tauvta::sim
