// Simulator: one simulated VTA board. Owns the on-chip state (SRAMs, output buffer) for a
// HwConfig and runs instruction streams against a Dram. SRAM contents persist between runs, as on
// a board. A run schedules the stream with the timing model and, unless timing-only, executes
// each instruction on the functional core in the order the modules start them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "hw/isa_layout.h"
#include "sim/dram.h"
#include "sim/report.h"

namespace tauvta::sim {

class LayerInstruments;

struct RunOptions {
  bool timing_only = false;    // cycles only: no data is read or written
  bool check_hazards = false;  // track SRAM ranges; report unordered cross-module accesses
  bool fail_on_hazard = false; // with check_hazards: throw listing the hazards found
  bool portable_kernels = false;  // never use the SIMD kernels (results are identical)
  // Instruments watching this run's casts and stores (sim/instruments.h); null: none, and the
  // functional core's paths are the uninstrumented ones. Ignored by timing-only runs.
  LayerInstruments* instruments = nullptr;
  // Book every DRAM burst through the port calendars (MemorySystem's reference path): the same
  // cycles, slower; benchmarks time the fast path against it.
  bool reference_memory = false;
};

class FunctionalCore;
class TimingModel;

class Simulator {
 public:
  Simulator(const hw::HwConfig& config, Dram& dram);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  const hw::HwConfig& config() const { return config_; }
  const hw::IsaLayout& layout() const { return layout_; }
  Dram& dram() { return dram_; }

  // Runs raw instructions until FINISH. Throws tauvta::Error on a malformed program (naming the
  // instruction index, its disassembly and the field), an out-of-range access or a deadlock.
  RunReport run(std::span<const hw::RawInsn> program, const RunOptions& options = {});
  // Reads a program from DRAM, as the fetch module does.
  RunReport run_at(uint64_t insn_addr, uint32_t insn_count, const RunOptions& options = {});

  // Zeroes every SRAM (a fresh board).
  void reset();

 private:
  hw::HwConfig config_;
  hw::IsaLayout layout_;
  Dram& dram_;
  std::unique_ptr<FunctionalCore> core_;
  std::unique_ptr<TimingModel> timing_;
  std::vector<hw::Insn> insns_;  // decoded program; capacity kept between runs
};

}  // namespace tauvta::sim
