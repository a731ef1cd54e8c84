// The HTML report's assets compiled into the binary (cmake/embed_assets.cmake writes the
// definition): page.css, common.js, one script per page kind, and Chart.js as "chart.min.js".
#pragma once

#include <string>
#include <string_view>

namespace tauvta::report {

// The asset's bytes; throws std::logic_error for a name the build did not embed.
std::string asset(std::string_view name);

}  // namespace tauvta::report
