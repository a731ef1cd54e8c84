#include "report/html_file.h"

#include "common/file_io.h"

namespace tauvta::report {
namespace {

// Set once by main() before any command runs; read when a page is written.
std::string& command_line_storage() {
  static std::string line;
  return line;
}

}  // namespace

void set_command_line(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (i) line += ' ';
    if (!a.empty() && a.find_first_of(" \t\n'\"$`\\|&;<>(){}*?!#") == std::string::npos) {
      line += a;
      continue;
    }
    line += '\'';  // single quotes keep everything but a single quote, written '\''
    for (char c : a) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  command_line_storage() = line;
}

const std::string& command_line() { return command_line_storage(); }

void write_html_report(const std::string& path, Page page, bool force) {
  if (page.command.empty()) page.command = command_line();
  write_text(path, render_html(page), force);
}

}  // namespace tauvta::report
