// The compiled-network artifact (MODEL.tauvta): everything `tauvta run` needs without the ONNX
// file. Layout (docs/artifact.md):
//   8 bytes magic "TAUVTA\x1a\n", u32 format version, u64 manifest length, manifest (JSON),
//   u64 blob length, blob (tensors, encoded instruction streams, DRAM constants),
//   u64 FNV-1a checksum of everything before it.
// The manifest holds the fully resolved config, the quantized graph (initializers in the blob),
// the layer table (placement, reason, workload, schedule and its source), the program's layers,
// regions and streams, and where activations live. A file of another format version, a
// truncated or corrupted file is a one-line error, never a crash.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "backend/network.h"

namespace tauvta::backend {

inline constexpr uint32_t kArtifactVersion = 1;

std::vector<uint8_t> serialize_network(const CompiledNetwork& net);
// `source` names the input in error messages.
CompiledNetwork deserialize_network(const std::vector<uint8_t>& bytes, const std::string& source);

void save_network(const CompiledNetwork& net, const std::filesystem::path& path, bool force);
CompiledNetwork load_network(const std::filesystem::path& path);

// Whether to read the file as an artifact: named .tauvta, or starting with the artifact magic.
bool is_network_artifact(const std::filesystem::path& path);

}  // namespace tauvta::backend
