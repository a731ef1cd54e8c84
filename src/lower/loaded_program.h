// LoadedProgram: a Program placed in one Device's DRAM. Loading allocates the image at an
// aligned address, writes the constants and relocates every LOAD/STORE dram_base once (an
// element address moves by the load address divided by the element size), so runs only copy
// activations in and out and hand the prepared streams to the driver.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "lower/program.h"
#include "runtime/device.h"
#include "sim/report.h"

namespace tauvta::lower {

class LoadedProgram {
 public:
  // The device's config must equal the program's. The device must outlive this object.
  LoadedProgram(runtime::Device& device, const Program& program);

  const Program& program() const { return program_; }
  runtime::Device& device() { return device_; }

  void write_region(const std::string& name, std::span<const uint8_t> bytes);
  std::vector<uint8_t> read_region(const std::string& name) const;
  // Byte address of a region in the device's DRAM.
  uint64_t region_addr(const std::string& name) const;

  // Runs stream `i` (FINISH-terminated) on the device.
  sim::RunReport run_stream(size_t i, const sim::RunOptions& options);
  // Runs every stream of layer `l` in order and sums their reports.
  sim::RunReport run_layer(size_t l, const sim::RunOptions& options);

 private:
  runtime::Device& device_;
  const Program& program_;
  runtime::DramBuffer image_;
  std::vector<std::vector<hw::RawInsn>> raw_;  // relocated, encoded streams
};

}  // namespace tauvta::lower
