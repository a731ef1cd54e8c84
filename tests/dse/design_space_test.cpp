// The design space: sizes, constraints checked during enumeration exactly as violation() checks a
// whole design, the default design, and the mapping of every knob to the timing and resource
// models (docs/dse.md's tables).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "dse/design_mapping.h"
#include "dse/design_space.h"
#include "fpga/device.h"
#include "lower/conv_plan.h"
#include "lower/program.h"
#include "rtl/datapath_shape.h"
#include "tune/task.h"

namespace tauvta::dse {
namespace {

DesignSpace space(int precision, const char* device = "pynq-z1") {
  SpaceOptions o;
  o.precision = precision;
  o.device = &fpga::find_device(device);
  return DesignSpace(o);
}

Design with(const DesignSpace& s, Design d, Knob k, int value) {
  const auto i = s.index_of(k, value);
  EXPECT_TRUE(i.has_value()) << knob_name(k) << "=" << value;
  d[size_t(k)] = *i;
  return d;
}

TEST(DseSpace, RawSizeIsTheProductOfTheKnobsValues) {
  const DesignSpace s = space(8);
  double n = 1;
  for (int k = 0; k < kNumKnobs; ++k) n *= double(s.values(Knob(k)).size());
  EXPECT_EQ(s.raw_size(), n);
  EXPECT_GT(s.raw_size(), 1e12);  // Table I's ranges times VTA's knobs
  EXPECT_THROW(space(3), Error);
}

TEST(DseSpace, EnumerationIsExactlyTheDesignsNoConstraintRejects) {
  const DesignSpace s = space(4);
  std::set<std::string> pruned;
  s.enumerate([&](const Design& d) {
    pruned.insert(s.key(d));
    return true;
  });
  ASSERT_GT(pruned.size(), 1000u);
  // Random raw designs, and designs one knob away from pruned ones (most raw designs violate
  // something): in the pruned set exactly when violation() finds nothing.
  std::mt19937_64 rng(7);
  const std::vector<Design> all = s.pruned();
  size_t accepted = 0, rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    Design d{};
    if (i % 2 == 0) {
      for (int k = 0; k < kNumKnobs; ++k) d[size_t(k)] = uint8_t(rng() % s.values(Knob(k)).size());
    } else {
      d = all[rng() % all.size()];
      const int k = int(rng() % kNumKnobs);
      d[size_t(k)] = uint8_t(rng() % s.values(Knob(k)).size());
    }
    const bool ok = !s.violation(d).has_value();
    EXPECT_EQ(ok, pruned.count(s.key(d)) == 1) << s.key(d) << ": " << s.violation(d).value_or("none");
    (ok ? accepted : rejected) += 1;
  }
  EXPECT_GT(accepted, 100u);
  EXPECT_GT(rejected, 100u);
}

TEST(DseSpace, DefaultDesignIsVtasPynqDesign) {
  const DesignSpace s = space(8);
  const Design d = s.default_design();
  EXPECT_FALSE(s.violation(d).has_value()) << *s.violation(d);
  const MappedDesign m = map_design(s, d, hw::HwConfig{});
  EXPECT_EQ(m.config.name(), "1x16_i8w8a32_15_15_18_17");
  EXPECT_EQ(m.config.timing.clock_mhz, 100);
  EXPECT_EQ(m.config.timing.alu_ii, 2);  // one ACC read port, as VTA's HLS
  EXPECT_GT(m.rtl.max_dsp_products, 0);  // 256 products on 220 DSPs: the limit is on
  // At every precision and on every device the default design is one the space keeps.
  for (const char* dev : {"pynq-z1", "ultra96", "zcu104"}) {
    for (int p : {1, 2, 4, 8}) {
      const DesignSpace t = space(p, dev);
      EXPECT_FALSE(t.violation(t.default_design()).has_value()) << dev << " W" << p << ": "
                                                                 << *t.violation(t.default_design());
    }
  }
}

TEST(DseMapping, ClockScalesTheMemoryLatencyInCycles) {
  const DesignSpace s = space(8);
  Design d = with(s, s.default_design(), Knob::kHlsMhz, 200);
  d = with(s, d, Knob::kImplMhz, 200);
  const MappedDesign m = map_design(s, d, hw::HwConfig{});
  EXPECT_EQ(m.config.timing.clock_mhz, 200);
  EXPECT_EQ(m.config.timing.dram_latency_cycles, 2 * hw::HwConfig{}.timing.dram_latency_cycles);
  EXPECT_EQ(m.config.timing.dram_bandwidth_gbps, hw::HwConfig{}.timing.dram_bandwidth_gbps);  // GB/s
}

TEST(DseMapping, AluIssueIntervalIsTheGeneratedRtls) {
  // passes x ALU_II in the timing model equals the RTL's cycles between ALU micro-ops for every
  // lane count and port count the space has.
  const DesignSpace s = space(8);
  for (int lanes : s.values(Knob::kAluLanes)) {
    for (int ports : s.values(Knob::kAccPorts)) {
      Design d = with(s, s.default_design(), Knob::kAluLanes, lanes);
      d = with(s, d, Knob::kAccPorts, ports);
      const MappedDesign m = map_design(s, d, hw::HwConfig{});
      const rtl::DatapathShape sh = rtl::shape_of(m.config, m.rtl);
      EXPECT_EQ(uint64_t(sh.alu_passes) * m.config.timing.alu_ii, uint64_t(sh.alu_issue_cycles))
          << "lanes " << lanes << " ports " << ports;
      EXPECT_EQ(m.config.timing.gemm_pipeline_depth, sh.gemm_latency);
    }
  }
  // Not pipelined: each micro-op through the whole datapath first.
  const MappedDesign off = map_design(s, with(s, s.default_design(), Knob::kPipeline, 0), hw::HwConfig{});
  EXPECT_EQ(off.rtl.tree_levels_per_stage, 0);
  EXPECT_EQ(off.config.timing.gemm_ii, rtl::shape_of(off.config, off.rtl).gemm_latency);
}

TEST(DseMapping, HlsClockSetsThePipeliningAndTimingKeyIgnoresResourceOnlyKnobs) {
  const DesignSpace s = space(8);
  const hw::HwConfig board;
  Design slow = s.default_design(), fast = s.default_design();
  fast = with(s, fast, Knob::kHlsMhz, 300);
  fast = with(s, fast, Knob::kImplMhz, 300);
  const MappedDesign ms = map_design(s, slow, board), mf = map_design(s, fast, board);
  // A faster target needs more registers in the tree, never fewer.
  const auto regs = [](const MappedDesign& m) { return rtl::shape_of(m.config, m.rtl).tree_registers; };
  EXPECT_GE(regs(mf), regs(ms));
  EXPECT_NE(timing_key(ms.config), timing_key(mf.config));
  const MappedDesign lut = map_design(s, with(s, slow, Knob::kBinding, 2), board);
  EXPECT_EQ(timing_key(ms.config), timing_key(lut.config));
  EXPECT_NE(design_resources(ms, s.device()).total.dsp, design_resources(lut, s.device()).total.dsp);
}

TEST(DseMapping, DataflowOffSerializesTheModules) {
  const DesignSpace s = space(8);
  const hw::HwConfig board;
  const MappedDesign on = map_design(s, s.default_design(), board);
  MappedDesign off = on;
  off.config.impl.dataflow = false;
  const lower::ConvWorkload w = tune::parse_workload_spec("conv2d,ci=64,h=14,w=14,co=64,k=3,s=1,p=1");
  uint64_t cycles[2];
  for (int i = 0; i < 2; ++i) {
    const hw::HwConfig& c = i == 0 ? on.config : off.config;
    const tune::TuneTask t = tune::workload_task(c, w);
    lower::ProgramTimer timer(c);
    cycles[i] = timer.time(lower::lower_conv_program(c, t.spec, lower::default_schedule(c, w, t.needs))).cycles;
  }
  EXPECT_GT(cycles[1], cycles[0]);
  hw::HwConfig round = hw::HwConfig::from_json(off.config.to_json());
  EXPECT_FALSE(round.impl.dataflow);
}

TEST(DseMapping, AccPartitionIsPricedByTheBlockRamRule) {
  const DesignSpace s = space(8);
  const hw::HwConfig board;
  // Find an array option the space keeps (it must save block RAMs) and check it does.
  bool found = false;
  s.enumerate([&](const Design& d) {
    if (s.value(d, Knob::kArrayType) == 0) return true;
    Design plain = d;
    plain[size_t(Knob::kArrayType)] = plain[size_t(Knob::kArrayDim)] = plain[size_t(Knob::kArrayFactor)] = 0;
    const auto a = design_resources(map_design(s, d, board), s.device());
    const auto b = design_resources(map_design(s, plain, board), s.device());
    EXPECT_LT(a.parts[size_t(fpga::Part::kAcc)].bram36, b.parts[size_t(fpga::Part::kAcc)].bram36);
    EXPECT_EQ(a.parts[size_t(fpga::Part::kWgt)].bram36, b.parts[size_t(fpga::Part::kWgt)].bram36);
    found = true;
    return false;
  });
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace tauvta::dse
