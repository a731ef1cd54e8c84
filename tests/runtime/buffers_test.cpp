// DramBuffer, Device and the DRAM allocators: alignment, element addresses, copies, bounds.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "common/error.h"
#include "runtime/device.h"
#include "runtime/driver.h"

namespace tauvta::runtime {
namespace {

TEST(DramAllocator, FirstFitAlignsAndCoalesces) {
  DramAllocator a(4096, 4096 * 9, 4096);
  const uint64_t x = a.allocate(1);
  const uint64_t y = a.allocate(5000);  // two pages
  const uint64_t z = a.allocate(4096);
  EXPECT_EQ(x, 4096u);
  EXPECT_EQ(y, 8192u);
  EXPECT_EQ(z, 16384u);
  EXPECT_EQ(a.bytes_in_use(), 4u * 4096);
  a.free(y);
  EXPECT_EQ(a.allocate(4096), 8192u);  // first fit reuses the hole
  a.free(8192);
  a.free(x);
  a.free(z);
  EXPECT_EQ(a.live_allocations(), 0u);
  // Everything merged back: the whole range is one block again.
  EXPECT_EQ(a.allocate(8 * 4096), 4096u);
  EXPECT_THROW(a.allocate(1), Error);
  EXPECT_THROW(a.free(12345), Error);
}

TEST(DramBuffer, AlignmentAndElementAddresses) {
  const hw::HwConfig c;
  Device dev(c, 64 << 20);
  EXPECT_GE(dev.driver().alignment(), 4096u);
  DramBuffer a = dev.alloc(100);
  DramBuffer b = dev.alloc(1);
  EXPECT_NE(a.phys_addr(), 0u);  // address 0 is never handed out
  for (const DramBuffer* buf : {&a, &b}) {
    EXPECT_EQ(buf->phys_addr() % dev.driver().alignment(), 0u);
    for (int m = 0; m < hw::kNumMemIds; ++m) {
      const uint32_t eb = elem_bytes(c, hw::MemId(m));
      EXPECT_EQ(buf->phys_addr() % eb, 0u);
      EXPECT_EQ(uint64_t(buf->elem_addr(hw::MemId(m))) * eb, buf->phys_addr());
    }
  }
  EXPECT_EQ(a.elem_addr(hw::MemId::kInp, 3), a.phys_addr() / 16 + 3);
  EXPECT_EQ(a.elem_count(hw::MemId::kInp), 100u / 16);
  EXPECT_THROW(a.elem_addr(hw::MemId::kInp, 7), Error);  // past the buffer
  EXPECT_NO_THROW(a.elem_addr(hw::MemId::kInp, 6));     // one past the end is an address
}

TEST(DramBuffer, CopyRoundTripAndBounds) {
  Device dev(hw::HwConfig{}, 64 << 20);
  DramBuffer buf = dev.alloc(1000);
  std::vector<uint8_t> in(1000);
  std::iota(in.begin(), in.end(), uint8_t(7));
  buf.copy_in(in);
  EXPECT_EQ(buf.read_all(), in);
  std::vector<uint8_t> part(10);
  buf.copy_out(part, 990);
  EXPECT_EQ(part, std::vector<uint8_t>(in.end() - 10, in.end()));
  EXPECT_THROW(buf.copy_out(part, 991), Error);
  EXPECT_THROW(buf.copy_in(in, 1), Error);
  std::vector<uint8_t> big(1001);
  EXPECT_THROW(buf.copy_in(big), Error);
  buf.fill_zero();
  EXPECT_EQ(buf.read_all(), std::vector<uint8_t>(1000, 0));
}

TEST(DramBuffer, MoveAndRelease) {
  Device dev(hw::HwConfig{}, 1 << 20);
  auto& drv = static_cast<SimDriver&>(dev.driver());
  const size_t before = drv.allocator().live_allocations();
  {
    DramBuffer a = dev.alloc(10);
    DramBuffer b = std::move(a);
    EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
    EXPECT_TRUE(b.valid());
    EXPECT_EQ(drv.allocator().live_allocations(), before + 1);
    DramBuffer c = dev.alloc(10);
    c = std::move(b);  // frees c's old range
    EXPECT_EQ(drv.allocator().live_allocations(), before + 1);
  }
  EXPECT_EQ(drv.allocator().live_allocations(), before);
  EXPECT_THROW(dev.alloc(2 << 20), Error);  // more than the DRAM
  DramBuffer empty;
  EXPECT_THROW(empty.elem_addr(hw::MemId::kInp), Error);
}

// A driver whose allocations are only 16-byte aligned, to exercise the alignment check.
class LooseDriver final : public Driver {
 public:
  LooseDriver() : alloc_(16, 1 << 20, 16) {}
  const hw::HwConfig& config() const override { return config_; }
  uint64_t allocate(uint64_t bytes) override { return alloc_.allocate(bytes); }
  void free(uint64_t addr) override { alloc_.free(addr); }
  uint64_t alignment() const override { return 16; }
  void write(uint64_t, std::span<const uint8_t>) override {}
  void read(uint64_t, std::span<uint8_t>) const override {}
  sim::RunReport run(std::span<const hw::RawInsn>, const sim::RunOptions&) override { return {}; }

 private:
  hw::HwConfig config_;
  DramAllocator alloc_;
};

TEST(DramBuffer, MisalignedElementAddressThrows) {
  LooseDriver drv;
  DramBuffer buf(drv, 16);  // at byte 16: fine for INP (16 B), not for WGT (256 B)
  EXPECT_EQ(buf.elem_addr(hw::MemId::kInp), 1u);
  try {
    (void)buf.elem_addr(hw::MemId::kWgt);
    FAIL() << "expected an alignment error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not aligned"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tauvta::runtime
