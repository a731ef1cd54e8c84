// tauvta: thin command-line front end. Parses, calls the library, prints; every tauvta::Error
// becomes one line on stderr and exit code 1.
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "common/error.h"

int main(int argc, char** argv) {
  CLI::App app{"tauvta: a VTA-compatible tensor accelerator toolkit"};
  app.require_subcommand(1);
  tauvta::cli::add_config_command(app);
  tauvta::cli::add_disasm_command(app);
  tauvta::cli::add_asm_command(app);
  tauvta::cli::add_sim_command(app);
  tauvta::cli::add_gemm_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const tauvta::Error& e) {
    std::cerr << "tauvta: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tauvta: internal error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
