#include "runtime/device.h"

#include <bit>

#include <fmt/format.h>

#include "common/error.h"
#include "runtime/uop_kernel_cache.h"

namespace tauvta::runtime {

namespace {

// std::has_single_bit is a libgcc popcount call on the baseline x86-64 ISA (no POPCNT), and
// lowering asks for element addresses of every load and store it emits.
bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

DramBuffer::DramBuffer(Driver& driver, uint64_t bytes) {
  addr_ = driver.allocate(bytes);
  driver_ = &driver;
  size_ = bytes;
}

DramBuffer::~DramBuffer() { release(); }

DramBuffer::DramBuffer(DramBuffer&& other) noexcept
    : driver_(other.driver_), addr_(other.addr_), size_(other.size_) {
  other.driver_ = nullptr;
  other.addr_ = other.size_ = 0;
}

DramBuffer& DramBuffer::operator=(DramBuffer&& other) noexcept {
  if (this != &other) {
    release();
    driver_ = other.driver_;
    addr_ = other.addr_;
    size_ = other.size_;
    other.driver_ = nullptr;
    other.addr_ = other.size_ = 0;
  }
  return *this;
}

void DramBuffer::release() {
  if (driver_ != nullptr) {
    Driver* d = driver_;
    driver_ = nullptr;
    try {
      d->free(addr_);
    } catch (...) {
      // Freeing a range we allocated cannot fail; never throw from a destructor.
    }
    addr_ = size_ = 0;
  }
}

void DramBuffer::check_range(uint64_t offset, uint64_t len, const char* what) const {
  if (driver_ == nullptr) throw Error(fmt::format("{} on an empty DramBuffer", what));
  if (offset > size_ || len > size_ - offset) {
    throw Error(fmt::format("{}: bytes [{}, {}) are outside the {}-byte DRAM buffer at {:#x}",
                            what, offset, offset + len, size_, addr_));
  }
}

void DramBuffer::copy_in(std::span<const uint8_t> bytes, uint64_t offset) {
  check_range(offset, bytes.size(), "DramBuffer::copy_in");
  driver_->write(addr_ + offset, bytes);
}

void DramBuffer::copy_out(std::span<uint8_t> bytes, uint64_t offset) const {
  check_range(offset, bytes.size(), "DramBuffer::copy_out");
  driver_->read(addr_ + offset, bytes);
}

std::vector<uint8_t> DramBuffer::read_all() const {
  std::vector<uint8_t> out(size_);
  copy_out(out);
  return out;
}

void DramBuffer::fill_zero() {
  std::vector<uint8_t> zeros(size_, 0);
  copy_in(zeros);
}

uint64_t DramBuffer::elem_count(hw::MemId mem) const {
  if (driver_ == nullptr) return 0;
  const uint64_t eb = elem_bytes(driver_->config(), mem);
  // Element sizes are powers of two on every config: a shift, not a division (lowering asks
  // this for every load and store it emits).
  return power_of_two(eb) ? size_ >> std::countr_zero(eb) : size_ / eb;
}

uint32_t DramBuffer::elem_addr(hw::MemId mem, uint64_t elem_offset) const {
  if (driver_ == nullptr) throw Error("elem_addr on an empty DramBuffer");
  const uint64_t eb = elem_bytes(driver_->config(), mem);
  if (power_of_two(eb)) {
    const int sh = std::countr_zero(eb);
    const uint64_t addr = (addr_ >> sh) + elem_offset;
    if ((addr_ & (eb - 1)) == 0 && elem_offset <= (size_ >> sh) && addr <= UINT32_MAX) return uint32_t(addr);
  }
  if (addr_ % eb != 0) {
    throw Error(fmt::format("DRAM buffer at {:#x} is not aligned to the {}-byte {} element", addr_,
                            eb, hw::mem_id_name(uint8_t(mem))));
  }
  if (elem_offset > size_ / eb) {
    throw Error(fmt::format("element {} of a {}-byte DRAM buffer is past its {} {} elements",
                            elem_offset, size_, size_ / eb, hw::mem_id_name(uint8_t(mem))));
  }
  const uint64_t addr = addr_ / eb + elem_offset;
  if (addr > UINT32_MAX) {
    throw Error(fmt::format("{} element address {} does not fit the 32-bit dram_base field",
                            hw::mem_id_name(uint8_t(mem)), addr));
  }
  return uint32_t(addr);
}

Device::Device(std::unique_ptr<Driver> driver)
    : driver_(std::move(driver)), layout_(driver_->config()) {
  uop_cache_ = std::make_unique<UopKernelCache>(*driver_);
}

Device::Device(const hw::HwConfig& config, uint64_t dram_bytes)
    : Device(std::make_unique<SimDriver>(config, dram_bytes)) {}

Device::~Device() = default;

DramBuffer Device::alloc_elems(hw::MemId mem, uint64_t count) {
  return DramBuffer(*driver_, count * elem_bytes(config(), mem));
}

}  // namespace tauvta::runtime
