#include "cli/cli_io.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/atomic_file.h"
#include "common/error.h"

namespace tauvta::cli {
namespace {

uint64_t load_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

void store_le(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out.push_back(uint8_t(v >> (8 * k)));
}

void write_file(const std::filesystem::path& path, const char* data, size_t size, bool force) {
  check_can_write(path, force);
  write_file_atomic(path, std::string_view(data, size));
}

}  // namespace

void check_can_write(const std::filesystem::path& path, bool force) {
  if (!path.empty() && !force && std::filesystem::exists(path)) {
    throw Error(fmt::format("{}: file exists; pass --force to overwrite it", path.string()));
  }
}

std::vector<uint8_t> read_binary(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", path.string()));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(fmt::format("{}: read failed", path.string()));
  return bytes;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", path.string()));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(fmt::format("{}: read failed", path.string()));
  return text;
}

void write_binary(const std::filesystem::path& path, std::span<const uint8_t> bytes, bool force) {
  write_file(path, reinterpret_cast<const char*>(bytes.data()), bytes.size(), force);
}

void write_text(const std::filesystem::path& path, const std::string& text, bool force) {
  write_file(path, text.data(), text.size(), force);
}

std::vector<hw::RawInsn> read_program(const std::filesystem::path& path) {
  const std::vector<uint8_t> bytes = read_binary(path);
  if (bytes.size() % 16 != 0) {
    throw Error(fmt::format("{}: size {} bytes is not a multiple of 16 (one instruction is 16 "
                            "bytes)",
                            path.string(), bytes.size()));
  }
  std::vector<hw::RawInsn> program(bytes.size() / 16);
  for (size_t k = 0; k < program.size(); ++k) {
    program[k].lo = load_le(&bytes[16 * k], 8);
    program[k].hi = load_le(&bytes[16 * k + 8], 8);
  }
  return program;
}

std::vector<uint8_t> program_bytes(std::span<const hw::RawInsn> program) {
  std::vector<uint8_t> out;
  out.reserve(program.size() * 16);
  for (const hw::RawInsn& r : program) {
    store_le(out, r.lo, 8);
    store_le(out, r.hi, 8);
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
  for (size_t k = 0; k < uops.size(); ++k) uops[k] = uint32_t(load_le(&bytes[4 * k], 4));
  return uops;
}

std::vector<uint8_t> uop_bytes(std::span<const uint32_t> uops) {
  std::vector<uint8_t> out;
  out.reserve(uops.size() * 4);
  for (uint32_t u : uops) store_le(out, u, 4);
  return out;
}

hw::HwConfig load_config(const std::string& path) {
  if (path.empty()) return hw::HwConfig{};
  // A VTA configuration name ("1x16_i8w8a32_15_15_18_17") when no such file exists.
  if (!std::filesystem::exists(path) && path.find('/') == std::string::npos && path.find(".json") == std::string::npos) {
    // A word with no '_' is no VTA name: most likely a preset's name ("pynq", "zcu104").
    if (path.find('_') == std::string::npos) {
      std::string presets;
#ifdef TAUVTA_SOURCE_DIR
      const std::filesystem::path dir = std::filesystem::path(TAUVTA_SOURCE_DIR) / "configs";
      std::error_code ec;
      std::vector<std::string> names;
      for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        if (e.path().extension() == ".json") names.push_back((dir / e.path().filename()).string());
      }
      std::sort(names.begin(), names.end());
      for (const std::string& n : names) {
        if (std::filesystem::path(n).stem() == path) {
          throw Error(fmt::format("config '{}': no such file or VTA name; the preset is {}", path, n));
        }
      }
      if (!names.empty()) presets = fmt::format("; presets: {}", fmt::join(names, ", "));
#endif
      throw Error(fmt::format("config '{}': no such file, and not a VTA name such as 1x16_i8w8a32_15_15_18_17{}", path,
                              presets));
    }
    return hw::HwConfig::from_name(path);
  }
  return hw::HwConfig::load(path);
}

nlohmann::json load_timing_override(const std::string& text) {
  if (text.empty()) return nullptr;
  nlohmann::json j;
  const size_t first = text.find_first_not_of(" \t");
  const bool inline_json = first != std::string::npos && text[first] == '{';
  try {
    if (inline_json) {
      j = nlohmann::json::parse(text);
    } else {
      std::ifstream in(text);
      if (!in) throw Error(fmt::format("--timing {}: cannot open (give a file or an inline JSON object)", text));
      j = nlohmann::json::parse(in);
    }
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("--timing {}: invalid JSON: {}", inline_json ? "object" : text, e.what()));
  }
  if (j.is_object() && j.contains("TIMING")) j = j["TIMING"];
  if (!j.is_object()) throw Error("--timing: expected a JSON object of TIMING keys");
  return j;
}

}  // namespace tauvta::cli
