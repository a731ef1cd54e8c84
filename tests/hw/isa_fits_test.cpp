// IsaLayout::fits (the command builder's per-instruction check) against encode: for random
// instructions of every opcode with field values around their limits, on every preset, fits()
// says yes exactly when encode() succeeds (the golden encodings are pinned by the ISA tests).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "common/error.h"
#include "hw/isa_layout.h"

namespace tauvta::hw {
namespace {

TEST(IsaFits, AgreesWithEncodeOnRandomInstructions) {
  std::mt19937_64 rng(11);
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TAUVTA_SOURCE_DIR) + "/configs")) {
    if (entry.path().extension() != ".json") continue;
    const HwConfig c = HwConfig::load(entry.path());
    const IsaLayout layout(c);
    // A value near a power of two: exactly at, just below or just above the limit of some width.
    auto value = [&](int max_bits) -> uint64_t {
      const int bits = std::uniform_int_distribution<int>(0, max_bits)(rng);
      const uint64_t base = bits == 0 ? 0 : (uint64_t(1) << (bits - 1));
      return base + std::uniform_int_distribution<int>(-1, 1)(rng);
    };
    int fit = 0, not_fit = 0;
    for (int i = 0; i < 20000; ++i) {
      Insn insn;
      insn.opcode = Opcode(std::uniform_int_distribution<int>(0, 4)(rng));
      insn.pop_prev = rng() & 1;
      insn.push_next = rng() & 1;
      insn.memory_type = uint8_t(value(3));
      insn.sram_base = uint32_t(value(20));
      insn.dram_base = uint32_t(value(32));
      insn.y_size = uint32_t(value(17));
      insn.x_size = uint32_t(value(17));
      insn.x_stride = uint32_t(value(17));
      insn.y_pad_0 = uint8_t(value(5));
      insn.x_pad_1 = uint8_t(value(5));
      insn.reset = rng() & 1;
      insn.uop_bgn = uint32_t(value(15));
      insn.uop_end = uint32_t(value(16));
      insn.iter_out = uint32_t(value(15));
      insn.iter_in = uint32_t(value(15));
      insn.dst_factor_out = uint32_t(value(13));
      insn.src_factor_in = uint32_t(value(13));
      insn.wgt_factor_out = uint32_t(value(11));
      insn.alu_opcode = uint8_t(value(3));
      insn.use_imm = rng() & 1;
      insn.imm = int32_t(std::uniform_int_distribution<int>(-40000, 40000)(rng));
      bool encodes = true;
      try {
        (void)layout.encode(insn);
      } catch (const Error&) {
        encodes = false;
      }
      ASSERT_EQ(layout.fits(insn), encodes) << entry.path() << " insn " << i;
      (encodes ? fit : not_fit)++;
    }
    EXPECT_GT(fit, 100) << entry.path();
    EXPECT_GT(not_fit, 100) << entry.path();
  }
}

}  // namespace
}  // namespace tauvta::hw
