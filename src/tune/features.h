// Features of a candidate schedule for the cost model, computed from the knobs and the resolved
// tiling without lowering: knob values, tile sizes, SRAM footprint per buffer, bytes moved per
// memory type (with the reuse the lowering gets when the reduction is not split), instruction
// and micro-op counts, virtual threads, arithmetic intensity and the analytic cycle estimate,
// plus the workload's and config's sizes so one model can learn across tasks and hardware.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hw/hw_config.h"
#include "lower/conv_plan.h"
#include "tune/knob_space.h"

namespace tauvta::tune {

// The names, in feature-vector order (stable: saved models and importance tables use them).
const std::vector<std::string>& feature_names();
size_t num_features();

// Writes num_features() values for tiling `t` of workload `w` on `c` into `out`.
void schedule_features(const hw::HwConfig& c, const lower::ConvWorkload& w, const lower::ConvGeometry& g,
                       const lower::ConvTiling& t, std::span<float> out);

// Every point of a space, row-major (size() x num_features()).
std::vector<float> space_features(const hw::HwConfig& c, const lower::ConvWorkload& w, const KnobSpace& space);

}  // namespace tauvta::tune
