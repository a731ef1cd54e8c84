#include "common/file_io.h"

#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/error.h"

namespace tauvta {
namespace {

void write_whole_file(const std::filesystem::path& path, const char* data, size_t size, bool force) {
  check_can_write(path, force);
  write_file_atomic(path, std::string_view(data, size));
}

template <typename Container>
Container read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", path.string()));
  Container bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(fmt::format("{}: read failed", path.string()));
  return bytes;
}

}  // namespace

void check_can_write(const std::filesystem::path& path, bool force) {
  if (!path.empty() && !force && std::filesystem::exists(path)) {
    throw Error(fmt::format("{}: file exists; pass --force to overwrite it", path.string()));
  }
}

std::vector<uint8_t> read_binary(const std::filesystem::path& path) { return read_whole_file<std::vector<uint8_t>>(path); }

std::string read_text(const std::filesystem::path& path) { return read_whole_file<std::string>(path); }

void write_binary(const std::filesystem::path& path, std::span<const uint8_t> bytes, bool force) {
  write_whole_file(path, reinterpret_cast<const char*>(bytes.data()), bytes.size(), force);
}

void write_text(const std::filesystem::path& path, const std::string& text, bool force) {
  write_whole_file(path, text.data(), text.size(), force);
}

}  // namespace tauvta
