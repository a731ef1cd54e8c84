// The tauvta subcommands. Each registers itself on the CLI11 app; the work is a library call.
#pragma once

#include <CLI/CLI.hpp>

namespace tauvta::cli {

void add_config_command(CLI::App& app);
void add_disasm_command(CLI::App& app);
void add_asm_command(CLI::App& app);
void add_sim_command(CLI::App& app);
void add_gemm_command(CLI::App& app);

}  // namespace tauvta::cli
