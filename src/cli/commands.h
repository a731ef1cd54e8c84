// The tauvta subcommands. Each cmd_*.cpp registers itself with a static CommandRegistrar (the
// CLI sources are linked into the executable directly, so every registrar runs); main() adds the
// registered commands to the CLI11 app in name order. The work is always a library call.
#pragma once

#include <functional>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

namespace tauvta::cli {

using AddCommand = std::function<void(CLI::App&)>;

// name -> function adding that subcommand.
std::map<std::string, AddCommand>& command_registry();

// Thrown by a command that printed its result but must end with a non-zero exit code that is not
// an error (`hw resources` on a design that fits none of the devices: 3). main() returns `code`.
struct ExitStatus {
  int code;
};

struct CommandRegistrar {
  CommandRegistrar(const std::string& name, AddCommand add) {
    command_registry().emplace(name, std::move(add));
  }
};

}  // namespace tauvta::cli
