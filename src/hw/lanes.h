// Lane packing: VTA packs two's-complement lanes densely from bit 0 of byte 0 (little-endian), so
// with 4-bit data lane 2k is the low nibble of byte k. These helpers convert between that packed
// DRAM form and one integer per lane, and wrap values to a bit width.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace tauvta::hw {

// Sign-extends the low `bits` bits of v (1 <= bits <= 64): wrapping to a two's-complement width.
inline int64_t sign_extend(uint64_t v, int bits) {
  if (bits >= 64) return int64_t(v);
  const int sh = 64 - bits;
  return int64_t(v << sh) >> sh;
}

// The whole bytes of 1/2/4-bit lanes (whole_bytes * 8 / bits lanes) as int8 lanes, sign-extended
// (lanes_unpack.cpp): AVX2 when `simd` and the CPU has it, else a table per byte value. Both give
// the bytes of the shift-and-extend loop in unpack_lanes.
void unpack_sub_byte(const uint8_t* src, int bits, int whole_bytes, int8_t* dst, bool simd = true);

// Reads `count` lanes of `bits` each (1, 2, 4, 8, 16, 32 or 64) from packed bytes, sign-extended.
template <typename T>
void unpack_lanes(const uint8_t* src, int bits, int count, T* dst) {
  switch (bits) {
    case 8:
      for (int i = 0; i < count; ++i) dst[i] = T(int8_t(src[i]));
      return;
    case 16:
      for (int i = 0; i < count; ++i) {
        int16_t v;
        std::memcpy(&v, src + 2 * i, 2);
        dst[i] = T(v);
      }
      return;
    case 32:
      for (int i = 0; i < count; ++i) {
        int32_t v;
        std::memcpy(&v, src + 4 * i, 4);
        dst[i] = T(v);
      }
      return;
    case 64:
      for (int i = 0; i < count; ++i) {
        int64_t v;
        std::memcpy(&v, src + 8 * i, 8);
        dst[i] = T(v);
      }
      return;
    default: {  // 1, 2 or 4 bits: several lanes per byte, lane k of a byte at bit k * bits
      const int per_byte = 8 / bits;
      const int whole = count / per_byte;
      if constexpr (std::is_same_v<T, int8_t>) {
        unpack_sub_byte(src, bits, whole, dst);
      } else {
        for (int byte = 0; byte < whole; ++byte) {
          // Shifting lane k to the top of an int8 and back sign-extends it.
          const uint8_t b = src[byte];
          for (int k = 0; k < per_byte; ++k) {
            dst[byte * per_byte + k] = T(int8_t(uint8_t(b << (8 - bits * (k + 1)))) >> (8 - bits));
          }
        }
      }
      for (int i = whole * per_byte; i < count; ++i) {
        const unsigned raw = (src[i / per_byte] >> ((i % per_byte) * bits)) & ((1u << bits) - 1);
        dst[i] = T(sign_extend(raw, bits));
      }
      return;
    }
  }
}

// Writes `count` lanes, keeping the low `bits` bits of each value.
template <typename T>
void pack_lanes(const T* src, int bits, int count, uint8_t* dst) {
  switch (bits) {
    case 8:
      for (int i = 0; i < count; ++i) dst[i] = uint8_t(src[i]);
      return;
    case 16:
      for (int i = 0; i < count; ++i) {
        const uint16_t v = uint16_t(src[i]);
        std::memcpy(dst + 2 * i, &v, 2);
      }
      return;
    case 32:
      for (int i = 0; i < count; ++i) {
        const uint32_t v = uint32_t(src[i]);
        std::memcpy(dst + 4 * i, &v, 4);
      }
      return;
    case 64:
      for (int i = 0; i < count; ++i) {
        const uint64_t v = uint64_t(int64_t(src[i]));
        std::memcpy(dst + 8 * i, &v, 8);
      }
      return;
    default: {
      const int per_byte = 8 / bits;
      const unsigned mask = (1u << bits) - 1;
      for (int i = 0; i < count; i += per_byte) {
        unsigned byte = 0;
        for (int k = 0; k < per_byte && i + k < count; ++k) {
          byte |= (unsigned(src[i + k]) & mask) << (k * bits);
        }
        dst[i / per_byte] = uint8_t(byte);
      }
      return;
    }
  }
}

// Writes lane `lane` (the low `bits` bits of `value`) into a packed byte array, leaving the other
// lanes alone.
inline void pack_lane(std::span<uint8_t> bytes, int bits, size_t lane, int64_t value) {
  if (bits % 8 == 0) {
    uint8_t* p = bytes.data() + lane * size_t(bits / 8);
    for (int b = 0; b < bits / 8; ++b) p[b] = uint8_t(uint64_t(value) >> (8 * b));
    return;
  }
  const size_t bit = lane * size_t(bits);  // 1, 2 or 4 bits: the lane lies inside one byte
  const uint8_t mask = uint8_t(((1u << bits) - 1) << (bit % 8));
  uint8_t& byte = bytes[bit / 8];
  byte = uint8_t((byte & ~mask) | ((uint64_t(value) << (bit % 8)) & mask));
}

// Reads lane `lane` of a packed byte array, sign-extended.
inline int64_t unpack_lane(std::span<const uint8_t> bytes, int bits, size_t lane) {
  if (bits % 8 == 0) {
    const uint8_t* p = bytes.data() + lane * size_t(bits / 8);
    uint64_t v = 0;
    for (int b = 0; b < bits / 8; ++b) v |= uint64_t(p[b]) << (8 * b);
    return sign_extend(v, bits);
  }
  const size_t bit = lane * size_t(bits);
  return sign_extend(uint64_t(bytes[bit / 8] >> (bit % 8)), bits);
}

}  // namespace tauvta::hw
