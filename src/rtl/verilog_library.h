// The fixed, parameterized Verilog modules of the whole accelerator (src/rtl/verilog/*.v: queues,
// AXI masters, width converters, the load/compute/store/fetch sequencing and the control slave),
// compiled into the library by cmake/embed_verilog.cmake. The generator writes them beside the
// modules it emits for a config (the datapath, the instruction-field decoder and the top).
#pragma once

#include <vector>

#include "rtl/rtl_generator.h"

namespace tauvta::rtl {

const std::vector<RtlFile>& verilog_library();

}  // namespace tauvta::rtl
