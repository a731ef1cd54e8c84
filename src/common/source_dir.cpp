#include "common/source_dir.h"

namespace tauvta {

std::filesystem::path source_dir() { return TAUVTA_SOURCE_DIR; }  // set by CMake for this library

}  // namespace tauvta
