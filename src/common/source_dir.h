// The source tree tauvta was built from: where the shipped presets (configs/) and the default
// model (models/) are found when the working directory has no copy of them.
#pragma once

#include <filesystem>

namespace tauvta {

std::filesystem::path source_dir();

}  // namespace tauvta
