// Compiled-network artifacts (.tauvta, backend::deserialize_network) as raw bytes: header,
// version, section lengths, the FNV-1a checksum, then (for the rare input that passes it) the
// manifest and blob. artifact_body_fuzz reaches the parser behind the checksum.
#include <vector>

#include "artifact_common.h"
#include "fuzz_target.h"

TAUVTA_FUZZ_TARGET(artifact) {
  tauvta::fuzz::load_artifact(std::vector<uint8_t>(data, data + size));
}
