#include "hw/program_file.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/file_io.h"

namespace tauvta::hw {
namespace {

uint64_t load_little_endian(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

void store_little_endian(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out.push_back(uint8_t(v >> (8 * k)));
}

}  // namespace

std::vector<RawInsn> read_program(const std::filesystem::path& path) {
  const std::vector<uint8_t> bytes = read_binary(path);
  if (bytes.size() % 16 != 0) {
    throw Error(fmt::format("{}: size {} bytes is not a multiple of 16 (one instruction is 16 "
                            "bytes)",
                            path.string(), bytes.size()));
  }
  std::vector<RawInsn> program(bytes.size() / 16);
  for (size_t k = 0; k < program.size(); ++k) {
    program[k].lo = load_little_endian(&bytes[16 * k], 8);
    program[k].hi = load_little_endian(&bytes[16 * k + 8], 8);
  }
  return program;
}

std::vector<uint8_t> program_bytes(std::span<const RawInsn> program) {
  std::vector<uint8_t> out;
  out.reserve(program.size() * 16);
  for (const RawInsn& r : program) {
    store_little_endian(out, r.lo, 8);
    store_little_endian(out, r.hi, 8);
  }
  return out;
}

std::vector<uint32_t> read_uops(const std::filesystem::path& path) {
  const std::vector<uint8_t> bytes = read_binary(path);
  if (bytes.size() % 4 != 0) {
    throw Error(fmt::format("{}: size {} bytes is not a multiple of 4 (one micro-op is 4 bytes)",
                            path.string(), bytes.size()));
  }
  std::vector<uint32_t> uops(bytes.size() / 4);
  for (size_t k = 0; k < uops.size(); ++k) uops[k] = uint32_t(load_little_endian(&bytes[4 * k], 4));
  return uops;
}

std::vector<uint8_t> uop_bytes(std::span<const uint32_t> uops) {
  std::vector<uint8_t> out;
  out.reserve(uops.size() * 4);
  for (uint32_t u : uops) store_little_endian(out, u, 4);
  return out;
}

}  // namespace tauvta::hw
