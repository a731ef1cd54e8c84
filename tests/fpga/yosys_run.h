// yosys synth_xilinx run from a test: one module of generated Verilog, its cells counted in the
// units of the resource model (tools/synth/synth_grid.py counts them the same way: LUT RAM and
// shift registers as the LUTs they occupy, an 18 Kb block RAM as half a BRAM36).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "fpga/resources.h"
#include "rtl/netlist_features.h"

namespace tauvta::test {

struct SynthesisResult {
  std::map<std::string, int> cells;
  fpga::Resources resources;
  bool ok = false;
  std::string log;  // the yosys log's path, for a failure's message
};

// Runs `read_verilog FILES; PRE synth_xilinx -family F -top TOP -noiopad -flatten [-nodsp]` in
// `dir` and counts the cells of the flattened top.
SynthesisResult synthesize(const std::filesystem::path& dir, const std::string& files,
                           const std::string& top, rtl::Family family, const std::string& pre = "",
                           bool nodsp = false);

}  // namespace tauvta::test
