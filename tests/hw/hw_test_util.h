// Shared by the hw tests: random valid hardware configs and random encodable instructions,
// drawn from a seeded generator so a failure reproduces.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/error.h"
#include "hw/hw_config.h"
#include "hw/isa_layout.h"

namespace tauvta::hw::testing {

// Draws LOG_* values over (and a little past) their ranges and keeps the configs that validate.
inline std::vector<HwConfig> random_valid_configs(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<HwConfig> out;
  while (out.size() < count) {
    HwConfig c;
    c.log_inp_width = pick(0, 4);
    c.log_wgt_width = pick(0, 4);
    c.log_acc_width = pick(4, 6);
    c.log_batch = pick(0, 3);
    c.log_block_in = pick(0, 6);
    c.log_block_out = pick(0, 1) ? c.log_block_in : pick(0, 6);
    c.log_uop_buff_size = pick(2, 18);
    c.log_inp_buff_size = pick(3, 22);
    c.log_wgt_buff_size = pick(3, 22);
    c.log_acc_buff_size = pick(3, 22);
    try {
      c.validate();
    } catch (const Error&) {
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// An instruction of `op` with every field of its format drawn uniformly over the field's width
// (memory_type and alu_opcode included, so undefined ids 6-7 and 5-7 appear too).
inline Insn random_insn(const IsaLayout& layout, Opcode op, std::mt19937_64& rng) {
  Insn insn;
  for (const FieldDesc& d : layout.fields(format_of(op))) {
    uint64_t v = d.width == 0 ? 0 : rng() >> (64 - d.width);
    if (d.field == Field::kOpcode) v = uint64_t(op);
    IsaLayout::set(insn, d.field, v);
  }
  return insn;
}

inline Opcode random_opcode(std::mt19937_64& rng) { return Opcode(rng() % kNumOpcodes); }

}  // namespace tauvta::hw::testing
