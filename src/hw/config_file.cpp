#include "hw/config_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.h"
#include "common/source_dir.h"

namespace tauvta::hw {

HwConfig load_config(const std::string& path) {
  if (path.empty()) return HwConfig{};
  // A VTA configuration name ("1x16_i8w8a32_15_15_18_17") when no such file exists.
  if (!std::filesystem::exists(path) && path.find('/') == std::string::npos && path.find(".json") == std::string::npos) {
    // A word with no '_' is no VTA name: most likely a preset's name ("pynq", "zcu104").
    if (path.find('_') == std::string::npos) {
      std::string presets;
      const std::filesystem::path dir = source_dir() / "configs";
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
      throw Error(fmt::format("config '{}': no such file, and not a VTA name such as 1x16_i8w8a32_15_15_18_17{}", path,
                              presets));
    }
    return HwConfig::from_name(path);
  }
  return HwConfig::load(path);
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

nlohmann::json roofline_json(const HwConfig& c) {
  return {{"peak_gops", c.peak_gops()}, {"dram_gbps", c.dram_gbps()}, {"clock_mhz", c.timing.clock_mhz}};
}

}  // namespace tauvta::hw
