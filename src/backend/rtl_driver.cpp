#include "backend/rtl_driver.h"

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::backend {

RtlDriver::RtlDriver(const hw::HwConfig& config, uint64_t dram_bytes)
    : config_(config),
      sim_(rtl_timing(config, rtl_options_for(config)), dram_bytes),
      accelerator_(config, rtl_options_for(config)) {}

sim::RunReport RtlDriver::run(std::span<const hw::RawInsn> program, const sim::RunOptions& options) {
  if (options.timing_only) throw Error("the RTL backend runs the data: it has no timing-only mode");
  const RtlProgramResult r = run_program_on_rtl(sim_.simulator(), accelerator_, program, options);
  ++programs_;
  if (!r.bit_exact) {
    throw Error(fmt::format("RTL: program {} ({} instructions): the RTL's DRAM differs from the "
                            "simulator's: {}",
                            programs_, program.size(), r.difference));
  }
  rtl_.add(r.rtl);
  model_cycles_ += r.model.cycles;
  compared_bytes_ += r.compared_bytes;
  return r.model;
}

}  // namespace tauvta::backend
