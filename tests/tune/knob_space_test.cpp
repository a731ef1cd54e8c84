// The knob space against lower::schedule_space (the compiler's own enumeration), neighbours,
// AutoTVM config indices, and feature vectors of the right size and meaning.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "common/error.h"
#include "tune/features.h"
#include "tune_test_util.h"

namespace tauvta::tune {
namespace {

using testing::preset;

TEST(KnobSpace, HoldsExactlyTheLegalSchedulesOfTheCompiler) {
  for (const char* cfg : {"pynq", "pynq_b4_blk8", "pynq_w4a4"}) {
    const hw::HwConfig c = preset(cfg);
    for (const char* spec : {"conv2d,ci=64,h=56,w=56,co=64,k=3,s=1,p=1", "conv2d,ci=128,h=28,w=28,co=256,k=1,s=2,p=0",
                             "dense,ci=512,co=1000,n=4", "group_conv2d,ci=64,h=28,w=28,co=64,k=3,p=1,g=64"}) {
      const lower::ConvWorkload w = parse_workload_spec(spec);
      for (lower::LayerNeeds needs : {lower::LayerNeeds{0, false}, lower::LayerNeeds{2, false}}) {
        const KnobSpace space(c, w, needs);
        const std::vector<lower::Schedule> want = lower::schedule_space(c, w, needs);
        ASSERT_EQ(space.size(), want.size()) << cfg << " " << spec;
        std::set<lower::Schedule> have;
        for (size_t p = 0; p < space.size(); ++p) {
          have.insert(space.schedule(p));
          EXPECT_EQ(space.find(space.schedule(p)), p);
        }
        EXPECT_EQ(have, std::set<lower::Schedule>(want.begin(), want.end())) << cfg << " " << spec;
      }
    }
  }
}

TEST(KnobSpace, NeighboursDifferInOneKnobAndIndicesAreMixedRadix) {
  const hw::HwConfig c = preset("pynq");
  const KnobSpace space(c, testing::reference_layer(), {});
  std::mt19937_64 rng(3);
  for (size_t p = 0; p < space.size(); p += 7) {
    const std::optional<size_t> q = space.random_neighbor(p, rng);
    ASSERT_TRUE(q.has_value());
    const std::vector<uint32_t> a = space.coords(p), b = space.coords(*q);
    int differ = 0;
    for (size_t k = 0; k < a.size(); ++k) differ += a[k] != b[k];
    EXPECT_EQ(differ, 1);
    uint64_t index = 0, radix = 1;
    for (size_t k = 0; k < a.size(); ++k) {
      index += a[k] * radix;
      radix *= space.knobs()[k].values.size();
    }
    EXPECT_EQ(space.config_index(p), index);
  }
  EXPECT_EQ(space.knobs().size(), 7u);
  EXPECT_EQ(space.knobs()[0].name, "tile_b");
  EXPECT_EQ(space.knobs()[6].name, "h_nthread");
}

TEST(KnobSpace, SchedulesThatDoNotFitAreNotFound) {
  const hw::HwConfig c = preset("pynq");
  const lower::ConvWorkload w = testing::reference_layer();
  const KnobSpace space(c, w, {});
  // The whole layer in one tile cannot fit the SRAMs.
  EXPECT_FALSE(space.find(lower::Schedule::parse("tile_h=1x12,tile_w=1x12,tile_ci=1x16,tile_co=1x16")).has_value());
  // Not a factor split.
  EXPECT_FALSE(space.find(lower::Schedule::parse("tile_h=2x5,tile_w=1x12,tile_ci=16x1,tile_co=16x1")).has_value());
}

TEST(Features, OneValuePerNameFiniteAndTracking) {
  const hw::HwConfig c = preset("pynq");
  const lower::ConvWorkload w = testing::reference_layer();
  const KnobSpace space(c, w, {});
  const std::vector<float> f = space_features(c, w, space);
  ASSERT_EQ(f.size(), space.size() * num_features());
  EXPECT_EQ(std::set<std::string>(feature_names().begin(), feature_names().end()).size(), num_features());
  for (float v : f) ASSERT_TRUE(std::isfinite(v));
  const size_t tile_h = size_t(std::find(feature_names().begin(), feature_names().end(), "tile_h") - feature_names().begin());
  for (size_t p = 0; p < space.size(); ++p) {
    EXPECT_EQ(f[p * num_features() + tile_h], float(space.schedule(p).tile_h.inner));
  }
}

TEST(WorkloadSpec, ParsesAndRejectsWithTheKey) {
  const lower::ConvWorkload w = parse_workload_spec("conv2d,n=1,ci=64,h=56,w=56,co=128,k=3,s=2,p=1");
  EXPECT_EQ(w.in_channels, 64);
  EXPECT_EQ(w.stride_h, 2);
  EXPECT_EQ(w.pad_right, 1);
  EXPECT_EQ(w.out_height(), 28);
  const lower::ConvWorkload d = parse_workload_spec("dense,ci=512,co=1000");
  EXPECT_EQ(d.kind, lower::OpKind::kDense);
  for (const auto& [spec, msg] : std::vector<std::pair<std::string, std::string>>{
           {"conv2d,ci=64,x=3", "unknown key 'x'"},
           {"conv2d,ci=sixty", "ci=sixty is not an integer"},
           {"ci=64", "expected OP,key=value"},
           {"pool,ci=64", "pool"},
           {"conv2d,ci=64,co", "'co' is not key=value"},
           // The work's sizes are never filled in silently.
           {"conv2d,ci=64,co=64", "h is missing (a conv2d needs ci, h, w, co and k)"},
           {"conv2d,ci=64,h=14,w=14,co=64", "k is missing"},
           {"dense,ci=512", "co is missing (a dense needs ci and co)"}}) {
    try {
      parse_workload_spec(spec);
      ADD_FAILURE() << spec << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << spec << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace tauvta::tune
