#include "sim/hazard_checker.h"

#include <string>
#include <utility>

#include <fmt/format.h>

#include "hw/disasm.h"

namespace tauvta::sim {

HazardChecker::HazardChecker(const hw::HwConfig& c, std::span<const hw::Insn> program,
                             size_t max_reports)
    : program_(program), max_reports_(max_reports) {
  shadow_[size_t(hw::MemId::kUop)].resize(c.uop_depth());
  shadow_[size_t(hw::MemId::kWgt)].resize(c.wgt_depth());
  shadow_[size_t(hw::MemId::kInp)].resize(c.inp_depth());
  shadow_[size_t(hw::MemId::kAcc)].resize(c.acc_depth());
  shadow_[size_t(hw::MemId::kOut)].resize(c.out_depth());
}

void HazardChecker::on_start(size_t index) {
  const hw::Insn& insn = program_[index];
  const int m = int(hw::module_of(insn));
  Clock vc = module_clock_[m];
  const TokenUse u = token_use(insn);
  for (int q : u.pops) {
    if (q < 0 || token_head_[q] >= tokens_[q].size()) continue;
    const Clock& t = tokens_[q][token_head_[q]++];
    for (int k = 0; k < hw::kNumModules; ++k) vc[k] = std::max(vc[k], t[k]);
  }
  vc[m] = ++count_[m];
  module_clock_[m] = vc;
  for (int q : u.pushes) {
    if (q >= 0) tokens_[q].push_back(vc);
  }
  current_ = index;
  current_module_ = m;
  clock_ = vc;
}

void HazardChecker::on_access(hw::MemId mem, uint32_t first, uint32_t count, bool write) {
  std::vector<Shadow>& sh = shadow_[size_t(mem)];
  const int m = current_module_;
  for (uint32_t e = first; e < first + count && e < sh.size(); ++e) {
    Shadow& s = sh[e];
    const bool unordered_write = s.w_seq != 0 && s.w_mod != m && clock_[s.w_mod] < s.w_seq;
    if (write) {
      if (unordered_write) report("WAW", mem, e, s.w_insn);
      for (int r = 0; r < hw::kNumModules; ++r) {
        if (r != m && s.r_seq[r] != 0 && clock_[r] < s.r_seq[r]) report("WAR", mem, e, s.r_insn[r]);
      }
      s.w_seq = clock_[m];
      s.w_insn = uint32_t(current_);
      s.w_mod = uint8_t(m);
      s.r_seq = {};
    } else {
      if (unordered_write) report("RAW", mem, e, s.w_insn);
      s.r_seq[m] = clock_[m];
      s.r_insn[m] = uint32_t(current_);
    }
  }
}

void HazardChecker::report(const char* kind, hw::MemId mem, uint32_t element, uint32_t earlier) {
  if (hazards_.size() >= max_reports_) return;
  // Name the hazard in program order (what the programmer intended): if the access that ran first
  // belongs to the later instruction, a "read then write" was meant as write-then-read (RAW).
  size_t first = earlier, second = current_;
  std::string k = kind;
  if (first > second) {
    std::swap(first, second);
    if (k == "RAW") {
      k = "WAR";
    } else if (k == "WAR") {
      k = "RAW";
    }
  }
  if (!seen_.insert({first, second, k, int(mem)}).second) return;
  Hazard h;
  h.kind = k;
  h.memory = hw::mem_id_name(uint8_t(mem));
  h.element = element;
  h.first = first;
  h.second = second;
  h.first_disasm = hw::disassemble(program_[first]);
  h.second_disasm = hw::disassemble(program_[second]);
  hazards_.push_back(std::move(h));
}

std::string Hazard::message() const {
  return fmt::format("{} hazard on {} element {}: instruction {} ({}) and instruction {} ({}) run "
                     "on different modules with no dependency token ordering them",
                     kind, memory, element, first, first_disasm, second, second_disasm);
}

}  // namespace tauvta::sim
