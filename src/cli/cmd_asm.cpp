// tauvta asm PROGRAM.txt -o PROGRAM.bin [--uops-out UOPS.bin] [--config FILE] [--force]: the
// disassembler's text back to the binary a VTA board (or tauvta sim) reads.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "common/error.h"
#include "hw/disasm.h"

namespace tauvta::cli {

void add_asm_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("asm", "Assemble instruction text into a binary program");
  struct Options {
    std::string text, out, uops_out, config;
    bool force = false;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("PROGRAM", opts->text, "Text in the format `tauvta disasm` prints")->required();
  cmd->add_option("-o,--output", opts->out, "Binary program to write")->required();
  cmd->add_option("--uops-out", opts->uops_out, "Where to write GEMM_UOP/ALU_UOP lines");
  cmd->add_option("--config", opts->config, "Hardware config (default: built-in Pynq)");
  cmd->add_flag("--force", opts->force, "Overwrite existing output files");
  cmd->callback([opts] {
    const hw::HwConfig config = hw::load_config(opts->config);
    const hw::IsaLayout layout(config);
    const hw::Assembled a = hw::assemble(layout, read_text(opts->text), opts->text);
    if (!a.uops.empty() && opts->uops_out.empty()) {
      throw Error(fmt::format("{}: has {} micro-op lines; pass --uops-out FILE to write them",
                              opts->text, a.uops.size()));
    }
    // Check every output before writing any, so a refusal leaves nothing half-written.
    for (const std::string& path : {opts->out, opts->uops_out}) check_can_write(path, opts->force);
    write_binary(opts->out, hw::program_bytes(a.insns), opts->force);
    std::cout << fmt::format("{}: {} instructions", opts->out, a.insns.size());
    if (!opts->uops_out.empty()) {
      write_binary(opts->uops_out, hw::uop_bytes(a.uops), opts->force);
      std::cout << fmt::format(", {}: {} micro-ops", opts->uops_out, a.uops.size());
    }
    std::cout << "\n";
  });
}

static const CommandRegistrar kAsmRegistrar("asm", add_asm_command);

}  // namespace tauvta::cli
