#include "backend/rtl_driver.h"

#include <fmt/format.h>

#include "common/error.h"

namespace tauvta::backend {

RtlDriver::RtlDriver(const hw::HwConfig& config, uint64_t dram_bytes)
    : RtlDriver(config, rtl_options_for(config), dram_bytes) {}

RtlDriver::RtlDriver(const hw::HwConfig& config, const rtl::RtlOptions& options, uint64_t dram_bytes)
    : config_(config), sim_(rtl_timing(config, options), dram_bytes), accelerator_(config, options) {}

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
  return r.model;
}

}  // namespace tauvta::backend
