// tauvta compile: an ONNX model -> MODEL.tauvta, the compiled network (config, program, packed
// weights, quantization per layer, CPU parts) that `tauvta run` loads without the ONNX file.
// Prints where every layer goes and why, and the schedules chosen.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "backend/artifact.h"
#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "cli/model_args.h"
#include "cli/network_args.h"
#include "common/error.h"

namespace tauvta::cli {
namespace {

struct CompileArgs {
  model::ModelSource model;
  backend::NetworkRequest network;
  std::string output;
};

void run_compile(const CompileArgs& a) {
  if (a.output.empty()) throw Error("compile: give the output file with -o MODEL.tauvta");
  check_can_write(a.output, a.model.force);
  if (backend::is_network_artifact(a.model.model)) throw Error(fmt::format("{} is already compiled", a.model.model));
  const backend::BuiltNetwork b = backend::build_network(a.model, a.network);
  const backend::CompiledNetwork& net = b.net;
  std::string s = backend::placement_table(net);
  s += fmt::format("\n{} layers ({} on the accelerator), {} instructions in {} streams, {:.1f} MB of DRAM image; "
                   "compiled for {} at batch {} in {:.3f} s\n",
                   net.layers.size(), net.vta_layers(), net.program.num_insns(), net.program.streams.size(),
                   double(net.program.image_bytes) / 1e6, net.config.name(), b.batch, net.compile_seconds);
  std::cout << s;
  backend::save_network(net, a.output, a.model.force);
  std::cout << fmt::format("wrote {}\n", a.output);
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App* cmd = app.add_subcommand("compile", "Compile an ONNX model for the accelerator into a .tauvta file");
  add_model_args(cmd, args->model);
  add_network_args(cmd, args->network);
  cmd->add_option("-o,--output", args->output, "The compiled network file (MODEL.tauvta)")->required();
  cmd->callback([args] { run_compile(*args); });
}

static const CommandRegistrar kCompileRegistrar("compile", add_compile_command);

}  // namespace tauvta::cli
