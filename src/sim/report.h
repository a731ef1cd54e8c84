// RunReport: what one program run on the simulated accelerator cost: cycles, per-module busy and
// stall cycles by reason, bytes per memory type, MACs, utilization, hazards found. Written as
// JSON together with the fully resolved HwConfig so a result can be reproduced from its file.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "hw/hw_config.h"
#include "hw/insn.h"

namespace tauvta::sim {

struct ModuleStats {
  uint64_t insns = 0;
  uint64_t busy_cycles = 0;         // executing (including DRAM transfer time)
  uint64_t stall_token_cycles = 0;  // waiting for a dependency token to pop
  uint64_t stall_queue_cycles = 0;  // waiting to push into a full token queue
  uint64_t stall_dram_cycles = 0;   // waiting for the shared DRAM bus
  uint64_t idle_cycles = 0;         // command queue empty
};

// A pair of instructions on different modules that touch overlapping SRAM without a token path
// ordering them (found by the hazard checker).
struct Hazard {
  std::string kind;    // "RAW", "WAR" or "WAW"
  std::string memory;  // "INP", "WGT", "OUT", ...
  uint32_t element = 0;
  size_t first = 0, second = 0;  // instruction indices, first earlier in program order
  std::string first_disasm, second_disasm;
  std::string message() const;
};

struct RunReport {
  uint64_t cycles = 0;
  uint64_t insns = 0;
  uint64_t macs = 0;
  uint64_t gemm_uops = 0;  // micro-ops the GEMM core executed
  uint64_t alu_uops = 0;
  std::array<ModuleStats, hw::kNumModules> modules{};
  std::array<uint64_t, hw::kNumMemIds> bytes_loaded{};  // DRAM -> SRAM, by memory type
  uint64_t bytes_stored = 0;                            // OUT -> DRAM
  uint64_t dram_busy_cycles = 0;  // cycles bursts held the port's read or write data channel
  uint64_t dram_bursts = 0;
  // Cycles the memory instructions of each type spent transferring (first request to last
  // completion, summed; OUT for stores): bytes over these is the bandwidth each type achieved.
  std::array<uint64_t, hw::kNumMemIds> transfer_cycles{};
  bool timing_only = false;
  double sim_wall_seconds = 0;
  std::vector<Hazard> hazards;

  // Bytes per cycle the transfers of memory type `mem` achieved while they ran (0 if none).
  double achieved_bytes_per_cycle(int mem) const;
  double gemm_utilization() const { return cycles ? double(gemm_uops) / double(cycles) : 0.0; }
  double gops_at_clock(const hw::HwConfig& c) const;
  // The compute module's cycles for its GEMM and ALU work alone (micro-ops x GEMM_II, ALU
  // micro-op passes x ALU_II; no fill, drain, issue or waiting): no schedule that executes the
  // same micro-ops can finish sooner, so MACs over it bound the GOPS any tiling can reach.
  uint64_t compute_floor_cycles(const hw::HwConfig& c) const;
  // Accumulates another run (the runtime runs one program per synchronize()).
  void add(const RunReport& other);
  nlohmann::json to_json(const hw::HwConfig& config) const;
  // Parts of to_json: per-module cycles by reason; per memory type, transfer cycles and the bytes
  // per cycle achieved (what a layer's memory side did, for the network report).
  nlohmann::json modules_json() const;
  nlohmann::json dram_json() const;
  uint64_t stall_dram_cycles() const;  // summed over the modules
  std::string summary_table(const hw::HwConfig& config) const;  // readable multi-line table
};

}  // namespace tauvta::sim
