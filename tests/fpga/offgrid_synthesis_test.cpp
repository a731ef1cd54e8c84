// The closed forms off the calibration grid: configs drawn at random (a fixed seed; shapes and
// width pairs the grid never had, VTA's tree pipelining) have their GEMM core and tensor ALU
// synthesized by yosys for both families, and the model is within 15% of yosys's LUTs and
// flip-flops with DSPs exact (issue 34). The full random set (10 configs, their buffers too) is
// tools/synth/data's "random" split, checked in synthesis_calibration_test.cpp; this is the part
// of it that runs in a few seconds.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "fpga/resource_model.h"
#include "fpga/yosys_run.h"
#include "rtl/rtl_generator.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

// A random small config: up to 32 products, elements of whole bytes.
hw::HwConfig random_config(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (;;) {
    hw::HwConfig c;
    c.log_batch = pick(0, 1);
    c.log_block_in = pick(1, 3);
    c.log_block_out = pick(1, 3);
    c.log_inp_width = pick(0, 3);
    c.log_wgt_width = pick(0, 3);
    c.log_acc_width = pick(4, 5);
    c.impl.alu_mul = pick(0, 2) == 0;
    const int products = c.batch() * c.block_in() * c.block_out();
    const bool whole_bytes = c.batch() * c.block_in() * c.inp_width() >= 8 &&
                             c.block_out() * c.block_in() * c.wgt_width() >= 8 &&
                             c.batch() * c.block_out() * c.inp_width() >= 8;
    if (products <= 32 && products >= 8 && whole_bytes) return c;
  }
}

struct Case {
  rtl::Family family;
  int draw;  // which draw of the seeded sequence
};

class OffGridSynthesis : public ::testing::TestWithParam<Case> {};

TEST_P(OffGridSynthesis, GemmAndAluWithinFifteenPercent) {
  const Case k = GetParam();
  std::mt19937 rng(34);
  hw::HwConfig c;
  for (int i = 0; i <= k.draw; ++i) c = random_config(rng);
  c.log_uop_buff_size = 10;
  c.log_inp_buff_size = 12;
  c.log_wgt_buff_size = 12;
  c.log_acc_buff_size = 12;
  rtl::RtlOptions o = rtl::options_of(c, 0);
  o.binding = rtl::ProductBinding::kAuto;
  const rtl::DatapathShape s = rtl::shape_of(c, o);
  const fs::path dir = fs::path(TAUVTA_BINARY_DIR) /
                       fmt::format("yosys_offgrid_{}_{}", rtl::family_name(k.family), k.draw);
  fs::remove_all(dir);
  const rtl::RtlDesign d = rtl::generate_rtl(c, o);
  rtl::write_rtl(d, rtl::design_json(c, o, d.shape), dir, true);
  for (const auto& [module, file, top] :
       {std::tuple{rtl::NetlistModule::kGemm, "tauvta_gemm_core.v", "tauvta_gemm_core"},
        std::tuple{rtl::NetlistModule::kAlu, "tauvta_alu.v", "tauvta_alu"}}) {
    // yosys ignores use_dsp = "no": LUT-bound products are synthesized without DSP mapping.
    const bool nodsp = module == rtl::NetlistModule::kGemm && !s.products_in_dsp;
    const test::SynthesisResult y = test::synthesize(dir, file, top, k.family, "", nodsp);
    ASSERT_TRUE(y.ok) << "yosys failed; log: " << y.log;
    const fpga::Resources m =
        fpga::fitted_module(k.family, module, rtl::netlist_features(module, c, s, k.family));
    const std::string what = fmt::format("{} of {} on {}", top, c.name(), rtl::family_name(k.family));
    EXPECT_NEAR(m.lut, y.resources.lut, 0.15 * y.resources.lut) << "LUT, " << what;
    EXPECT_NEAR(m.ff, y.resources.ff, 0.15 * y.resources.ff) << "FF, " << what;
    EXPECT_DOUBLE_EQ(m.dsp, y.resources.dsp) << "DSP, " << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Yosys, OffGridSynthesis,
                         ::testing::Values(Case{rtl::Family::kXc7, 0}, Case{rtl::Family::kXcup, 1}),
                         [](const auto& p) {
                           return fmt::format("{}_{}", rtl::family_name(p.param.family),
                                              p.param.draw);
                         });

}  // namespace
}  // namespace tauvta
