// A report page written to its file, and the command line pages name as their origin.
#pragma once

#include <string>

#include "report/html_page.h"

namespace tauvta::report {

// The process's command line as typed (the CLI's main sets it once; arguments with spaces or
// shell characters quoted so the line can be pasted back). Empty in the Python module, whose
// pages name the call instead (Page::command).
void set_command_line(int argc, const char* const* argv);
const std::string& command_line();

// Writes `page` to `path` (refused when it exists and `force` is false); a page without a
// command names the process's command line.
void write_html_report(const std::string& path, Page page, bool force);

}  // namespace tauvta::report
