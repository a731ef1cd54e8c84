// A program on the generated accelerator beside the simulator: the same DRAM and instructions go
// to the Verilated tauvta_accelerator (rtl/accelerator_sim.h) and to sim::Simulator (functional
// core and timing model); afterwards every DRAM byte the program could have written or read is
// compared, and the RTL's cycles and module counters are set beside the timing model's.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "rtl/accelerator_sim.h"
#include "sim/dram.h"
#include "sim/report.h"
#include "sim/simulator.h"

namespace tauvta::backend {

struct RtlProgramResult {
  sim::RunReport model;       // the simulator's run (functional core and timing model)
  rtl::AcceleratorRun rtl;    // the RTL's counters
  uint64_t compared_bytes = 0;
  bool bit_exact = true;
  std::string difference;     // the first differing byte, when not bit-exact
  // The RTL's cycles relative to the timing model's: (rtl - model) / model.
  double cycle_error() const;
  nlohmann::json to_json() const;
  // Cycles and the per-module counters of both, as a table.
  std::string table() const;
};

// The datapath `config` builds on its TARGET's board; for a target without a device model ("sim",
// "tsim") the DSP limit is left out (it changes where products are built, not what they compute
// or when).
rtl::RtlOptions rtl_options_for(const hw::HwConfig& config);

// `config` timed as the generated RTL runs it: GEMM and ALU fill and drain are the generated
// datapath's (its front-end stages plus the unit's latency, rtl/accelerator_map.h) where the
// config states VTA's HLS design's (4); everything else is the config's. The RTL comparison uses
// it, so a difference is the timing model's structure, not a pipeline depth.
hw::HwConfig rtl_timing(const hw::HwConfig& config, const rtl::RtlOptions& options);

// Runs `program` on `rtl` and on `simulator` (which runs against `dram`). The RTL's DRAM gets the
// program's pages of `dram` as they are before the run, and the program itself above `dram`'s
// end. Throws tauvta::Error naming the problem when the simulator refuses the program, the RTL
// does not reach FINISH within `max_cycles` (0: 20 times the timing model's cycles plus a
// million), or the address space is too small.
RtlProgramResult run_program_on_rtl(sim::Simulator& simulator, rtl::AcceleratorSim& rtl,
                                    std::span<const hw::RawInsn> program,
                                    const sim::RunOptions& options = {}, uint64_t max_cycles = 0);

}  // namespace tauvta::backend
