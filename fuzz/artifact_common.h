// Shared by the two artifact targets: deserialize, then the round trip every loaded artifact must
// survive (serialize -> deserialize -> serialize gives the same bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tauvta::fuzz {

void load_artifact(const std::vector<uint8_t>& bytes);

// An artifact's bytes around a manifest and a blob: magic, version, lengths and the checksum.
std::vector<uint8_t> wrap_artifact(const uint8_t* manifest, size_t manifest_size, const uint8_t* blob,
                                   size_t blob_size);

}  // namespace tauvta::fuzz
