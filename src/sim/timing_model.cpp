#include "sim/timing_model.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/disasm.h"

namespace tauvta::sim {

using hw::Insn;
using hw::MemId;
using hw::Module;

const char* token_queue_name(TokenQueue q) {
  static const char* names[] = {"l2g (load->compute)", "g2l (compute->load)",
                                "g2s (compute->store)", "s2g (store->compute)"};
  return names[size_t(q)];
}

TokenUse token_use(const Insn& insn) {
  TokenUse t;
  switch (hw::module_of(insn)) {
    case Module::kLoad:
      if (insn.pop_next) t.pops[0] = int(TokenQueue::kG2L);
      if (insn.push_next) t.pushes[0] = int(TokenQueue::kL2G);
      break;
    case Module::kCompute:
      if (insn.pop_prev) t.pops[0] = int(TokenQueue::kL2G);
      if (insn.pop_next) t.pops[1] = int(TokenQueue::kS2G);
      if (insn.push_prev) t.pushes[0] = int(TokenQueue::kG2L);
      if (insn.push_next) t.pushes[1] = int(TokenQueue::kG2S);
      break;
    case Module::kStore:
      if (insn.pop_prev) t.pops[0] = int(TokenQueue::kG2S);
      if (insn.push_prev) t.pushes[0] = int(TokenQueue::kS2G);
      break;
  }
  return t;
}

InsnCost insn_cost(const hw::HwConfig& c, const Insn& insn) {
  InsnCost k;
  k.issue = uint64_t(c.timing.insn_overhead_cycles);
  auto rows_of = [&](uint64_t rows, uint64_t elem_bytes, uint64_t x_size, uint64_t x_stride) {
    if (rows == 0 || x_size == 0) return;
    k.rows = rows;
    k.row_bytes = x_size * elem_bytes;
    k.stride_bytes = x_stride * elem_bytes;
    k.addr = uint64_t(insn.dram_base) * elem_bytes;
    k.bytes = rows * k.row_bytes;
  };
  switch (insn.opcode) {
    case hw::Opcode::kLoad: {
      const uint8_t m = insn.memory_type;
      if (m == uint8_t(MemId::kUop)) {
        rows_of(1, 4, insn.x_size, insn.x_size);
      } else if (m == uint8_t(MemId::kWgt)) {
        rows_of(insn.y_size, uint64_t(c.wgt_elem_bytes()), insn.x_size, insn.x_stride);
      } else if (m == uint8_t(MemId::kInp) || m == uint8_t(MemId::kAcc)) {
        const uint64_t eb = m == uint8_t(MemId::kInp) ? c.inp_elem_bytes() : c.acc_elem_bytes();
        rows_of(insn.y_size, eb, insn.x_size, insn.x_stride);
        // Padding: one element written per cycle.
        const uint64_t rows = uint64_t(insn.y_pad_0) + insn.y_size + insn.y_pad_1;
        const uint64_t cols = uint64_t(insn.x_pad_0) + insn.x_size + insn.x_pad_1;
        k.compute = rows * cols - uint64_t(insn.y_size) * insn.x_size;
      }
      break;
    }
    case hw::Opcode::kStore:
      rows_of(insn.y_size, uint64_t(c.out_elem_bytes()), insn.x_size, insn.x_stride);
      break;
    case hw::Opcode::kGemm: {
      const uint64_t uops = insn.uop_end > insn.uop_bgn ? insn.uop_end - insn.uop_bgn : 0;
      const uint64_t n = uint64_t(insn.iter_out) * insn.iter_in * uops;
      if (n > 0) {
        k.compute = n * uint64_t(c.timing.gemm_ii) + uint64_t(c.timing.gemm_pipeline_depth);
        k.gemm_uops = n;
        k.macs = n * c.macs_per_cycle();
      }
      break;
    }
    case hw::Opcode::kAlu: {
      const uint64_t uops = insn.uop_end > insn.uop_bgn ? insn.uop_end - insn.uop_bgn : 0;
      const uint64_t n = uint64_t(insn.iter_out) * insn.iter_in * uops;
      if (n > 0) {
        const uint64_t lanes = uint64_t(c.batch()) * c.block_out();
        const uint64_t passes =
            c.impl.alu_lanes == 0 ? 1 : (lanes + c.impl.alu_lanes - 1) / c.impl.alu_lanes;
        k.compute = n * passes * uint64_t(c.timing.alu_ii) + uint64_t(c.timing.alu_pipeline_depth);
        k.alu_uops = n;
      }
      break;
    }
    case hw::Opcode::kFinish:
      break;
  }
  return k;
}

namespace {

constexpr uint64_t kUnknown = std::numeric_limits<uint64_t>::max();

struct ModuleState {
  const std::vector<uint32_t>* queue = nullptr;  // instruction indices in program order
  size_t size = 0;                               // of the queue
  size_t next = 0;                               // next queue entry to start
  // Queue entries taken off so far (their deq_time_ known): next, or next + 1 once the next
  // is off the queue and waits for its tokens.
  size_t dequeued = 0;
  uint64_t free_at = 0;                          // when the module can take its next command
  bool pushing = false;  // executed, waiting for room to push its tokens
  uint32_t current = 0;
  uint64_t exec_end = 0;
};

}  // namespace

void TimingModel::schedule(std::span<const Insn> program,
                           const std::function<void(size_t)>& on_start, RunReport& report,
                           uint64_t cycle_limit) {
  const size_t n = program.size();
  const uint64_t cmd_depth = uint64_t(config_.timing.cmd_queue_depth);
  const uint64_t tok_depth = uint64_t(config_.timing.token_queue_depth);

  std::array<ModuleState, hw::kNumModules> mods;
  for (auto& q : queue_) q.clear();
  for (auto& v : push_times_) v.clear();
  for (auto& v : pop_times_) v.clear();
  plan_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Planned& p = plan_[i];
    p.module = uint8_t(hw::module_of(program[i]));
    p.queue_pos = uint32_t(queue_[p.module].size());
    queue_[p.module].push_back(uint32_t(i));
    const TokenUse u = token_use(program[i]);
    for (int k = 0; k < 2; ++k) {
      p.pops[k] = int8_t(u.pops[k]);
      p.pushes[k] = int8_t(u.pushes[k]);
    }
  }
  // Times are written before they are read (fetched and dequeued say which are known), so the
  // scratch vectors only grow and are never cleared.
  for (int m = 0; m < hw::kNumModules; ++m) {
    mods[m].queue = &queue_[m];
    mods[m].size = queue_[m].size();
    if (deq_time_[m].size() < queue_[m].size()) deq_time_[m].resize(queue_[m].size());
  }
  if (fetch_time_.size() < n) fetch_time_.resize(n);
  size_t fetched = 0;  // instructions 0 .. fetched - 1 have their fetch_time_
  uint64_t last_fetch = 0;
  memory_.clear();
  size_t done = 0;
  // Without task-level pipelining (IMPLEMENTATION.DATAFLOW false) an instruction starts only once the
  // previous one, in any module, has executed.
  const bool serial = !config_.impl.dataflow;
  uint64_t serial_end = 0;

  // Resolves the token pushes of a module that has executed; false if a queue is still full.
  auto try_push = [&](ModuleState& ms, int m) {
    const Planned& u = plan_[ms.current];
    uint64_t t = ms.exec_end;
    for (int q : u.pushes) {
      if (q < 0) continue;
      const uint64_t k = push_times_[q].size();
      if (k >= tok_depth) {
        if (pop_times_[q].size() <= k - tok_depth) return false;
        t = std::max(t, pop_times_[q][k - tok_depth]);
      }
    }
    for (int q : u.pushes) {
      if (q >= 0) push_times_[q].push_back(t);
    }
    report.modules[size_t(m)].stall_queue_cycles += t - ms.exec_end;
    ms.free_at = t;
    ms.pushing = false;
    ++done;
    return true;
  };

  // Fetch streams the program from DRAM in bursts through its own master (16 bytes an
  // instruction) and decodes one instruction per cycle once its bytes are in, running ahead as
  // far as the command queues allow. The adapter requests a burst once one of its `outstanding`
  // slots is free: the burst that many before has been decoded.
  const MemoryParams& mp = memory_.params();
  const uint64_t per_burst = std::max<uint64_t>(1, mp.max_burst_bytes / kInsnBytes);
  const uint64_t fetch_slots = mp.read_outstanding;
  fetch_arrival_.clear();
  uint64_t fetch_request = 0;
  auto fetch_burst = [&](size_t b) {
    uint64_t t = fetch_arrival_.empty() ? 0 : fetch_request + 1;
    if (b >= fetch_slots) t = std::max(t, fetch_time_[(b - fetch_slots + 1) * per_burst - 1]);
    fetch_request = t;
    const uint64_t first = b * per_burst, count = std::min<uint64_t>(per_burst, n - first);
    const TransferResult x = memory_.read_burst(t, first * kInsnBytes, count * kInsnBytes);
    report.dram_busy_cycles += x.port_cycles;
    report.dram_bursts += x.bursts;
    fetch_arrival_.push_back(x.data_start);
  };
  auto run_fetch = [&] {
    const size_t before = fetched;
    while (fetched < n) {
      const size_t m = plan_[fetched].module;
      const uint32_t p = plan_[fetched].queue_pos;
      uint64_t t = last_fetch + 1;
      if (p >= cmd_depth) {
        if (p - cmd_depth >= mods[m].dequeued) break;
        t = std::max(t, deq_time_[m][p - cmd_depth]);
      }
      // An instruction is decoded once its own bytes are in: the burst streams beat by beat.
      const size_t b = fetched / per_burst;
      if (b >= fetch_arrival_.size()) fetch_burst(b);
      const uint64_t first = b * per_burst;
      t = std::max(t, memory_.bytes_arrived(fetch_arrival_[b], first * kInsnBytes,
                                            (fetched - first + 1) * kInsnBytes));
      fetch_time_[fetched++] = t;
      last_fetch = t;
    }
    return fetched != before;
  };

  while (done < n) {
    // Settle everything that does not depend on choosing a start: finished modules push their
    // tokens, free modules take their next command off the queue before waiting for its tokens
    // (as vta.cc does, freeing the slot for fetch), and fetch refills the queues. Repeat until
    // nothing changes, so every command that could start is a candidate below.
    bool progress = false;
    for (bool changed = true; changed;) {
      changed = run_fetch();
      for (int m = 0; m < hw::kNumModules; ++m) {
        ModuleState& ms = mods[m];
        if (ms.pushing) {
          if (!try_push(ms, m)) continue;
          changed = true;
        }
        if (ms.next >= ms.size || ms.dequeued > ms.next) continue;
        const uint32_t i = (*ms.queue)[ms.next];
        if (i >= fetched) continue;
        deq_time_[m][ms.next] = std::max(ms.free_at, fetch_time_[i]);
        ms.dequeued = ms.next + 1;
        changed = true;
      }
      progress |= changed;
    }
    // Start the ready instruction with the earliest start time (keeps the bus in time order).
    int best = -1;
    uint64_t best_start = kUnknown, best_deq = 0;
    for (int m = 0; m < hw::kNumModules; ++m) {
      const ModuleState& ms = mods[m];
      if (ms.pushing || ms.next >= ms.size || ms.dequeued <= ms.next) continue;
      const uint64_t deq = deq_time_[m][ms.next];
      const uint32_t i = (*ms.queue)[ms.next];
      uint64_t start = serial ? std::max(deq, serial_end) : deq;
      bool ready = true;
      for (int q : plan_[i].pops) {
        if (q < 0) continue;
        const size_t popped = pop_times_[q].size();
        if (push_times_[q].size() <= popped) {
          ready = false;
          break;
        }
        start = std::max(start, push_times_[q][popped]);
      }
      if (ready && start < best_start) {
        best = m;
        best_start = start;
        best_deq = deq;
      }
    }
    if (best < 0) {
      if (progress) continue;
      // Nothing can move: describe what each module waits for.
      std::array<uint64_t, kNumTokenQueues> total_pushes{};
      for (size_t k = 0; k < n; ++k) {
        for (int q : plan_[k].pushes) {
          if (q >= 0) ++total_pushes[size_t(q)];
        }
      }
      std::string why;
      for (int m = 0; m < hw::kNumModules; ++m) {
        const ModuleState& ms = mods[m];
        if (ms.pushing) {
          const Planned& u = plan_[ms.current];
          for (int q : u.pushes) {
            if (q >= 0 && push_times_[q].size() - pop_times_[q].size() >= tok_depth) {
              why += fmt::format("; {} instruction {} ({}) cannot push into full token queue {}",
                                 hw::module_name(Module(m)), ms.current,
                                 hw::disassemble(program[ms.current]),
                                 token_queue_name(TokenQueue(q)));
            }
          }
          continue;
        }
        if (ms.next >= ms.size) continue;
        const uint32_t i = (*ms.queue)[ms.next];
        if (i >= fetched) continue;  // blocked behind fetch; reported via others
        for (int q : plan_[i].pops) {
          if (q < 0) continue;
          if (push_times_[q].size() > pop_times_[q].size()) continue;
          const uint64_t need = pop_times_[q].size() + 1;
          why += fmt::format("; {} instruction {} ({}) pops token #{} of {}", hw::module_name(Module(m)),
                             i, hw::disassemble(program[i]), need, token_queue_name(TokenQueue(q)));
          why += total_pushes[q] < need
                     ? fmt::format(" but the program pushes only {}", total_pushes[q])
                     : std::string(" whose pushing instruction is itself blocked");
        }
      }
      if (fetched < n) {
        why += fmt::format("; fetch is stalled at instruction {} (its {} command queue is full)",
                           fetched, hw::module_name(Module(plan_[fetched].module)));
      }
      throw Error("deadlock: no instruction can proceed" + why);
    }

    if (best_start > cycle_limit) {
      report.cycles = best_start;
      report.insns = n;
      return;
    }
    ModuleState& ms = mods[best];
    const uint32_t i = (*ms.queue)[ms.next];
    ModuleStats& st = report.modules[best];
    ++ms.next;
    for (int q : plan_[i].pops) {
      if (q >= 0) pop_times_[q].push_back(best_start);
    }
    st.idle_cycles += best_deq - ms.free_at;
    st.stall_token_cycles += best_start - best_deq;
    if (on_start) on_start(i);

    const InsnCost k = insn_cost(config_, program[i]);
    uint64_t end = best_start + k.issue;
    uint64_t dram_stall = 0;
    if (k.rows > 0) {
      const bool store = program[i].opcode == hw::Opcode::kStore;
      const TransferResult x = memory_.transfer(end, k.addr, k.rows, k.row_bytes, k.stride_bytes, store);
      dram_stall = x.stall;
      st.stall_dram_cycles += x.stall;
      report.dram_busy_cycles += x.port_cycles;
      report.dram_bursts += x.bursts;
      const uint8_t mem = store ? uint8_t(MemId::kOut) : program[i].memory_type;
      if (mem < hw::kNumMemIds) report.transfer_cycles[mem] += x.end - end;
      if (store) {
        report.bytes_stored += k.bytes;
      } else if (mem < hw::kNumMemIds) {
        report.bytes_loaded[mem] += k.bytes;
      }
      end = x.end;
    }
    end += k.compute;
    st.busy_cycles += end - best_start - dram_stall;
    ++st.insns;
    report.macs += k.macs;
    report.gemm_uops += k.gemm_uops;
    report.alu_uops += k.alu_uops;
    ms.current = i;
    ms.exec_end = end;
    if (serial) serial_end = end;
    ms.pushing = true;
    try_push(ms, best);
  }
  uint64_t total = 0;
  for (const ModuleState& ms : mods) total = std::max(total, ms.free_at);
  report.cycles = total;
  report.insns = n;
}

}  // namespace tauvta::sim
