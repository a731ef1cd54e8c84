// The RTL generator: Verilog-2005 of the whole accelerator a HwConfig describes (the datapath:
// GEMM core, tensor ALU, buffers and the compute module that runs micro-op loops over them; and
// around it fetch, load, store, the queues, the AXI masters and the control slave), plus a design.json that
// records the config, the implementation options and the shape, so the files explain themselves.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "hw/hw_config.h"
#include "rtl/datapath_shape.h"

namespace tauvta::rtl {

struct RtlFile {
  std::string name;  // file name, e.g. "tauvta_gemm_core.v"
  std::string text;
};

struct RtlDesign {
  DatapathShape shape;
  std::vector<RtlFile> files;  // Verilog sources, tauvta_accelerator.v (the top) last
  // The whole accelerator; "tauvta_compute" names the datapath alone (its co-simulation).
  std::string top = "tauvta_accelerator";
};

RtlDesign generate_rtl(const hw::HwConfig& config, const RtlOptions& options);

// The design's description: config (fully resolved), options, shape.
nlohmann::json design_json(const hw::HwConfig& config, const RtlOptions& options,
                           const DatapathShape& shape);

// Writes every file of `design` and design.json into `dir` (created when missing). Refuses, naming
// the file, when one of them exists and `overwrite` is false. Returns the paths written.
std::vector<std::filesystem::path> write_rtl(const RtlDesign& design, const nlohmann::json& info,
                                             const std::filesystem::path& dir, bool overwrite);

}  // namespace tauvta::rtl
