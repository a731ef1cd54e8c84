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

}  // namespace tauvta::rtl
