// tauvta config show [FILE] [--json]: the derived parameters and the instruction field layout of
// a hardware configuration, the layout printed from the same IsaLayout the encoder uses
// (hw::layout_text, which docs/isa.md also shows).
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "hw/isa_docs.h"
#include "hw/isa_layout.h"

namespace tauvta::cli {
namespace {

std::string describe(const hw::HwConfig& c) {
  std::string s;
  s += fmt::format("config      {}  (TARGET {}, HW_VER {})\n", c.name(), c.target, c.hw_ver);
  s += fmt::format("GEMM shape  batch {} x block_in {} x block_out {} = {} MACs/cycle\n",
                   c.batch(), c.block_in(), c.block_out(), c.macs_per_cycle());
  s += fmt::format("widths      inp {} bits, wgt {} bits, acc {} bits, out {} bits\n",
                   c.inp_width(), c.wgt_width(), c.acc_width(), c.out_width());
  s += fmt::format("peak        {:.1f} GOPS at {} MHz\n\n", c.peak_gops(), c.timing.clock_mhz);
  s += fmt::format("{:<8} {:>10} {:>14} {:>8} {:>11}\n", "buffer", "bytes", "element bytes",
                   "depth", "log2 depth");
  auto row = [&](const char* name, int log_size, int elem, uint32_t depth, int log_depth) {
    s += fmt::format("{:<8} {:>10} {:>14} {:>8} {:>11}\n", name, uint64_t(1) << log_size, elem,
                     depth, log_depth);
  };
  row("UOP", c.log_uop_buff_size, c.uop_elem_bytes(), c.uop_depth(), c.log_uop_depth());
  row("INP", c.log_inp_buff_size, c.inp_elem_bytes(), c.inp_depth(), c.log_inp_depth());
  row("WGT", c.log_wgt_buff_size, c.wgt_elem_bytes(), c.wgt_depth(), c.log_wgt_depth());
  row("ACC", c.log_acc_buff_size, c.acc_elem_bytes(), c.acc_depth(), c.log_acc_depth());
  // The output buffer has the accumulator's depth and the input's width.
  s += fmt::format("{:<8} {:>10} {:>14} {:>8} {:>11}\n", "OUT",
                   uint64_t(c.out_elem_bytes()) * c.out_depth(), c.out_elem_bytes(), c.out_depth(),
                   c.log_acc_depth());
  const hw::TimingParams& t = c.timing;
  s += fmt::format(
      "\ntiming      port {} bits, sustained {} GB/s ({:.2f} bytes/cycle); latency read {} write {} cycles\n"
      "            bursts of at most {} beats; in flight: master {}, port {} reads {} writes;"
      " per burst +{}, per row +{} cycles\n"
      "            GEMM II {}, ALU II {}, ALU lanes {}, pipeline depth GEMM {} ALU {}\n"
      "            queues: command {}, token {}; insn overhead {} cycles; ALU MUL {}\n"
      "implementation  products {}, DSP limit {}, tree levels per stage {}, ACC read ports {},\n"
      "            pipeline {}, dataflow {}, inline {}, HLS clock {}, ACC array {}\n\n",
      1 << t.log_bus_width, t.dram_bandwidth_gbps, c.dram_bytes_per_cycle(), t.dram_latency_cycles,
      t.write_latency_cycles, t.max_burst_beats, t.master_outstanding, t.port_read_acceptance,
      t.port_write_acceptance, t.burst_overhead_cycles, t.row_overhead_cycles, t.gemm_ii, t.alu_ii,
      c.impl.alu_lanes == 0 ? std::string("all") : std::to_string(c.impl.alu_lanes), t.gemm_pipeline_depth,
      t.alu_pipeline_depth, t.cmd_queue_depth, t.token_queue_depth, t.insn_overhead_cycles,
      c.impl.alu_mul ? "on" : "off", hw::binding_name(c.impl.binding),
      c.impl.dsp_limit == hw::Implementation::kDspLimitBoard ? std::string("what fits the board")
      : c.impl.dsp_limit == 0                                ? std::string("none")
                                                             : std::to_string(c.impl.dsp_limit),
      c.impl.tree_levels_per_stage, c.impl.acc_read_ports, c.impl.pipeline ? "on" : "off",
      c.impl.dataflow ? "on" : "off", c.impl.inline_modules ? "on" : "off",
      c.impl.hls_mhz > 0 ? fmt::format("{:g} MHz", c.impl.hls_mhz) : std::string("the clock"),
      c.impl.acc_array.kind == hw::ArrayKind::kNone
          ? std::string("plain")
          : fmt::format("{} dim {} factor {}", hw::array_kind_name(c.impl.acc_array.kind), c.impl.acc_array.dim,
                        c.impl.acc_array.factor));
  s += hw::layout_text(hw::IsaLayout(c));
  return s;
}

}  // namespace

void add_config_command(CLI::App& app) {
  CLI::App* config = app.add_subcommand("config", "Hardware configurations");
  config->require_subcommand(1);
  CLI::App* show =
      config->add_subcommand("show", "Print derived parameters and the instruction field layout");
  struct Options {
    std::string file;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  show->add_option("FILE", opts->file, "vta_config.json-style file (default: built-in Pynq)");
  show->add_flag("--json", opts->json, "Print the fully resolved configuration as JSON");
  show->callback([opts] {
    const hw::HwConfig c = hw::load_config(opts->file);
    if (opts->json) {
      std::cout << c.to_json().dump(2) << "\n";
    } else {
      std::cout << describe(c);
    }
  });
}

static const CommandRegistrar kConfigRegistrar("config", add_config_command);

}  // namespace tauvta::cli
