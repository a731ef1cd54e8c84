// File plumbing the tauvta subcommands share: reading and writing binary and text files with
// errors that name the file, programs and micro-op arrays in their DRAM byte order, and the
// --config option (default: the built-in Pynq configuration, HwConfig{}).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/hw_config.h"
#include "hw/insn.h"

namespace tauvta::cli {

std::vector<uint8_t> read_binary(const std::filesystem::path& path);
std::string read_text(const std::filesystem::path& path);

// Throws "<path>: file exists; pass --force to overwrite it" when `path` (non-empty) exists and
// `force` is off. Commands check every output before writing any.
void check_can_write(const std::filesystem::path& path, bool force);

// Refuses to replace an existing file unless `force`; the error names the file.
void write_binary(const std::filesystem::path& path, std::span<const uint8_t> bytes, bool force);
void write_text(const std::filesystem::path& path, const std::string& text, bool force);

// An instruction stream: 16 little-endian bytes per instruction. A size that is not a multiple
// of 16 is an error naming the file and its size.
std::vector<hw::RawInsn> read_program(const std::filesystem::path& path);
std::vector<uint8_t> program_bytes(std::span<const hw::RawInsn> program);

// Micro-ops: 4 little-endian bytes each.
std::vector<uint32_t> read_uops(const std::filesystem::path& path);
std::vector<uint8_t> uop_bytes(std::span<const uint32_t> uops);

// `path` empty: HwConfig{} (the Pynq default); a VTA config name such as 1x16_i8w8a32_15_15_18_17
// (when no such file exists): HwConfig::from_name; otherwise HwConfig::load(path).
hw::HwConfig load_config(const std::string& path);

// `--timing`: a TIMING object given inline ('{"DRAM_LATENCY_CYCLES": 40}') or as a JSON file
// holding either such an object or a whole config (its TIMING is taken); null when `text` is empty.
nlohmann::json load_timing_override(const std::string& text);

}  // namespace tauvta::cli
