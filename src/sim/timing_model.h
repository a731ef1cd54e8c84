// TimingModel: event-level model of VTA's task pipeline (docs/vta_isa.md sections 3 and 6). Fetch decodes
// one instruction per cycle into bounded command queues; load, compute and store each run their
// queue in order; an instruction starts when its module is free, its command has arrived and the
// tokens it pops have been pushed; a push into a full token queue stalls its module. Loads and
// stores move their rows through the memory system (sim/memory_system.h): AXI bursts on one
// shared port with latency, outstanding-request limits and per-burst costs.
//
// The schedule depends only on the instruction stream (never on data), so a timing-only run gives
// exactly the cycles of a full run. Instructions start in nondecreasing time order; `on_start`
// is called at each start, which is where a full run executes the instruction functionally.
#pragma once

#include <array>
#include <cstdint>
#include <vector>
#include <functional>
#include <span>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "sim/memory_system.h"
#include "sim/report.h"

namespace tauvta::sim {

// Cost of one instruction in isolation (no contention).
struct InsnCost {
  uint64_t issue = 0;        // fixed cycles before any transfer or compute
  uint64_t compute = 0;      // GEMM/ALU pipeline cycles, or padding writes for loads
  uint64_t rows = 0;         // DRAM rows transferred (one memcpy each)
  uint64_t row_bytes = 0;    // bytes per row
  uint64_t stride_bytes = 0; // DRAM byte distance between rows
  uint64_t addr = 0;         // DRAM byte address of the first row
  uint64_t bytes = 0;        // DRAM bytes moved
  uint64_t macs = 0;
  uint64_t gemm_uops = 0, alu_uops = 0;
};

InsnCost insn_cost(const hw::HwConfig& config, const hw::Insn& insn);

// The four dependency token queues.
enum class TokenQueue : uint8_t { kL2G = 0, kG2L = 1, kG2S = 2, kS2G = 3 };
inline constexpr int kNumTokenQueues = 4;
const char* token_queue_name(TokenQueue q);  // "l2g (load->compute)", ...

// Which queues an instruction pops and pushes (dependency bits without a queue are ignored).
struct TokenUse {
  int pops[2] = {-1, -1};
  int pushes[2] = {-1, -1};
};
TokenUse token_use(const hw::Insn& insn);

class TimingModel {
 public:
  explicit TimingModel(const hw::HwConfig& config)
      : config_(config), memory_(config) {}

  // Schedules `program` (which must end with FINISH; checked by the caller). Fills the timing
  // fields of `report`. Throws tauvta::Error on deadlock, naming the blocked instructions.
  // Scratch buffers are kept between calls: the tuner schedules many programs in a row.
  // `cycle_limit`: stop once the next instruction would start after this cycle (the tuner's
  // candidate is already slower than its best); report.cycles is then that start, a lower bound
  // above the limit, and the other counters cover the instructions started so far.
  void schedule(std::span<const hw::Insn> program, const std::function<void(size_t)>& on_start,
                RunReport& report, uint64_t cycle_limit = UINT64_MAX);
  // MemorySystem::set_reference for the runs that follow.
  void set_reference_memory(bool on) { memory_.set_reference(on); }

 private:
  // What the schedule needs of every instruction before any starts, kept small: programs run
  // to thousands of instructions and this table is written once and read at random. The cost
  // is computed when the instruction starts (a candidate stopped at its cycle limit never
  // costs the rest).
  struct Planned {
    uint32_t queue_pos;
    uint8_t module;
    int8_t pops[2], pushes[2];  // token queues, -1 for none (TokenUse)
  };
  hw::HwConfig config_;
  MemorySystem memory_;
  std::vector<Planned> plan_;
  static constexpr uint64_t kInsnBytes = 16;  // one 128-bit instruction in DRAM
  std::vector<uint64_t> fetch_time_;
  std::vector<uint64_t> fetch_arrival_;  // when each fetch burst's data started to arrive
  std::array<std::vector<uint32_t>, hw::kNumModules> queue_;
  std::array<std::vector<uint64_t>, hw::kNumModules> deq_time_;
  std::array<std::vector<uint64_t>, kNumTokenQueues> push_times_, pop_times_;
};

}  // namespace tauvta::sim
