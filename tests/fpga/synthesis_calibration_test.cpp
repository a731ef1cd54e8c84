// The model against the synthesis it was calibrated on (tools/synth/data/grid_<family>.csv, made
// by yosys synth_xilinx): the block-RAM mapping reproduces yosys's choice for every synthesized
// buffer exactly, DSPs are exact, and the fitted closed forms stay within 10% (median over
// resources and held-out points) of yosys on points not used for fitting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fpga/bram_mapping.h"
#include "fpga/resource_model.h"
#include "hw/hw_config.h"

namespace tauvta {
namespace {

namespace fs = std::filesystem;
using Row = std::map<std::string, std::string>;

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<Row> read_grid(const std::string& family) {
  std::ifstream f(fs::path(TAUVTA_SOURCE_DIR) / "tools/synth/data" / ("grid_" + family + ".csv"));
  std::vector<Row> rows;
  std::vector<std::string> header;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto fields = split(line);
    if (header.empty()) {
      header = fields;
      continue;
    }
    Row r;
    for (size_t i = 0; i < header.size() && i < fields.size(); ++i) r[header[i]] = fields[i];
    rows.push_back(r);
  }
  return rows;
}

double num(const Row& r, const std::string& k) { return std::stod(r.at(k)); }

class Calibration : public ::testing::TestWithParam<std::string> {};

TEST_P(Calibration, BlockRamMappingIsYosyssExactly) {
  const fpga::Family family = GetParam() == "xc7" ? fpga::Family::kXc7 : fpga::Family::kXcup;
  int n = 0;
  for (const Row& r : read_grid(GetParam())) {
    if (r.at("module") != "sram") continue;
    ++n;
    const int w = int(num(r, "sram_width")), d = int(num(r, "sram_log_depth"));
    const fpga::MemoryMapping m = fpga::map_memory(family, w, d);
    const double bram = num(r, "BRAM36") + 0.5 * num(r, "BRAM18");
    EXPECT_DOUBLE_EQ(m.resources.bram36, bram) << w << " bits x 2^" << d;
    EXPECT_DOUBLE_EQ(m.resources.uram, num(r, "URAM")) << w << " bits x 2^" << d;
    EXPECT_NEAR(m.resources.lut, num(r, "LUT"), 0.05 * num(r, "LUT") + 2) << w << " bits x 2^" << d;
  }
  EXPECT_GE(n, 60);
}

int log2i(double v) {
  int l = 0;
  while ((1 << l) < int(v)) ++l;
  return l;
}

// The shape the synthesized point was generated with, rebuilt from its parameters, so the C++
// netlist features (not the fit script's) meet the synthesis.
rtl::DatapathShape shape_of_row(const Row& r) {
  hw::HwConfig c;
  rtl::RtlOptions o;
  c.log_acc_width = log2i(num(r, "acc_width"));
  if (r.at("module") == "gemm") {
    c.log_batch = log2i(num(r, "batch"));
    c.log_block_in = log2i(num(r, "block_in"));
    c.log_block_out = log2i(num(r, "block_out"));
    c.log_inp_width = log2i(num(r, "inp_width"));
    c.log_wgt_width = log2i(num(r, "wgt_width"));
    o.binding = rtl::parse_binding(r.at("binding"), "row");
    o.tree_levels_per_stage = int(num(r, "tree_levels"));
  } else {
    c.log_batch = 0;
    c.log_block_out = log2i(num(r, "alu_vector"));
    c.impl.alu_lanes = int(num(r, "alu_lanes_cfg"));
    c.impl.alu_mul = r.at("alu_mul") == "1";
  }
  return rtl::shape_of(c, o);
}

// The closed forms on the held-out points: median relative error over resources and points within
// 10%, and DSP counts exact.
TEST_P(Calibration, ClosedFormsMatchYosysOnHeldOutPoints) {
  const fpga::Family family = GetParam() == "xc7" ? fpga::Family::kXc7 : fpga::Family::kXcup;
  std::vector<double> errors;
  int points = 0;
  for (const Row& r : read_grid(GetParam())) {
    const std::string& m = r.at("module");
    if (r.at("split") != "holdout" || (m != "gemm" && m != "alu")) continue;
    ++points;
    const rtl::DatapathShape shape = shape_of_row(r);
    const fpga::Resources got =
        m == "gemm" ? fpga::fitted_module(family, fpga::FitModule::kGemm,
                                          fpga::gemm_netlist_features(shape, family))
                    : fpga::fitted_module(family, fpga::FitModule::kAlu,
                                          fpga::alu_netlist_features(shape));
    const double want_lut = num(r, "LUT"), want_ff = num(r, "FF");
    errors.push_back(std::fabs(got.lut - want_lut) / std::max(1.0, want_lut));
    errors.push_back(std::fabs(got.ff - want_ff) / std::max(1.0, want_ff));
    EXPECT_NEAR(got.dsp, num(r, "DSP"), 0.01) << r.at("id");
  }
  ASSERT_GE(points, 30);
  std::sort(errors.begin(), errors.end());
  const double median = errors[errors.size() / 2];
  EXPECT_LE(median, 0.10) << "median relative error over " << errors.size() << " values";
  RecordProperty("median_relative_error", std::to_string(median));
}

INSTANTIATE_TEST_SUITE_P(Fpga, Calibration, ::testing::Values("xc7", "xcup"));

}  // namespace
}  // namespace tauvta
