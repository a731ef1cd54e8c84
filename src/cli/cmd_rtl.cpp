// tauvta rtl [CONFIG] -o DIR: the datapath of a hardware configuration as synthesizable Verilog
// (GEMM core, tensor ALU, buffers, compute module) with a design.json describing it.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "cli/rtl_option_args.h"
#include "fpga/design_options.h"
#include "rtl/rtl_generator.h"

namespace tauvta::cli {
namespace {

void add_rtl_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "rtl", "Generate Verilog of the datapath (GEMM core, ALU, buffers, compute module)");
  struct Options {
    std::string config;
    std::string out;
    hw::ImplementationOverrides rtl;
    std::string device;
    bool force = false;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("CONFIG", o->config, "vta_config.json-style file or VTA name (default: Pynq)");
  cmd->add_option("-o,--out", o->out, "Directory to write the Verilog and design.json into")
      ->required();
  cmd->add_flag("--force", o->force, "Overwrite files already in the directory");
  cmd->add_flag("--json", o->json, "Print design.json instead of the summary");
  cmd->add_option("--device", o->device,
                  "The FPGA a DSP limit of \"board\" is resolved for: pynq-z1, ultra96 or zcu104 "
                  "(default: the config's TARGET board)");
  add_rtl_option_args(cmd, o->rtl);
  cmd->callback([o] {
    // The config's IMPLEMENTATION, with any option given replacing its key: the datapath the
    // exploration and `hw resources` price for the same file.
    const hw::HwConfig c = hw::with_overrides(hw::load_config(o->config), o->rtl);
    const fpga::Device& device = fpga::device_of(c, o->device);
    const rtl::RtlOptions opts = fpga::rtl_options(c, device);
    const rtl::RtlDesign d = rtl::generate_rtl(c, opts);
    const nlohmann::json info = rtl::design_json(c, opts, d.shape);
    const auto written = rtl::write_rtl(d, info, o->out, o->force);
    if (o->json) {
      std::cout << info.dump(2) << "\n";
      return;
    }
    const rtl::DatapathShape& s = d.shape;
    std::cout << fmt::format("rtl         {} -> {} (top {}; built for the {})\n", c.name(), o->out, d.top,
                             device.board);
    std::cout << fmt::format(
        "GEMM core   {} products int{} x int{} in {}, trees of {} levels, {} register stage(s), "
        "latency {}\n",
        s.products, s.inp_width, s.wgt_width,
        s.dsp_products == s.products ? std::string("DSP slices")
        : s.dsp_products == 0        ? std::string("LUTs")
                                     : fmt::format("{} DSP slices, the rest LUTs", s.dsp_products),
        s.tree_levels, s.tree_registers, s.gemm_latency);
    // The timing model's depths may include latency VTA's HLS schedule adds beyond the structure
    // (a stock config states VTA's measured depth): say so instead of letting two numbers disagree.
    if (c.timing.gemm_pipeline_depth != s.gemm_latency || c.timing.alu_pipeline_depth != s.alu_latency) {
      std::cout << fmt::format(
          "timing      the timing model charges GEMM {} and ALU {} fill/drain cycles (TIMING), "
          "VTA's HLS design's, where this datapath's latencies are {} and {}\n",
          c.timing.gemm_pipeline_depth, c.timing.alu_pipeline_depth, s.gemm_latency, s.alu_latency);
    }
    std::cout << fmt::format(
        "ALU         {} lane(s) x {} pass(es), int{}{}, latency {}, a micro-op every {} cycle(s)\n",
        s.alu_lanes, s.alu_passes, s.acc_width, s.alu_mul ? ", MUL" : "", s.alu_latency,
        s.alu_issue_cycles);
    for (const rtl::BufferShape& b : s.buffers) {
      std::cout << fmt::format("buffer {:<4} {:>5} bits x {:>6} words{}\n", b.name, b.width,
                               1u << b.log_depth, b.copies > 1 ? fmt::format(" x {} copies", b.copies) : "");
    }
    for (const auto& p : written) std::cout << "wrote " << p.string() << "\n";
  });
}

}  // namespace

static const CommandRegistrar kRtlRegistrar("rtl", add_rtl_command);

}  // namespace tauvta::cli
