#include "sim/simulator.h"

#include <chrono>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "hw/disasm.h"
#include "sim/functional_core.h"
#include "sim/hazard_checker.h"
#include "sim/timing_model.h"

namespace tauvta::sim {

Simulator::Simulator(const hw::HwConfig& config, Dram& dram)
    : config_(config), layout_(config), dram_(dram),
      core_(std::make_unique<FunctionalCore>(config_, layout_, dram_)),
      timing_(std::make_unique<TimingModel>(config_)) {}

Simulator::~Simulator() = default;

void Simulator::reset() { core_->memory().clear(); }

namespace {

void decode_program(const hw::IsaLayout& layout, std::span<const hw::RawInsn> program,
                    std::vector<hw::Insn>& insns) {
  insns.clear();
  insns.reserve(program.size());
  for (size_t i = 0; i < program.size(); ++i) insns.push_back(layout.decode(program[i], i));
  if (insns.empty()) throw Error("program is empty: it must end with FINISH");
  size_t finish = insns.size();
  for (size_t i = 0; i < insns.size(); ++i) {
    if (insns[i].opcode == hw::Opcode::kFinish) {
      finish = i;
      break;
    }
  }
  if (finish == insns.size()) {
    throw Error(fmt::format("program ends without FINISH: {} instructions, the last is instruction "
                            "{} ({})",
                            insns.size(), insns.size() - 1, hw::disassemble(insns.back())));
  }
  if (finish + 1 < insns.size()) {
    throw Error(fmt::format("instruction {} ({}) follows FINISH (instruction {}); FINISH must be "
                            "the last instruction",
                            finish + 1, hw::disassemble(insns[finish + 1]), finish));
  }
}

}  // namespace

RunReport Simulator::run(std::span<const hw::RawInsn> program, const RunOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  decode_program(layout_, program, insns_);
  const std::vector<hw::Insn>& insns = insns_;
  if (options.check_hazards && options.timing_only) {
    throw Error("hazard checking needs a full run: the accessed SRAM ranges depend on micro-op "
                "contents (drop --timing-only)");
  }
  RunReport report;
  report.timing_only = options.timing_only;
  TimingModel& timing = *timing_;
  timing.set_reference_memory(options.reference_memory);
  core_->set_simd(!options.portable_kernels);  // run_gemm picks the kernel the CPU has
  core_->set_instruments(options.timing_only ? nullptr : options.instruments);
  if (options.timing_only) {
    timing.schedule(insns, {}, report);
  } else if (options.check_hazards) {
    HazardChecker checker(config_, insns);
    core_->set_observer(&checker);
    try {
      timing.schedule(insns, [&](size_t i) {
        checker.on_start(i);
        core_->execute(insns[i], i);
      }, report);
    } catch (...) {
      core_->set_observer(nullptr);
      throw;
    }
    core_->set_observer(nullptr);
    report.hazards = checker.hazards();
    if (options.fail_on_hazard && !report.hazards.empty()) {
      std::string msg = fmt::format("{} hazard(s) found", report.hazards.size());
      for (const Hazard& h : report.hazards) msg += "\n  " + h.message();
      throw Error(msg);
    }
  } else {
    timing.schedule(insns, [&](size_t i) { core_->execute(insns[i], i); }, report);
  }
  report.sim_wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

RunReport Simulator::run_at(uint64_t insn_addr, uint32_t insn_count, const RunOptions& options) {
  // The declared count against DRAM before the program buffer is allocated.
  dram_.check(insn_addr, uint64_t(insn_count) * 16, "instruction fetch");
  std::vector<hw::RawInsn> program(insn_count);
  dram_.read(insn_addr,
             std::span<uint8_t>(reinterpret_cast<uint8_t*>(program.data()), program.size() * 16),
             "instruction fetch");
  return run(program, options);
}

}  // namespace tauvta::sim
