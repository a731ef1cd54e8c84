// Device and DramBuffer: what a host program holds. A Device is one accelerator (its HwConfig,
// its Driver, the ISA layout and the micro-kernel cache that mirrors its micro-op SRAM); a
// DramBuffer is an RAII range of the device's physical DRAM with host copy-in/copy-out and the
// element addresses instructions need.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "hw/isa_layout.h"
#include "runtime/driver.h"

namespace tauvta::runtime {

class Device;
class UopKernelCache;

class DramBuffer {
 public:
  DramBuffer() = default;
  // Allocates `bytes` (rounded up to the driver's alignment) on `driver`; the buffer must not
  // outlive the driver.
  DramBuffer(Driver& driver, uint64_t bytes);
  ~DramBuffer();
  DramBuffer(DramBuffer&& other) noexcept;
  DramBuffer& operator=(DramBuffer&& other) noexcept;
  DramBuffer(const DramBuffer&) = delete;
  DramBuffer& operator=(const DramBuffer&) = delete;

  bool valid() const { return driver_ != nullptr; }
  uint64_t size() const { return size_; }          // bytes asked for
  uint64_t phys_addr() const { return addr_; }     // byte address in device DRAM

  // Host <-> device copies at byte `offset`. Throw tauvta::Error past the end of the buffer.
  void copy_in(std::span<const uint8_t> bytes, uint64_t offset = 0);
  void copy_out(std::span<uint8_t> bytes, uint64_t offset = 0) const;
  std::vector<uint8_t> read_all() const;
  void fill_zero();

  // Element address of the buffer start for memory type `mem` (the dram_base unit of LOAD and
  // STORE), plus `elem_offset` elements. Throws when the buffer is not element-aligned for `mem`,
  // when the element lies past the buffer, or when the address does not fit 32 bits.
  uint32_t elem_addr(hw::MemId mem, uint64_t elem_offset = 0) const;
  // Number of whole `mem` elements the buffer holds.
  uint64_t elem_count(hw::MemId mem) const;

  void release();  // frees now; the buffer becomes invalid

 private:
  void check_range(uint64_t offset, uint64_t len, const char* what) const;

  Driver* driver_ = nullptr;
  uint64_t addr_ = 0;
  uint64_t size_ = 0;
};

class Device {
 public:
  explicit Device(std::unique_ptr<Driver> driver);
  // A simulated board of `config` with `dram_bytes` of DRAM.
  explicit Device(const hw::HwConfig& config, uint64_t dram_bytes = kDefaultDramBytes);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const hw::HwConfig& config() const { return driver_->config(); }
  const hw::IsaLayout& layout() const { return layout_; }
  Driver& driver() { return *driver_; }
  const Driver& driver() const { return *driver_; }
  UopKernelCache& uop_cache() { return *uop_cache_; }
  const UopKernelCache& uop_cache() const { return *uop_cache_; }

  DramBuffer alloc(uint64_t bytes) { return DramBuffer(*driver_, bytes); }
  // Bytes for `count` elements of memory type `mem`.
  DramBuffer alloc_elems(hw::MemId mem, uint64_t count);

 private:
  friend class CommandBuilder;
  std::unique_ptr<Driver> driver_;
  hw::IsaLayout layout_;
  std::unique_ptr<UopKernelCache> uop_cache_;
  bool builder_active_ = false;  // one CommandBuilder at a time owns the instruction stream
};

}  // namespace tauvta::runtime
