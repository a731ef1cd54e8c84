#include "cli/commands.h"

namespace tauvta::cli {

std::map<std::string, AddCommand>& command_registry() {
  static std::map<std::string, AddCommand> registry;
  return registry;
}

}  // namespace tauvta::cli
