// The Verilog-2005 emitters, one per generated module. Each returns the module's source text for
// a DatapathShape; rtl_generator.h puts them together into a design.
#pragma once

#include <string>

#include "hw/hw_config.h"
#include "rtl/datapath_shape.h"

namespace tauvta::rtl {

std::string emit_gemm_core(const DatapathShape& shape);
std::string emit_alu(const DatapathShape& shape);
std::string emit_sram();
std::string emit_compute(const hw::HwConfig& config, const DatapathShape& shape);
// Bits of the compute module's host data port (the widest buffer word).
int host_width(const DatapathShape& shape);

// The whole accelerator around the datapath: what the top's parameters are for a config.
struct AcceleratorShape {
  int log_bus_bytes = 3;      // AXI data bus, log2 of bytes (TIMING.LOG_BUS_WIDTH - 3)
  int max_burst_beats = 16;   // MAX_BURST_BEATS
  int outstanding = 16;       // bursts each master keeps in flight (MASTER_OUTSTANDING)
  int cmd_queue_depth = 8;
  int token_queue_depth = 8;
  int fetch_buffer = 56;      // instructions fetch buffers: what its bursts in flight bring
};
AcceleratorShape accelerator_shape(const hw::HwConfig& config);
// The instruction-field decoder every module instantiates (field positions from IsaLayout).
std::string emit_insn_fields(const hw::HwConfig& config);
// The top, tauvta_accelerator.
std::string emit_accelerator(const hw::HwConfig& config, const DatapathShape& shape);

}  // namespace tauvta::rtl
