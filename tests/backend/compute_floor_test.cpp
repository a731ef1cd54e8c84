// The compute floor (RunReport::compute_floor_cycles: a layer's GEMM and ALU micro-ops alone)
// is what the reports and `tauvta tune` give as the ceiling no schedule can beat: it must be the
// same for every legal schedule of a workload, and no schedule's cycles may fall below it.
#include <gtest/gtest.h>

#include "backend/op_runner.h"
#include "common/error.h"
#include "lower/conv_plan.h"
#include "tune/task.h"

namespace {

using namespace tauvta;

TEST(ComputeFloor, IsTheSameForEveryScheduleAndNoScheduleBeatsIt) {
  const hw::HwConfig c = hw::HwConfig::load(std::string(TAUVTA_SOURCE_DIR) + "/configs/pynq.json");
  for (const char* spec : {"conv2d,ci=64,h=56,w=56,co=64,k=3,s=1,p=1",
                           "conv2d,ci=64,h=56,w=56,co=128,k=1,s=2,p=0", "dense,ci=512,co=160"}) {
    SCOPED_TRACE(spec);
    const lower::ConvWorkload w = tune::parse_workload_spec(spec);
    const std::vector<lower::Schedule> space =
        lower::schedule_space(c, w, lower::LayerNeeds{1, false});
    ASSERT_GT(space.size(), 8u);
    backend::OpRunOptions o;
    o.timing_only = true;
    o.bias = true;
    uint64_t floor = 0;
    int timed = 0;
    for (size_t k = 0; k < space.size();
         k += space.size() / 8) {  // eight schedules across the space
      backend::OpRun r;
      try {
        r = backend::run_op(c, w, space[k], o);
      } catch (const Error&) {
        continue;  // not every point fits with the bias's accumulator vector
      }
      const uint64_t f = r.report.compute_floor_cycles(c);
      if (floor == 0) floor = f;
      EXPECT_EQ(f, floor) << space[k].to_string(w.kind);
      EXPECT_GE(r.report.cycles, f) << space[k].to_string(w.kind);
      EXPECT_GT(r.report.alu_uops, 0u);
      ++timed;
    }
    EXPECT_GE(timed, 4);
    // GEMM micro-ops cover every MAC of the workload at least once.
    EXPECT_GE(floor * c.macs_per_cycle(), w.macs());
  }
}

}  // namespace
