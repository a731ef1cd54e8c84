// Paths shared by the pipeline and accuracy tests: the committed VGG-7 and Debian's
// Fashion-MNIST files (installed by scripts/setup).
#pragma once

#include <filesystem>
#include <string>

#include <unistd.h>

namespace tauvta::testing {

inline std::filesystem::path source_path(const std::string& rel) { return std::filesystem::path(TAUVTA_SOURCE_DIR) / rel; }

inline std::filesystem::path fashion_mnist(const std::string& file) {
  return std::filesystem::path("/usr/share/datasets/fashion-mnist") / file;
}

// A fresh directory under the system temp dir, unique per process and name.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("tauvta_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace tauvta::testing
