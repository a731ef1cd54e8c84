// tauvta: thin command-line front end. Parses, calls the library, prints; every tauvta::Error
// becomes one line on stderr and exit code 1.
#include <exception>
#include <filesystem>
#include <new>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "common/error.h"

int main(int argc, char** argv) {
  tauvta::cli::set_invocation(argc, argv);
  CLI::App app{"tauvta: a VTA-compatible tensor accelerator toolkit"};
  app.require_subcommand(1);
  for (const auto& [name, add] : tauvta::cli::command_registry()) add(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 1 like any other user error.
    return app.exit(e) == 0 ? 0 : 1;
  } catch (const tauvta::Error& e) {
    std::cerr << "tauvta: error: " << e.what() << "\n";
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    // Creating, reading or writing the user's paths (a directory that cannot be made, a file
    // without permission): the user's to fix, like any other bad input.
    std::cerr << "tauvta: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "tauvta: error: out of memory (a tensor or program larger than this machine holds)\n";
    return 1;
  } catch (const tauvta::InternalError& e) {
    std::cerr << "tauvta: " << e.what() << "\n";  // already starts with "internal error: "
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tauvta: internal error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
