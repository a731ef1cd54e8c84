// `tauvta --version`: the version, how this binary was built, and the SIMD paths it takes on this
// CPU (detected at run time; every path gives identical results).
#pragma once

#include <string>

namespace tauvta::cli {

std::string version_text();

}  // namespace tauvta::cli
