// Sub-byte lanes unpacked to int8: the SIMD path and the per-byte table give exactly the lanes
// the definition says (lane k of byte b is bits [k * bits, (k + 1) * bits) of b, sign-extended),
// over every byte value and lengths around the SIMD path's 32-byte blocks; unpack_lanes' partial
// last byte too.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hw/lanes.h"

namespace tauvta::hw {
namespace {

std::vector<int8_t> by_definition(const std::vector<uint8_t>& bytes, int bits, int count) {
  std::vector<int8_t> lanes(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const int bit = i * bits;
    lanes[size_t(i)] = int8_t(sign_extend((bytes[size_t(bit / 8)] >> (bit % 8)) & ((1u << bits) - 1), bits));
  }
  return lanes;
}

TEST(Lanes, SubByteUnpackMatchesTheDefinitionOnEveryPath) {
  for (int bits : {1, 2, 4}) {
    const int per_byte = 8 / bits;
    for (int n : {0, 1, 31, 32, 33, 64, 97, 256, 300}) {
      std::vector<uint8_t> bytes(size_t(n) + 1);
      for (int i = 0; i < n; ++i) bytes[size_t(i)] = uint8_t(i * 167 + 13);  // every value over 256 bytes
      const std::vector<int8_t> want = by_definition(bytes, bits, n * per_byte);
      for (bool simd : {true, false}) {
        std::vector<int8_t> got(want.size() + 1, 99);
        unpack_sub_byte(bytes.data(), bits, n, got.data(), simd);
        EXPECT_EQ(std::vector<int8_t>(got.begin(), got.end() - 1), want) << bits << " bits, " << n << " bytes, simd " << simd;
        EXPECT_EQ(got.back(), 99) << "wrote past the lanes";
      }
      // unpack_lanes: whole bytes plus a last partial byte.
      const int count = n * per_byte + (per_byte > 1 ? 1 : 0);
      std::vector<int8_t> lanes(static_cast<size_t>(count));
      unpack_lanes(bytes.data(), bits, count, lanes.data());
      EXPECT_EQ(lanes, by_definition(bytes, bits, count)) << bits << " bits, " << count << " lanes";
    }
  }
}

}  // namespace
}  // namespace tauvta::hw
