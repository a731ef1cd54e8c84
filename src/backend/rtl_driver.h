// RtlDriver: a runtime::Driver whose programs run on the generated accelerator in Verilator
// (rtl/accelerator_sim.h) and on the simulator side by side. DRAM lives in the simulator's board;
// before each program the pages it loads and stores go to the RTL's DRAM, after it every one of
// them is compared (backend/rtl_program.h): a difference throws, naming the program and byte.
// The runtime and the compiler's layers see the simulator's reports; the RTL's cycles are kept
// beside them (rtl_cycles, per program and summed) for the network report.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/rtl_program.h"
#include "runtime/driver.h"

namespace tauvta::backend {

class RtlDriver final : public runtime::Driver {
 public:
  RtlDriver(const hw::HwConfig& config, uint64_t dram_bytes);

  // The config as given (programs compiled for it load here); the simulator beside the RTL times
  // it with the generated datapath's depths (rtl_timing).
  const hw::HwConfig& config() const override { return config_; }
  uint64_t allocate(uint64_t bytes) override { return sim_.allocate(bytes); }
  void free(uint64_t addr) override { sim_.free(addr); }
  uint64_t alignment() const override { return sim_.alignment(); }
  void write(uint64_t addr, std::span<const uint8_t> bytes) override { sim_.write(addr, bytes); }
  void read(uint64_t addr, std::span<uint8_t> bytes) const override { sim_.read(addr, bytes); }
  sim::RunReport run(std::span<const hw::RawInsn> program, const sim::RunOptions& options) override;

  // Every program run so far: the RTL's cycles and event counters, summed.
  uint64_t rtl_cycles() const { return rtl_.cycles(); }
  const rtl::AcceleratorRun& rtl_counters() const { return rtl_; }

 private:
  RtlDriver(const hw::HwConfig& config, const rtl::RtlOptions& options, uint64_t dram_bytes);
  hw::HwConfig config_;
  runtime::SimDriver sim_;
  rtl::AcceleratorSim accelerator_;
  rtl::AcceleratorRun rtl_;
  uint64_t programs_ = 0;  // run so far (names the one that differs)
};

}  // namespace tauvta::backend
