// tauvta disasm PROGRAM.bin [--config FILE] [--uops UOPS.bin --uop-kind gemm|alu]: one line per
// instruction (and micro-op), in the text format `tauvta asm` reads back. Given a compiled
// network (MODEL.tauvta), its program: every accelerator layer's instruction stream.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "backend/artifact.h"
#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "common/error.h"
#include "hw/disasm.h"

namespace tauvta::cli {

void add_disasm_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("disasm", "Disassemble an instruction stream");
  struct Options {
    std::string program, config, uops, uop_kind = "gemm", layer;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("PROGRAM", opts->program, "Instructions, 16 bytes each")->required();
  cmd->add_option("--config", opts->config, "Hardware config (default: built-in Pynq)");
  cmd->add_option("--uops", opts->uops, "Micro-op array, 4 bytes each");
  cmd->add_option("--uop-kind", opts->uop_kind, "How to decode --uops: gemm or alu (default gemm)")
      ->check(CLI::IsMember({"gemm", "alu"}));
  cmd->add_option("--layer", opts->layer, "With a MODEL.tauvta: only the layer of this name");
  cmd->callback([opts] {
    if (backend::is_network_artifact(opts->program)) {
      const backend::CompiledNetwork net = backend::load_network(opts->program);
      std::string out = fmt::format("# {}: {} instructions in {} layer streams, config {}\n", opts->program,
                                    net.program.num_insns(), net.program.streams.size(), net.config.name());
      const std::string all = net.program.disassemble();
      if (opts->layer.empty()) {
        out += all;
      } else {
        // Keep the section whose header names the layer.
        const std::string head = fmt::format("# layer {} (", opts->layer);
        const size_t at = all.find(head);
        if (at == std::string::npos) throw Error(fmt::format("{}: no accelerator layer named '{}'", opts->program, opts->layer));
        const size_t end = all.find("\n# layer ", at + 1);
        out += all.substr(at, end == std::string::npos ? std::string::npos : end + 1 - at);
      }
      std::cout << out;
      return;
    }
    const hw::HwConfig config = hw::load_config(opts->config);
    const hw::IsaLayout layout(config);
    const std::vector<hw::RawInsn> program = hw::read_program(opts->program);
    std::string out = fmt::format("# {}: {} instructions, config {}\n", opts->program,
                                  program.size(), config.name());
    out += hw::disassemble_program(layout, program);
    if (!opts->uops.empty()) {
      const std::vector<uint32_t> uops = hw::read_uops(opts->uops);
      const bool gemm = opts->uop_kind == "gemm";
      out += fmt::format("# {}: {} micro-ops ({})\n", opts->uops, uops.size(), opts->uop_kind);
      for (size_t k = 0; k < uops.size(); ++k) {
        const hw::Uop u = gemm ? layout.decode_gemm_uop(uops[k]) : layout.decode_alu_uop(uops[k]);
        const uint32_t again = gemm ? layout.encode_gemm_uop(u) : layout.encode_alu_uop(u);
        out += fmt::format("{:04d}: {}", k,
                           gemm ? hw::disassemble_gemm_uop(u) : hw::disassemble_alu_uop(u));
        if (again != uops[k]) {
          out += fmt::format("  # raw 0x{:08x}: bits outside the fields are set (ignored)", uops[k]);
        }
        out += "\n";
      }
    }
    std::cout << out;
  });
}

static const CommandRegistrar kDisasmRegistrar("disasm", add_disasm_command);

}  // namespace tauvta::cli
