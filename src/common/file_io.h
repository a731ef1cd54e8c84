// Reading and writing whole files for the commands and the library calls behind them: every
// output refuses to replace an existing file unless asked (`force`), and is written atomically
// (common/atomic_file.h), so nothing the user gave is lost or half-overwritten.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace tauvta {

// Throws tauvta::Error when `path` exists and `force` is false (an empty path is never refused).
void check_can_write(const std::filesystem::path& path, bool force);
std::vector<uint8_t> read_binary(const std::filesystem::path& path);
std::string read_text(const std::filesystem::path& path);
void write_binary(const std::filesystem::path& path, std::span<const uint8_t> bytes, bool force);
void write_text(const std::filesystem::path& path, const std::string& text, bool force);

}  // namespace tauvta
