#include "cli/commands.h"

namespace tauvta::cli {

namespace {
std::string& invocation_storage() {
  static std::string line;
  return line;
}
}  // namespace

void set_invocation(int argc, const char* const* argv) {
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
  invocation_storage() = line;
}

const std::string& invocation() { return invocation_storage(); }

std::map<std::string, AddCommand>& command_registry() {
  static std::map<std::string, AddCommand> registry;
  return registry;
}

}  // namespace tauvta::cli
