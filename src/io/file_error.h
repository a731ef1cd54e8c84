// The loaders' one error form: "FILE: what is wrong" (every tensor and dataset file tauvta reads).
#pragma once

#include <filesystem>
#include <string>

#include "common/error.h"

namespace tauvta::io {

[[noreturn]] inline void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error(path.string() + ": " + what);
}

}  // namespace tauvta::io
