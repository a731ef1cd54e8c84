// The whole generated accelerator, running: Verilator compiles tauvta_accelerator with its harness
// (src/rtl/verilator/accel_harness.cpp: the board's memory port following the config's TIMING
// memory parameters, and a driver that starts programs through the AXI4-Lite control slave as
// VTA's driver does). The simulator runs as a child process this object talks to through pipes,
// so DRAM and the on-chip buffers persist between programs, as on a board. Built models are
// cached by their Verilog (rtl/cosim.h).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "hw/hw_config.h"
#include "rtl/accelerator_map.h"
#include "rtl/cosim.h"
#include "rtl/rtl_generator.h"

namespace tauvta::rtl {

struct AcceleratorRun {
  std::array<uint64_t, kAcceleratorCounters.size()> counters{};  // kAcceleratorCounters order
  uint64_t cycles() const { return counters[0]; }
  uint64_t counter(std::string_view name) const;  // by its kAcceleratorCounters name
  void add(const AcceleratorRun& other) {
    for (size_t k = 0; k < counters.size(); ++k) counters[k] += other.counters[k];
  }
};

class AcceleratorSim {
 public:
  // Builds (or finds) the simulator of `config` as `options` implements it and starts it. Throws
  // tauvta::Error when Verilator is missing or the build fails.
  AcceleratorSim(const hw::HwConfig& config, const RtlOptions& options,
                 const CosimToolchain& tools = default_cosim_toolchain());
  ~AcceleratorSim();
  AcceleratorSim(const AcceleratorSim&) = delete;
  AcceleratorSim& operator=(const AcceleratorSim&) = delete;

  // DRAM addresses are the AXI bus's 32 bits.
  static constexpr uint64_t kAddressSpace = 1ull << 32;
  void write(uint64_t addr, std::span<const uint8_t> bytes);
  void read(uint64_t addr, std::span<uint8_t> bytes);
  // Runs `count` instructions at `insn_addr` until FINISH has executed. Throws tauvta::Error
  // when FINISH does not come within `max_cycles` (a deadlock in the program or the design).
  AcceleratorRun run(uint64_t insn_addr, uint32_t count, uint64_t max_cycles);
  const std::filesystem::path& executable() const { return exe_; }

 private:
  void send(const void* p, size_t n);
  void receive(void* p, size_t n);
  std::filesystem::path exe_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
};

}  // namespace tauvta::rtl
