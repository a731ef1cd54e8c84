// tauvta: thin command-line front end. Parses, calls the library, prints; every tauvta::Error
// becomes one line on stderr and exit code 1.
#include <exception>
#include <filesystem>
#include <new>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/usage_errors.h"
#include "cli/version_info.h"
#include "common/error.h"
#include "report/html_file.h"

int main(int argc, char** argv) {
  tauvta::report::set_command_line(argc, argv);
  CLI::App app{"tauvta: a VTA-compatible tensor accelerator toolkit"};
  app.require_subcommand(1);
  app.set_version_flag("--version", tauvta::cli::version_text, "Print the version, the build and this CPU's SIMD paths");
  for (const auto& [name, add] : tauvta::cli::command_registry()) add(app);
  if (const auto unknown = tauvta::cli::unknown_command_error(app, argc, argv)) {
    std::cerr << "tauvta: error: " << *unknown << "\n";
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const tauvta::cli::ExitStatus& e) {
    return e.code;
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error is one line and exits 1 like any other.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "tauvta: error: " << tauvta::cli::usage_error_line(app, e) << "\n";
    return 1;
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
