// Shared pieces of the tuner tests: presets, the reference layer of the VTA and tau-VTA figures,
// and a synthetic score over a real knob space with a known optimum.
#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "hw/hw_config.h"
#include "tune/knob_space.h"
#include "tune/task.h"

namespace tauvta::tune::testing {

inline hw::HwConfig preset(const std::string& name) {
  return hw::HwConfig::load(std::filesystem::path(TAUVTA_SOURCE_DIR) / "configs" / (name + ".json"));
}

// IC=256, OC=256, H=W=14, 3x3, stride 1, padding 0 (the VTA paper's and tau-VTA's layer).
inline lower::ConvWorkload reference_layer() { return parse_workload_spec("conv2d,ci=256,h=14,w=14,co=256,k=3,s=1,p=0"); }

inline std::filesystem::path temp_dir(const std::string& name) {
  const std::filesystem::path d = std::filesystem::path(::testing::TempDir()) / ("tune_" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// A score peaked at one legal point of the space: 100 minus the squared distance of the knob
// choices from the optimum's, so every knob matters and the optimum is unique.
struct SyntheticScore {
  const KnobSpace& space;
  size_t optimum;
  double operator()(size_t point) const {
    const std::vector<uint32_t> a = space.coords(point), b = space.coords(optimum);
    double d = 0;
    for (size_t k = 0; k < a.size(); ++k) d += (double(a[k]) - double(b[k])) * (double(a[k]) - double(b[k]));
    return 100.0 - d;
  }
};

}  // namespace tauvta::tune::testing
