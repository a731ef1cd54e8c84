// --html FILE on the commands that write reports: the page (src/report/html_page.h) around the
// command's own JSON report, with the command line as typed and the fully resolved config.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "hw/hw_config.h"
#include "report/html_page.h"

namespace tauvta::cli {

// The roofs a run page plots each layer against: peak GOPS, DRAM GB/s and the clock.
nlohmann::json roofline_extra(const hw::HwConfig& c);

// Writes the page to `path` (refusing to replace a file unless `force`); `command` empty: the
// process's command line (cli::invocation()).
void write_html_report(const std::string& path, report::Page page, bool force);

}  // namespace tauvta::cli
