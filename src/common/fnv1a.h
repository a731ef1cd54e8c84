// FNV-1a, 64 bits: a stable content hash for cache keys and file names (not cryptographic).
// Chain calls by passing the previous result as `h`.
#pragma once

#include <cstdint>
#include <string_view>

namespace tauvta {

inline constexpr uint64_t kFnv1aOffset = 1469598103934665603ull;

inline uint64_t fnv1a64(std::string_view bytes, uint64_t h = kFnv1aOffset) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace tauvta
