// The resource and clock model: every preset on every device, the clocks VTA's own boards run,
// the verdicts and their reasons, and the structural rules (DSP per product, BRAM per buffer).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "common/error.h"
#include "fpga/bram_mapping.h"
#include "fpga/resource_model.h"
#include "hw/hw_config.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

hw::HwConfig preset(const std::string& name) {
  return hw::HwConfig::load(fs::path(TAUVTA_SOURCE_DIR) / "configs" / (name + ".json"));
}

TEST(FpgaModel, EveryPresetOnEveryDeviceGivesFiniteFigures) {
  for (const auto& entry : fs::directory_iterator(fs::path(TAUVTA_SOURCE_DIR) / "configs")) {
    const hw::HwConfig c = hw::HwConfig::load(entry.path());
    for (const fpga::Device& d : fpga::devices()) {
      const fpga::ResourceEstimate e = fpga::estimate_resources(c, {}, d);
      for (int k = 0; k < fpga::kNumResourceKinds; ++k) {
        const double v = fpga::get(e.total, fpga::ResourceKind(k));
        EXPECT_TRUE(std::isfinite(v) && v >= 0) << entry.path() << " on " << d.name;
      }
      EXPECT_GT(e.total.lut, 5000) << "infrastructure alone is several thousand LUTs";
      EXPECT_GT(e.clock.fmax_mhz, 20);
      EXPECT_LT(e.clock.fmax_mhz, 1000);
      EXPECT_FALSE(fpga::verdict_text(e, d).empty());
    }
  }
}

// tvm-vta's config/pkg_config.py: Pynq-Z1 at 100 MHz, Ultra96 and ZCU104 at 333 MHz. VTA's HLS
// design has no ALU multiplier, so the check is on the stock datapath without it. On the Pynq-Z1
// its 256 int8 products outnumber the 220 DSP slices: the products beyond what the slices hold
// (less the 8 of the infrastructure) are built in LUTs.
TEST(FpgaModel, VtaStockDesignsCloseTheirBoardsClocks) {
  for (const char* name : {"pynq", "ultra96", "zcu104"}) {
    hw::HwConfig c = preset(name);
    c.timing.alu_mul = false;
    const bool pynq = std::string(name) == "pynq";
    const fpga::Device& d = fpga::find_device(pynq ? "pynq-z1" : name);
    rtl::RtlOptions o;
    if (pynq) o.max_dsp_products = 212;
    const fpga::ResourceEstimate e = fpga::estimate_resources(c, o, d);
    EXPECT_GE(e.clock.fmax_mhz, d.target_mhz) << name << ": " << fpga::verdict_text(e, d);
    EXPECT_TRUE(e.feasible()) << name << ": " << fpga::verdict_text(e, d);
  }
}

TEST(FpgaModel, AnUnpipelinedWideTreeMissesTheUltraScaleClockAndSaysWhere) {
  hw::HwConfig c = preset("zcu104");
  c.timing.alu_mul = false;
  c.log_block_in = 6;
  c.log_block_out = 4;
  c.log_wgt_buff_size = 19;
  rtl::RtlOptions o;
  o.tree_levels_per_stage = 0;
  const fpga::Device& d = fpga::find_device("zcu104");
  const fpga::ResourceEstimate e = fpga::estimate_resources(c, o, d);
  EXPECT_EQ(e.verdict, fpga::Verdict::kMissesClock) << fpga::verdict_text(e, d);
  EXPECT_EQ(e.clock.critical, fpga::Stage::kAccumulate);
  EXPECT_NE(fpga::verdict_text(e, d).find("accumulate"), std::string::npos);
  // Pipelining the tree closes it.
  o.tree_levels_per_stage = 1;
  EXPECT_GE(fpga::estimate_resources(c, o, d).clock.fmax_mhz, 333);
}

TEST(FpgaModel, ABigDesignDoesNotFitThePynqAndNamesTheResource) {
  hw::HwConfig c = preset("pynq");
  c.log_block_in = 5;
  c.log_block_out = 5;  // 1024 int8 products: more than the 220 DSP slices
  c.log_wgt_buff_size = 20;
  const fpga::Device& d = fpga::find_device("pynq-z1");
  const fpga::ResourceEstimate e = fpga::estimate_resources(c, {}, d);
  EXPECT_EQ(e.verdict, fpga::Verdict::kOverResource);
  EXPECT_NE(fpga::verdict_text(e, d).find("does not fit"), std::string::npos);
  // The same design fits the ZCU104.
  EXPECT_NE(fpga::estimate_resources(c, {}, fpga::find_device("zcu104")).verdict,
            fpga::Verdict::kOverResource);
}

TEST(FpgaModel, ProductBindingMovesProductsBetweenDspAndLuts) {
  const hw::HwConfig c = preset("pynq_w4a4");  // 4x4 products: yosys builds them in LUTs
  const fpga::Device& d = fpga::find_device("ultra96");
  rtl::RtlOptions lut, dsp;
  lut.binding = rtl::ProductBinding::kAuto;
  dsp.binding = rtl::ProductBinding::kDsp;
  const auto a = fpga::estimate_resources(c, lut, d), b = fpga::estimate_resources(c, dsp, d);
  EXPECT_LT(a.parts[size_t(fpga::Part::kGemm)].dsp, 1);
  EXPECT_NEAR(b.parts[size_t(fpga::Part::kGemm)].dsp, 256, 8);
  EXPECT_GT(a.parts[size_t(fpga::Part::kGemm)].lut, b.parts[size_t(fpga::Part::kGemm)].lut);
}

TEST(FpgaModel, ADspLimitMovesTheRestOfTheProductsToLuts) {
  const hw::HwConfig c = preset("pynq");
  const fpga::Device& d = fpga::find_device("pynq-z1");
  rtl::RtlOptions limited;
  limited.max_dsp_products = 100;
  const auto all = fpga::estimate_resources(c, {}, d), part = fpga::estimate_resources(c, limited, d);
  EXPECT_DOUBLE_EQ(all.parts[size_t(fpga::Part::kGemm)].dsp, 256);
  EXPECT_DOUBLE_EQ(part.parts[size_t(fpga::Part::kGemm)].dsp, 100);
  EXPECT_GT(part.parts[size_t(fpga::Part::kGemm)].lut, all.parts[size_t(fpga::Part::kGemm)].lut + 100 * 64);
}

TEST(FpgaModel, TwoAccReadPortsDoubleTheAccumulatorBuffer) {
  const hw::HwConfig c = preset("pynq");
  const fpga::Device& d = fpga::find_device("pynq-z1");
  rtl::RtlOptions two;
  two.acc_read_ports = 2;
  const double one_port = fpga::estimate_resources(c, {}, d).parts[size_t(fpga::Part::kAcc)].bram36;
  EXPECT_GT(one_port, 0);
  EXPECT_DOUBLE_EQ(fpga::estimate_resources(c, two, d).parts[size_t(fpga::Part::kAcc)].bram36,
                   2 * one_port);
}

TEST(FpgaModel, UnknownDeviceNamesTheChoices) {
  try {
    fpga::find_device("vcu118");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pynq-z1, ultra96, zcu104"), std::string::npos);
  }
}

TEST(FpgaModel, MaxUtilizationTightensTheVerdict) {
  const hw::HwConfig c = preset("pynq");
  const fpga::Device& d = fpga::find_device("pynq-z1");
  const fpga::ResourceEstimate e = fpga::estimate_resources(c, {}, d);
  double worst = 0;
  for (double u : e.utilization) worst = std::max(worst, u);
  EXPECT_EQ(fpga::estimate_resources(c, {}, d, {worst * 0.99}).verdict, fpga::Verdict::kOverResource);
}

}  // namespace
}  // namespace tauvta
