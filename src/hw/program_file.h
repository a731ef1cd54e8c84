// Instruction streams and micro-op arrays as files: VTA's little-endian layout, 16 bytes per
// instruction and 4 per micro-op, as its runtime writes them to DRAM.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "hw/insn.h"

namespace tauvta::hw {

// Throws tauvta::Error naming the file when its size is not a whole number of instructions.
std::vector<RawInsn> read_program(const std::filesystem::path& path);
std::vector<uint8_t> program_bytes(std::span<const RawInsn> program);
std::vector<uint32_t> read_uops(const std::filesystem::path& path);
std::vector<uint8_t> uop_bytes(std::span<const uint32_t> uops);

}  // namespace tauvta::hw
