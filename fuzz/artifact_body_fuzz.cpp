// Compiled-network artifacts past their checksum: the input is a u32 (little-endian) manifest
// length, the manifest JSON, then the blob; the target writes the magic, version, section
// lengths and a valid checksum around them, so every input reaches the manifest and blob parser
// (config, graph, tensors, layers, program streams, regions, constants).
#include <algorithm>
#include <vector>

#include "artifact_common.h"
#include "fuzz_target.h"

TAUVTA_FUZZ_TARGET(artifact_body) {
  tauvta::fuzz::ByteReader in(data, size);
  const size_t mlen = std::min<size_t>(in.u32(), in.size());
  const uint8_t* manifest = in.data();
  in.skip(mlen);
  tauvta::fuzz::load_artifact(tauvta::fuzz::wrap_artifact(manifest, mlen, in.data(), in.size()));
}
