#include "backend/rtl_program.h"

#include <algorithm>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "fpga/design_options.h"
#include "hw/isa_layout.h"
#include "hw/program_file.h"
#include "sim/timing_model.h"

namespace tauvta::backend {

namespace {

constexpr uint64_t kPage = 4096;

// The DRAM pages a program's loads and stores can touch: every row the timing model moves
// (sim::insn_cost), as whole pages (the AXI masters read whole bus beats inside a page).
std::set<uint64_t> touched_pages(const hw::HwConfig& c, std::span<const hw::Insn> program) {
  std::set<uint64_t> pages;
  for (const hw::Insn& i : program) {
    const sim::InsnCost k = sim::insn_cost(c, i);
    for (uint64_t y = 0; y < k.rows; ++y) {
      const uint64_t first = k.addr + y * k.stride_bytes, last = first + k.row_bytes - 1;
      for (uint64_t p = first / kPage; p <= last / kPage; ++p) pages.insert(p);
    }
  }
  return pages;
}

// Contiguous runs of pages, as [first byte, bytes) inside `limit`.
std::vector<std::pair<uint64_t, uint64_t>> page_runs(const std::set<uint64_t>& pages, uint64_t limit) {
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  for (uint64_t p : pages) {
    const uint64_t a = p * kPage;
    if (a >= limit) break;
    const uint64_t n = std::min(kPage, limit - a);
    if (!runs.empty() && runs.back().first + runs.back().second == a) runs.back().second += n;
    else runs.emplace_back(a, n);
  }
  return runs;
}

}  // namespace

rtl::RtlOptions rtl_options_for(const hw::HwConfig& config) {
  const fpga::Device* device = fpga::device_for_target(config.target);
  return device ? fpga::rtl_options(config, *device) : rtl::options_of(config, 0);
}

hw::HwConfig rtl_timing(const hw::HwConfig& config, const rtl::RtlOptions& options) {
  const rtl::DatapathShape s = rtl::shape_of(config, options);
  return config.with_timing({{"GEMM_PIPELINE_DEPTH", s.gemm_latency + rtl::kDatapathFrontEndStages},
                             {"ALU_PIPELINE_DEPTH", s.alu_latency + rtl::kDatapathFrontEndStages}},
                            "the generated RTL's pipeline");
}

double RtlProgramResult::cycle_error() const {
  return model.cycles == 0 ? 0.0 : (double(rtl.cycles()) - double(model.cycles)) / double(model.cycles);
}

RtlProgramResult run_program_on_rtl(sim::Simulator& simulator, rtl::AcceleratorSim& rtl,
                                    std::span<const hw::RawInsn> program,
                                    const sim::RunOptions& options, uint64_t max_cycles) {
  const hw::HwConfig& c = simulator.config();
  sim::Dram& dram = simulator.dram();
  const hw::IsaLayout layout(c);
  std::vector<hw::Insn> insns;
  insns.reserve(program.size());
  for (size_t k = 0; k < program.size(); ++k) insns.push_back(layout.decode(program[k], k));
  const uint64_t insn_addr = (dram.size() + kPage - 1) / kPage * kPage;
  if (insn_addr + program.size() * 16 > rtl::AcceleratorSim::kAddressSpace) {
    throw Error(fmt::format("rtl: a DRAM of {} bytes leaves no room for the program below the "
                            "32-bit AXI address space (use a smaller --dram-size)",
                            dram.size()));
  }
  const auto runs = page_runs(touched_pages(c, insns), dram.size());
  std::vector<uint8_t> bytes;
  for (const auto& [addr, n] : runs) {
    bytes.resize(n);
    dram.read(addr, bytes, "rtl upload");
    rtl.write(addr, bytes);
  }
  rtl.write(insn_addr, hw::program_bytes(program));

  RtlProgramResult r;
  r.model = simulator.run(program, options);
  const uint64_t limit = max_cycles != 0 ? max_cycles : 20 * r.model.cycles + 1000000;
  r.rtl = rtl.run(insn_addr, uint32_t(program.size()), limit);

  std::vector<uint8_t> got;
  for (const auto& [addr, n] : runs) {
    bytes.resize(n);
    got.resize(n);
    dram.read(addr, bytes, "rtl compare");
    rtl.read(addr, got);
    r.compared_bytes += n;
    if (r.bit_exact && bytes != got) {
      const size_t k = size_t(std::mismatch(bytes.begin(), bytes.end(), got.begin()).first - bytes.begin());
      r.bit_exact = false;
      r.difference = fmt::format("DRAM byte {:#x}: RTL {:#04x}, simulator {:#04x}", addr + k,
                                 got[k], bytes[k]);
    }
  }
  return r;
}

nlohmann::json RtlProgramResult::to_json() const {
  nlohmann::json counters = nlohmann::json::object();
  for (size_t k = 0; k < rtl::kAcceleratorCounters.size(); ++k) {
    counters[rtl::kAcceleratorCounters[k]] = rtl.counters[k];
  }
  nlohmann::json j = {{"rtl_cycles", rtl.cycles()},
                      {"model_cycles", model.cycles},
                      {"cycle_error", cycle_error()},
                      {"bit_exact", bit_exact},
                      {"compared_bytes", compared_bytes},
                      {"rtl_counters", counters}};
  if (!bit_exact) j["difference"] = difference;
  return j;
}

std::string RtlProgramResult::table() const {
  std::string t = fmt::format("{:<10} {:>12} {:>12} {:>8}\n", "", "RTL", "timing model", "error");
  t += fmt::format("{:<10} {:>12} {:>12} {:>+7.1f}%\n", "cycles", rtl.cycles(), model.cycles,
                   100 * cycle_error());
  const char* names[] = {"load", "compute", "store"};
  for (int m = 0; m < 3; ++m) {
    const sim::ModuleStats& s = model.modules[size_t(m)];
    const size_t k = size_t(3 + 4 * m);
    t += fmt::format("{:<10} busy {:>10} / {:<10} token wait {:>10} / {:<10} push wait {:>8} / {:<8} insns {} / {}\n",
                     names[m], rtl.counters[k], s.busy_cycles, rtl.counters[k + 1],
                     s.stall_token_cycles, rtl.counters[k + 2], s.stall_queue_cycles,
                     rtl.counters[k + 3], s.insns);
  }
  t += fmt::format("DRAM       {} bytes compared: {}\n", compared_bytes,
                   bit_exact ? "bit-exact" : "DIFFERENT, " + difference);
  return t;
}

}  // namespace tauvta::backend
