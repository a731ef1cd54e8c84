// Instruction-stream decode and simulation, as `tauvta sim` runs a raw program: the input is
//   byte 0   options: bit 0 timing only, bit 1 check hazards, bit 2 portable kernels,
//            bits 3..5 the hardware config (kConfigs)
//   byte 1   instruction count (at most kMaxInsns; fewer when the input is shorter)
//   16 bytes per instruction, then the DRAM image at address 0 (micro-ops and data).
// Every instruction is decoded, disassembled and re-assembled (the round trip must give the same
// instruction back). Programs whose declared work (elements moved, MACs, ALU lanes) exceeds
// kMaxWork are not simulated, so no input times out on legitimate work. A full run that succeeds
// must give the same cycles as a timing-only run of the same program.
#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fuzz_target.h"
#include "hw/disasm.h"
#include "hw/hw_config.h"
#include "hw/isa_layout.h"
#include "sim/dram.h"
#include "sim/simulator.h"

namespace {

using namespace tauvta;

constexpr size_t kMaxInsns = 256;
constexpr uint64_t kMaxWork = uint64_t(1) << 24;
constexpr uint64_t kDramBytes = uint64_t(16) << 20;

// The presets under configs/ plus the reference programs' 2x8 4-bit config.
const std::array<const char*, 8> kConfigs = {
    "1x16_i8w8a32_15_15_18_17",  "4x8_i8w8a32_15_15_18_17",   "1x16_i16w16a64_15_16_19_18",
    "1x16_i1w1a32_15_12_15_17",  "1x16_i2w2a32_15_13_16_17",  "1x16_i4w4a32_15_14_17_17",
    "2x8_i4w4a32_15_14_15_17",   "1x16x32_i8w8a32_15_15_18_17"};

const hw::HwConfig& config(size_t k) {
  static const std::vector<hw::HwConfig> configs = [] {
    std::vector<hw::HwConfig> out;
    for (const char* name : kConfigs) out.push_back(hw::HwConfig::from_name(name));
    return out;
  }();
  return configs[k % configs.size()];
}

uint64_t elem_bytes(const hw::HwConfig& c, uint8_t mem) {
  switch (hw::MemId(mem)) {
    case hw::MemId::kUop: return 4;
    case hw::MemId::kWgt: return uint64_t(c.wgt_elem_bytes());
    case hw::MemId::kInp: return uint64_t(c.inp_elem_bytes());
    case hw::MemId::kAcc: return uint64_t(c.acc_elem_bytes());
    case hw::MemId::kOut: return uint64_t(c.out_elem_bytes());
    case hw::MemId::kAcc8: return uint64_t(c.out_elem_bytes());
  }
  return 64;
}

// What the program asks the simulator to do, in elementary steps (bytes moved, MACs, ALU lanes);
// saturates at kMaxWork + 1. Ranges the simulator rejects (uop_end < uop_bgn, zero iterations)
// count as one step, so such programs still reach its checks.
uint64_t declared_work(const hw::HwConfig& c, const std::vector<hw::Insn>& insns) {
  uint64_t work = 0;
  const auto add = [&](uint64_t a, uint64_t b, uint64_t d, uint64_t e) {
    // Each factor is below 2^33, so the products are formed in steps and saturated.
    uint64_t w = a * b;
    if (w > kMaxWork) return void(work = kMaxWork + 1);
    w *= d;
    if (w > kMaxWork) return void(work = kMaxWork + 1);
    w *= e;
    work = std::min(kMaxWork + 1, work + w);
  };
  for (const hw::Insn& i : insns) {
    const uint64_t one = 1;
    if (i.is_mem()) {
      add(uint64_t(i.y_size) + i.y_pad_0 + i.y_pad_1, std::max<uint64_t>(one, uint64_t(i.x_size) + i.x_pad_0 + i.x_pad_1),
          elem_bytes(c, i.memory_type), 1);
    } else if (i.opcode == hw::Opcode::kGemm || i.opcode == hw::Opcode::kAlu) {
      const uint64_t uops = i.uop_end > i.uop_bgn ? i.uop_end - i.uop_bgn : 1;
      const uint64_t lanes = i.opcode == hw::Opcode::kGemm ? c.macs_per_cycle() : uint64_t(c.batch()) * c.block_out();
      add(std::max<uint64_t>(one, i.iter_out), std::max<uint64_t>(one, i.iter_in), uops, lanes);
    }
    add(1, 1, 1, 1);
  }
  return work;
}

}  // namespace

TAUVTA_FUZZ_TARGET(sim) {
  fuzz::ByteReader in(data, size);
  const uint8_t options = in.u8();
  const hw::HwConfig& c = config(options >> 3);
  const hw::IsaLayout layout(c);
  const size_t n = std::min({size_t(in.u8()), in.size() / 16, kMaxInsns});
  std::vector<hw::RawInsn> program(n);
  for (hw::RawInsn& r : program) {
    for (int b = 0; b < 8; ++b) r.lo |= uint64_t(in.u8()) << (8 * b);
    for (int b = 0; b < 8; ++b) r.hi |= uint64_t(in.u8()) << (8 * b);
  }

  // Decode, and the disassembly assembled back must be the same instruction.
  std::vector<hw::Insn> insns;
  for (size_t i = 0; i < n; ++i) {
    const hw::Insn insn = layout.decode(program[i], i);  // an undefined opcode: a clean error
    const hw::Insn again = layout.decode(layout.encode(insn), i);
    fuzz::check(again == insn, fmt::format("instruction {}: decode(encode(decode(raw))) differs: {} vs {}", i,
                                           hw::disassemble(insn), hw::disassemble(again)));
    const std::string text = hw::disassemble(insn);
    const hw::Assembled a = hw::assemble(layout, text, "disassembly");
    fuzz::check(a.insns.size() == 1 && layout.decode(a.insns[0], i) == insn,
                fmt::format("instruction {}: '{}' does not assemble back to itself", i, text));
    insns.push_back(insn);
  }
  if (declared_work(c, insns) > kMaxWork) return;

  sim::Dram dram(kDramBytes);
  const size_t image = std::min<size_t>(in.size(), kDramBytes);
  dram.write(0, std::span<const uint8_t>(in.data(), image), "image");
  sim::Simulator simulator(c, dram);
  sim::RunOptions o;
  o.timing_only = options & 1;
  o.check_hazards = options & 2;
  o.portable_kernels = options & 4;
  const sim::RunReport report = simulator.run(program, o);
  (void)report.summary_table(c);
  (void)report.to_json(c);
  if (!o.timing_only) {
    sim::Simulator timing(c, dram);
    sim::RunOptions t;
    t.timing_only = true;
    const sim::RunReport r2 = timing.run(program, t);
    fuzz::check(r2.cycles == report.cycles,
                fmt::format("a full run took {} cycles, the timing-only run {}", report.cycles, r2.cycles));
  }
}
