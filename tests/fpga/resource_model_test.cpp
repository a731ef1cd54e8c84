// The resource and clock model: every preset on every device, the clocks VTA's own boards run,
// the verdicts and their reasons, and the structural rules (DSP per product, BRAM per buffer).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>

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
      EXPECT_GT(e.total.lut, 5000) << "fetch, load, store and the interconnect alone are several thousand LUTs";
      EXPECT_GT(e.clock.fmax_mhz, 20);
      EXPECT_LT(e.clock.fmax_mhz, 1000);
      EXPECT_FALSE(fpga::verdict_text(e, d).empty());
    }
  }
}

// tvm-vta's config/pkg_config.py: Pynq-Z1 at 100 MHz, Ultra96 and ZCU104 at 333 MHz. The presets
// and VTA's named configs, with nothing changed, are priced as VTA builds them (no ALU multiplier,
// products bound as HLS binds them, a DSP allocation that fits the board) and fit their boards at
// those clocks.
TEST(FpgaModel, VtaStockDesignsFitTheirBoardsAtTheirClocksByDefault) {
  const std::pair<hw::HwConfig, const char*> cases[] = {
      {preset("pynq"), "pynq-z1"},
      {preset("ultra96"), "ultra96"},
      {preset("zcu104"), "zcu104"},
      {hw::HwConfig::from_name("1x16_i8w8a32_15_15_18_17"), "pynq-z1"},
      {hw::HwConfig::from_name("1x16_i4w4a32_15_14_17_17"), "pynq-z1"},
      {hw::HwConfig::from_name("1x16_i4w4a32_15_14_17_17"), "ultra96"},
  };
  for (const auto& [config, device] : cases) {
    hw::HwConfig c = config;
    const fpga::Device& d = fpga::find_device(device);
    c.timing.clock_mhz = d.target_mhz;
    const fpga::ResourceEstimate e = fpga::estimate_resources(c, d);
    EXPECT_TRUE(e.feasible()) << c.name() << " on " << device << ": " << fpga::verdict_text(e, d);
    EXPECT_LE(e.total.dsp, d.total.dsp) << c.name() << " on " << device;
  }
  // The preset files carry their boards' clocks.
  EXPECT_EQ(preset("ultra96").timing.clock_mhz, 333);
  EXPECT_EQ(preset("zcu104").timing.clock_mhz, 333);
}

// HLS binds VTA's 4-bit products to DSP slices (the published Ultra96 build of the i4w4 config used
// 268 of them); yosys's rule would not.
TEST(FpgaModel, NarrowProductsAreBoundAsHlsBindsThem) {
  const hw::HwConfig c = hw::HwConfig::from_name("1x16_i4w4a32_15_14_17_17");
  const fpga::Device& d = fpga::find_device("ultra96");
  const fpga::ResourceEstimate e = fpga::estimate_resources(c, d);
  EXPECT_EQ(e.dsp_products, 256);
  EXPECT_GE(e.total.dsp, 256);
  hw::HwConfig w2 = preset("pynq_w2a2");
  EXPECT_EQ(fpga::estimate_resources(w2, d).dsp_products, 0);  // 2x2 products: LUTs
}

// The verdict names every resource over the device and the missed clock at once; its advice is a
// DSP limit that brings the DSPs within the device, and following it removes that failure.
TEST(FpgaModel, TheVerdictListsEveryFailureAndItsAdviceChangesTheOutcome) {
  hw::HwConfig c = preset("pynq_w16");
  hw::Implementation impl = c.impl;
  impl.dsp_limit = 0;  // every product in DSP slices: far over the Pynq-Z1's
  impl.binding = hw::ProductBinding::kDsp;
  c = c.with_implementation(impl);
  c.timing.clock_mhz = 250;
  const fpga::Device& d = fpga::find_device("pynq-z1");
  const fpga::ResourceEstimate e = fpga::estimate_resources(c, d);
  ASSERT_EQ(e.verdict, fpga::Verdict::kOverResource);
  const std::string v = fpga::verdict_text(e, d);
  int named = 0;
  for (int k = 0; k < fpga::kNumResourceKinds; ++k) {
    if (!e.over_resource(fpga::ResourceKind(k))) continue;
    ++named;
    EXPECT_NE(v.find(fpga::resource_name(fpga::ResourceKind(k)) + std::string(" ")), std::string::npos) << v;
  }
  EXPECT_GE(named, 1);
  EXPECT_TRUE(e.misses_clock) << v;
  EXPECT_NE(v.find("below its 250 MHz clock"), std::string::npos) << v;
  const size_t at = v.find("--dsp-limit ");
  ASSERT_NE(at, std::string::npos) << v;
  impl.dsp_limit = std::stoi(v.substr(at + 12));
  const fpga::ResourceEstimate after = fpga::estimate_resources(c.with_implementation(impl), d);
  EXPECT_FALSE(after.over_resource(fpga::ResourceKind::kDsp)) << fpga::verdict_text(after, d);
}

TEST(FpgaModel, AnUnpipelinedWideTreeMissesTheUltraScaleClockAndSaysWhere) {
  hw::HwConfig c = preset("zcu104");
  c.impl.alu_mul = false;
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
