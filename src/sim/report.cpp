#include "sim/report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tauvta::sim {

double RunReport::gops_at_clock(const hw::HwConfig& c) const { return c.gops(macs, cycles); }

uint64_t RunReport::compute_floor_cycles(const hw::HwConfig& c) const {
  const uint64_t lanes = uint64_t(c.batch()) * c.block_out();
  const uint64_t passes = c.impl.alu_lanes == 0 ? 1 : (lanes + c.impl.alu_lanes - 1) / c.impl.alu_lanes;
  return gemm_uops * uint64_t(c.timing.gemm_ii) + alu_uops * passes * uint64_t(c.timing.alu_ii);
}

namespace {

// "load_INP", ..., "store_OUT": a memory type as a transfer direction and name.
std::string transfer_label(int mem, const char* sep) {
  return std::string(mem == int(hw::MemId::kOut) ? "store" : "load") + sep + hw::mem_id_name(uint8_t(mem));
}

}  // namespace

double RunReport::achieved_bytes_per_cycle(int mem) const {
  const uint64_t bytes = mem == int(hw::MemId::kOut) ? bytes_stored : bytes_loaded[size_t(mem)];
  return transfer_cycles[size_t(mem)] ? double(bytes) / double(transfer_cycles[size_t(mem)]) : 0.0;
}

void RunReport::add(const RunReport& o) {
  cycles += o.cycles;
  insns += o.insns;
  macs += o.macs;
  gemm_uops += o.gemm_uops;
  alu_uops += o.alu_uops;
  for (size_t m = 0; m < modules.size(); ++m) {
    modules[m].insns += o.modules[m].insns;
    modules[m].busy_cycles += o.modules[m].busy_cycles;
    modules[m].stall_token_cycles += o.modules[m].stall_token_cycles;
    modules[m].stall_queue_cycles += o.modules[m].stall_queue_cycles;
    modules[m].stall_dram_cycles += o.modules[m].stall_dram_cycles;
    modules[m].idle_cycles += o.modules[m].idle_cycles;
  }
  for (size_t k = 0; k < bytes_loaded.size(); ++k) bytes_loaded[k] += o.bytes_loaded[k];
  bytes_stored += o.bytes_stored;
  dram_busy_cycles += o.dram_busy_cycles;
  dram_bursts += o.dram_bursts;
  for (size_t k = 0; k < transfer_cycles.size(); ++k) transfer_cycles[k] += o.transfer_cycles[k];
  timing_only = timing_only || o.timing_only;
  sim_wall_seconds += o.sim_wall_seconds;
  hazards.insert(hazards.end(), o.hazards.begin(), o.hazards.end());
}

nlohmann::json RunReport::modules_json() const {
  nlohmann::json mods = nlohmann::json::object();
  for (int m = 0; m < hw::kNumModules; ++m) {
    const ModuleStats& s = modules[size_t(m)];
    mods[hw::module_name(hw::Module(m))] = {{"insns", s.insns},
                                            {"busy_cycles", s.busy_cycles},
                                            {"stall_token_cycles", s.stall_token_cycles},
                                            {"stall_queue_cycles", s.stall_queue_cycles},
                                            {"stall_dram_cycles", s.stall_dram_cycles},
                                            {"idle_cycles", s.idle_cycles}};
  }
  return mods;
}

nlohmann::json RunReport::dram_json() const {
  nlohmann::json bw = nlohmann::json::object();
  for (int k = 0; k < hw::kNumMemIds; ++k) {
    if (transfer_cycles[size_t(k)] == 0) continue;
    bw[transfer_label(k, "_")] = {
        {"transfer_cycles", transfer_cycles[size_t(k)]}, {"bytes_per_cycle", achieved_bytes_per_cycle(k)}};
  }
  return bw;
}

uint64_t RunReport::stall_dram_cycles() const {
  uint64_t s = 0;
  for (const ModuleStats& m : modules) s += m.stall_dram_cycles;
  return s;
}

nlohmann::json RunReport::to_json(const hw::HwConfig& c) const {
  nlohmann::json j;
  j["cycles"] = cycles;
  j["insns"] = insns;
  j["macs"] = macs;
  j["gemm_uops"] = gemm_uops;
  j["alu_uops"] = alu_uops;
  j["gops_at_clock"] = gops_at_clock(c);
  j["peak_gops"] = c.peak_gops();
  j["gemm_utilization"] = gemm_utilization();
  j["compute_floor_cycles"] = compute_floor_cycles(c);
  j["sim_wall_seconds"] = sim_wall_seconds;
  j["timing_only"] = timing_only;
  j["dram_busy_cycles"] = dram_busy_cycles;
  j["dram_bursts"] = dram_bursts;
  j["modules"] = modules_json();
  nlohmann::json bytes = nlohmann::json::object();
  for (int k = 0; k < hw::kNumMemIds; ++k) {
    if (k == int(hw::MemId::kOut)) continue;
    bytes[std::string("load_") + hw::mem_id_name(uint8_t(k))] = bytes_loaded[k];
  }
  bytes["store_OUT"] = bytes_stored;
  j["bytes"] = bytes;
  j["dram_bandwidth"] = dram_json();
  nlohmann::json hz = nlohmann::json::array();
  for (const Hazard& h : hazards) {
    hz.push_back({{"kind", h.kind},
                  {"memory", h.memory},
                  {"element", h.element},
                  {"first", h.first},
                  {"second", h.second},
                  {"message", h.message()}});
  }
  j["hazards"] = hz;
  j["config"] = c.to_json();
  return j;
}

std::string RunReport::summary_table(const hw::HwConfig& c) const {
  std::string s;
  s += fmt::format("{:<22}{:>16}\n", "cycles", cycles);
  s += fmt::format("{:<22}{:>16.3f}\n", "time at clock (us)", double(cycles) / c.timing.clock_mhz);
  s += fmt::format("{:<22}{:>16}\n", "instructions", insns);
  s += fmt::format("{:<22}{:>16}\n", "MACs", macs);
  s += fmt::format("{:<22}{:>16.3f}  (peak {:.1f})\n", "GOPS at clock", gops_at_clock(c),
                   c.peak_gops());
  s += fmt::format("{:<22}{:>15.1f}%\n", "GEMM utilization", 100.0 * gemm_utilization());
  s += fmt::format("{:<22}{:>16.4f}\n", "sim wall seconds", sim_wall_seconds);
  s += fmt::format("\n{:<9}{:>8}{:>13}{:>13}{:>13}{:>13}{:>13}\n", "module", "insns", "busy",
                   "stall:token", "stall:queue", "stall:dram", "idle");
  for (int m = 0; m < hw::kNumModules; ++m) {
    const ModuleStats& st = modules[m];
    s += fmt::format("{:<9}{:>8}{:>13}{:>13}{:>13}{:>13}{:>13}\n", hw::module_name(hw::Module(m)),
                     st.insns, st.busy_cycles, st.stall_token_cycles, st.stall_queue_cycles,
                     st.stall_dram_cycles, st.idle_cycles);
  }
  s += fmt::format("\n{:<9}{:>14}{:>16}{:>14}\n", "DRAM", "bytes", "transfer cyc", "bytes/cycle");
  for (int k : {int(hw::MemId::kUop), int(hw::MemId::kWgt), int(hw::MemId::kInp), int(hw::MemId::kAcc), int(hw::MemId::kOut)}) {
    const uint64_t b = k == int(hw::MemId::kOut) ? bytes_stored : bytes_loaded[size_t(k)];
    s += fmt::format("{:<9}{:>14}{:>16}{:>14.2f}\n", transfer_label(k, " "),
                     b, transfer_cycles[size_t(k)], achieved_bytes_per_cycle(k));
  }
  s += fmt::format("port data channels busy {:.1f}% of cycles ({} bursts)\n",
                   cycles ? 100.0 * double(dram_busy_cycles) / double(cycles) : 0.0, dram_bursts);
  return s;
}

}  // namespace tauvta::sim
