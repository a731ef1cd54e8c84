// yosys synthesizes the whole generated accelerator (tauvta_accelerator: fetch, load, compute,
// store, the queues, the AXI masters and the control slave around the datapath) for a small
// config on both families, and the resource model's totals for it are within 15% of yosys's LUTs
// and flip-flops with DSPs and block RAMs exact. The model's totals are every generated part's
// (the interconnect to the processing system is Xilinx IP, not generated, so not compared).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "fpga/resource_model.h"
#include "fpga/yosys_run.h"
#include "rtl/rtl_generator.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;

class WholeDesignSynthesis : public ::testing::TestWithParam<rtl::Family> {};

TEST_P(WholeDesignSynthesis, ModelTotalsMatchYosys) {
  const rtl::Family family = GetParam();
  // 16 int8 products, small buffers: the accelerator around the datapath is most of it.
  hw::HwConfig c;
  c.log_block_in = 2;
  c.log_block_out = 2;
  c.log_uop_buff_size = 10;
  c.log_inp_buff_size = 11;
  c.log_wgt_buff_size = 12;
  c.log_acc_buff_size = 12;
  rtl::RtlOptions o = rtl::options_of(c, 0);
  o.binding = rtl::ProductBinding::kAuto;  // yosys's own rule: int8 products in DSP slices
  const fs::path dir =
      fs::path(TAUVTA_BINARY_DIR) / (std::string("yosys_whole_") + rtl::family_name(family));
  fs::remove_all(dir);
  const rtl::RtlDesign d = rtl::generate_rtl(c, o);
  rtl::write_rtl(d, rtl::design_json(c, o, d.shape), dir, true);
  std::string files;
  for (const rtl::RtlFile& f : d.files) files += f.name + " ";
  const test::SynthesisResult y = test::synthesize(dir, files, "tauvta_accelerator", family);
  ASSERT_TRUE(y.ok) << "yosys failed (scripts/setup installs it); log: " << y.log;

  const fpga::Device& device =
      fpga::find_device(family == rtl::Family::kXc7 ? "pynq-z1" : "ultra96");
  const fpga::ResourceEstimate e = fpga::estimate_resources(c, o, device);
  fpga::Resources model;
  for (int p = 0; p < fpga::kNumParts; ++p) {
    if (fpga::Part(p) != fpga::Part::kPlatform) model += e.parts[size_t(p)];
  }
  EXPECT_NEAR(model.lut, y.resources.lut, 0.15 * y.resources.lut) << "LUT";
  EXPECT_NEAR(model.ff, y.resources.ff, 0.15 * y.resources.ff) << "FF";
  EXPECT_DOUBLE_EQ(model.dsp, y.resources.dsp);
  EXPECT_DOUBLE_EQ(model.bram36, y.resources.bram36);
  RecordProperty("yosys", fmt::format("LUT {} FF {} DSP {} BRAM36 {}", y.resources.lut,
                                      y.resources.ff, y.resources.dsp, y.resources.bram36));
  RecordProperty("model", fmt::format("LUT {:.0f} FF {:.0f} DSP {} BRAM36 {}", model.lut, model.ff,
                                      model.dsp, model.bram36));
}

INSTANTIATE_TEST_SUITE_P(Yosys, WholeDesignSynthesis,
                         ::testing::Values(rtl::Family::kXc7, rtl::Family::kXcup),
                         [](const auto& p) { return std::string(rtl::family_name(p.param)); });

}  // namespace
}  // namespace tauvta
