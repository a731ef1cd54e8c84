// yosys itself (Debian's yosys, installed by scripts/setup) on freshly generated RTL: the model's
// exact rules (one DSP per int8 product, the block-RAM mapping) and its flip-flop form must hold
// for what synth_xilinx makes of the generator's current output, not only for the committed
// calibration grid.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fpga/bram_mapping.h"
#include "fpga/resource_model.h"
#include "fpga/yosys_run.h"
#include "rtl/rtl_generator.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

TEST(YosysSynthesis, GeneratedGemmCoreMatchesTheModelsRules) {
  hw::HwConfig c;
  c.log_block_in = 2;
  c.log_block_out = 2;  // 16 int8 products
  c.log_inp_buff_size = 12;
  c.log_wgt_buff_size = 13;
  c.log_acc_buff_size = 13;
  const rtl::RtlOptions o;
  const fs::path dir = fs::path(TAUVTA_BINARY_DIR) / "yosys_test";
  fs::remove_all(dir);
  const rtl::RtlDesign d = rtl::generate_rtl(c, o);
  rtl::write_rtl(d, rtl::design_json(c, o, d.shape), dir, true);
  const auto cells =
      test::synthesize(dir, "tauvta_gemm_core.v", "tauvta_gemm_core", rtl::Family::kXc7).cells;
  const fpga::Resources model = fpga::fitted_module(
      fpga::Family::kXc7, fpga::FitModule::kGemm,
      rtl::netlist_features(rtl::NetlistModule::kGemm, c, d.shape, fpga::Family::kXc7));
  EXPECT_EQ(cells.count("DSP48E1") ? cells.at("DSP48E1") : 0, 16);
  EXPECT_DOUBLE_EQ(model.dsp, 16);
  int ff = 0;
  for (const char* k : {"FDRE", "FDSE", "FDCE", "FDPE"}) ff += cells.count(k) ? cells.at(k) : 0;
  EXPECT_NEAR(model.ff, ff, 0.1 * ff) << "model " << model.ff << " FF, yosys " << ff;
}

TEST(YosysSynthesis, BufferMapsAsTheModelSays) {
  const fs::path dir = fs::path(TAUVTA_BINARY_DIR) / "yosys_test_sram";
  fs::remove_all(dir);
  const rtl::RtlDesign d = rtl::generate_rtl(hw::HwConfig{}, {});
  rtl::write_rtl(d, rtl::design_json(hw::HwConfig{}, {}, d.shape), dir, true);
  // The stock input buffer: 128 bits x 2048 words.
  const auto cells = test::synthesize(dir, "tauvta_sram.v", "tauvta_sram", rtl::Family::kXc7,
                                      "chparam -set W 128 -set A 11 tauvta_sram;")
                         .cells;
  const double bram = (cells.count("RAMB36E1") ? cells.at("RAMB36E1") : 0) +
                      0.5 * (cells.count("RAMB18E1") ? cells.at("RAMB18E1") : 0);
  EXPECT_DOUBLE_EQ(fpga::map_memory(fpga::Family::kXc7, 128, 11).resources.bram36, bram);
  EXPECT_GT(bram, 0);
}

}  // namespace
}  // namespace tauvta
