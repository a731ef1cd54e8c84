// HazardChecker (debug option): tracks the SRAM elements each instruction reads and writes and
// flags two instructions on different modules that touch the same element (RAW, WAR, WAW) with no
// token path ordering them. Happens-before comes from vector clocks carried by the tokens, so the
// verdict does not depend on how the timing model happened to interleave the modules.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <span>
#include <tuple>
#include <vector>

#include "hw/hw_config.h"
#include "hw/insn.h"
#include "sim/compute_kernels.h"
#include "sim/report.h"
#include "sim/timing_model.h"

namespace tauvta::sim {

class HazardChecker : public AccessObserver {
 public:
  HazardChecker(const hw::HwConfig& config, std::span<const hw::Insn> program,
                size_t max_reports = 100);

  // Called when instruction `index` starts (after every instruction it depends on started).
  void on_start(size_t index);
  void on_access(hw::MemId mem, uint32_t first, uint32_t count, bool write) override;
  const std::vector<Hazard>& hazards() const { return hazards_; }

 private:
  using Clock = std::array<uint32_t, hw::kNumModules>;
  struct Shadow {
    uint32_t w_seq = 0, w_insn = 0;
    uint8_t w_mod = 0;
    std::array<uint32_t, hw::kNumModules> r_seq{}, r_insn{};
  };
  void report(const char* kind, hw::MemId mem, uint32_t element, uint32_t earlier);

  std::span<const hw::Insn> program_;
  size_t max_reports_;
  std::array<std::vector<Shadow>, hw::kNumMemIds> shadow_;
  std::array<Clock, hw::kNumModules> module_clock_{};
  std::array<uint32_t, hw::kNumModules> count_{};
  std::array<std::vector<Clock>, kNumTokenQueues> tokens_;
  std::array<size_t, kNumTokenQueues> token_head_{};
  size_t current_ = 0;
  int current_module_ = 0;
  Clock clock_{};
  std::vector<Hazard> hazards_;
  std::set<std::tuple<size_t, size_t, std::string, int>> seen_;
};

}  // namespace tauvta::sim
