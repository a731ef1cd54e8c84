// Bias lanes (lower/bias_lanes.h): every value written as constants x weights within the
// config's input and weight widths, summing back exactly; values the lanes cannot carry refused.
#include <random>

#include <gtest/gtest.h>

#include "hw/hw_config.h"
#include "lower/bias_lanes.h"

namespace {

using namespace tauvta;

hw::HwConfig preset(const std::string& name) {
  return hw::HwConfig::load(std::string(TAUVTA_SOURCE_DIR) + "/configs/" + name + ".json");
}

void expect_carries(const hw::HwConfig& c, const std::vector<int64_t>& values, const lower::BiasLanes& b) {
  const int64_t lanes = int64_t(b.constants.size());
  const int64_t imin = -(int64_t(1) << (c.inp_width() - 1)), imax = -imin - 1;
  const int64_t wmin = -(int64_t(1) << (c.wgt_width() - 1)), wmax = -wmin - 1;
  for (int64_t k : b.constants) {
    EXPECT_GE(k, imin);
    EXPECT_LE(k, imax);
  }
  ASSERT_EQ(b.weights.size(), values.size() * size_t(lanes));
  for (size_t ch = 0; ch < values.size(); ++ch) {
    int64_t sum = 0;
    for (int64_t j = 0; j < lanes; ++j) {
      const int64_t w = b.weights[ch * size_t(lanes) + size_t(j)];
      EXPECT_GE(w, wmin);
      EXPECT_LE(w, wmax);
      sum += w * b.constants[size_t(j)];
    }
    EXPECT_EQ(sum, values[ch]) << "channel " << ch;
  }
}

TEST(BiasLanes, EveryValueWithinReachSumsBackExactly) {
  std::mt19937 rng(7);
  for (const char* name : {"pynq", "pynq_w4a4", "pynq_w2a2", "pynq_w1a1"}) {
    SCOPED_TRACE(name);
    const hw::HwConfig c = preset(name);
    const int64_t k = int64_t(1) << (c.inp_width() - 1), wmax = (int64_t(1) << (c.wgt_width() - 1)) - 1;
    for (int64_t lanes = 1; lanes <= 15; ++lanes) {
      // Comfortably inside what `lanes` lanes reach: |v| <= (lanes - 1) * k * wmax (plus lane 0).
      const int64_t reach = std::max<int64_t>((lanes - 1) * k * wmax, 0);
      std::uniform_int_distribution<int64_t> d(-reach, reach);
      std::vector<int64_t> values(40);
      for (int64_t& v : values) v = d(rng);
      const std::optional<lower::BiasLanes> b = lower::bias_lanes(c, values, lanes);
      ASSERT_TRUE(b.has_value()) << lanes << " lanes";
      expect_carries(c, values, *b);
    }
  }
}

TEST(BiasLanes, TooLargeValuesRefused) {
  const hw::HwConfig c = preset("pynq");
  // 5 and -7 fit lane 0 alone (-1 x -5, -1 x 7); 1000 = -128 x -8 + -1 x 24 takes two lanes.
  std::optional<lower::BiasLanes> b = lower::bias_lanes(c, {5, -7, 0}, 1);
  ASSERT_TRUE(b.has_value());
  expect_carries(c, {5, -7, 0}, *b);
  EXPECT_FALSE(lower::bias_lanes(c, {1000, -3}, 1).has_value());
  b = lower::bias_lanes(c, {1000, -3}, 2);
  ASSERT_TRUE(b.has_value());
  expect_carries(c, {1000, -3}, *b);
  // 12 lanes of -128 x [-128, 127] plus lane 0 cannot reach 2^20.
  EXPECT_FALSE(lower::bias_lanes(c, {int64_t(1) << 20}, 13).has_value());
  EXPECT_FALSE(lower::bias_lanes(c, {5}, 0).has_value());  // no lane
}

}  // namespace
