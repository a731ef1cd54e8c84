// Shared by the two artifact targets (artifact_fuzz.cpp, artifact_body_fuzz.cpp).
#include "artifact_common.h"

#include <string_view>

#include "backend/artifact.h"
#include "common/fnv1a.h"
#include "fuzz_target.h"
#include "graph/tensor.h"
#include "precision/formats.h"

namespace tauvta::fuzz {

void load_artifact(const std::vector<uint8_t>& bytes) {
  const TensorLimitScope limit(int64_t(64) << 20);
  const backend::CompiledNetwork net = backend::deserialize_network(bytes, "fuzz.tauvta");
  (void)precision::format_slots(net);
  const std::vector<uint8_t> again = backend::serialize_network(net);
  const backend::CompiledNetwork net2 = backend::deserialize_network(again, "reserialized");
  check(backend::serialize_network(net2) == again, "serialize(deserialize(serialize(net))) differs");
}

std::vector<uint8_t> wrap_artifact(const uint8_t* manifest, size_t manifest_size, const uint8_t* blob,
                                   size_t blob_size) {
  std::vector<uint8_t> out = {'T', 'A', 'U', 'V', 'T', 'A', 0x1a, '\n'};
  const auto put = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(uint8_t(v >> (8 * i)));
  };
  put(backend::kArtifactVersion, 4);
  put(manifest_size, 8);
  out.insert(out.end(), manifest, manifest + manifest_size);
  put(blob_size, 8);
  out.insert(out.end(), blob, blob + blob_size);
  // The checksum artifact.cpp checks: FNV-1a of everything before it.
  put(fnv1a64(std::string_view(reinterpret_cast<const char*>(out.data()), out.size())), 8);
  return out;
}

}  // namespace tauvta::fuzz
