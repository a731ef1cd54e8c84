// Co-simulation of generated RTL: Verilator turns a design's compute module into C++, the harness
// (src/rtl/verilator/cosim_harness.cpp) drives it from a text script, and the caller compares what
// it reads back with the functional simulator. Builds are cached by the Verilog text, so designs
// that generate the same RTL (presets that differ only in timing) are built once.
#pragma once

#include <filesystem>
#include <string>

#include "rtl/rtl_generator.h"

namespace tauvta::rtl {

// Where the tools are. Defaults come from the build (CMake finds Verilator and compiles its
// runtime library once); empty fields mean "not available".
struct CosimToolchain {
  std::string verilator;            // the verilator executable
  std::filesystem::path include;    // Verilator's include directory
  std::filesystem::path runtime;    // static library of verilated.cpp + verilated_threads.cpp
  std::filesystem::path harness;    // cosim_harness.cpp (the datapath, tauvta_compute)
  std::filesystem::path accelerator_harness;  // accel_harness.cpp (the whole tauvta_accelerator)
  std::string cxx;                  // C++ compiler
  std::filesystem::path cache;      // directory of built simulators
  bool available() const { return !verilator.empty() && !cxx.empty(); }
};

// The toolchain this build was configured with (TAUVTA_VERILATOR etc.); available() is false when
// CMake did not find Verilator.
CosimToolchain default_cosim_toolchain();

// Builds (or finds in the cache) the simulator of `design`'s top (tauvta_compute with the datapath
// harness, tauvta_accelerator with the accelerator harness); returns its executable. Throws
// tauvta::Error with the tool's output when Verilator or the compiler fails.
std::filesystem::path build_cosim(const RtlDesign& design, const CosimToolchain& tools);

// Runs `sim` on a harness script and returns what it printed. Throws tauvta::Error naming the
// exit status when the simulator fails or hangs.
std::string run_cosim(const std::filesystem::path& sim, const std::string& script,
                      const std::filesystem::path& scratch);

}  // namespace tauvta::rtl
