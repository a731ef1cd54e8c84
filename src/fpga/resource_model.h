// The resource and clock model: for a HwConfig, the implementation options and a device, the
// LUT/FF/DSP/BRAM/URAM of each part of the design (GEMM core and tensor ALU from closed forms
// fitted to yosys synthesis, buffers by the block-RAM mapping rule, control and infrastructure as
// fixed costs), totals, utilization, the clock the datapath can close and whether the design fits.
// One call costs microseconds and allocates nothing: the exploration makes millions.
#pragma once

#include <array>

#include "fpga/clock_model.h"
#include "fpga/device.h"
#include "fpga/netlist_features.h"
#include "fpga/resources.h"
#include "hw/hw_config.h"
#include "rtl/datapath_shape.h"

namespace tauvta::fpga {

enum class Part : unsigned char {
  kGemm = 0, kAlu, kUop, kInp, kWgt, kAcc, kOut, kControl, kInfrastructure, kCount
};
inline constexpr int kNumParts = int(Part::kCount);
const char* part_name(Part p);

enum class Verdict : unsigned char { kFits = 0, kOverResource, kMissesClock };

struct ResourceEstimate {
  std::array<Resources, kNumParts> parts{};
  Resources total;
  std::array<double, kNumResourceKinds> utilization{};  // total / device total (0 if none there)
  ClockEstimate clock;
  double target_mhz = 0;     // the config's clock (TIMING.CLOCK_MHZ)
  Verdict verdict = Verdict::kFits;
  ResourceKind over = ResourceKind::kLut;  // the most over-used resource when kOverResource
  bool feasible() const { return verdict == Verdict::kFits; }
};

struct ModelLimits {
  double max_utilization = 1.0;  // a design fits when every resource is at most this share
};

ResourceEstimate estimate_resources(const hw::HwConfig& config, const rtl::RtlOptions& options,
                                    const Device& device, const ModelLimits& limits = {});

// Derives utilization and the verdict from e.total, e.clock and e.target_mhz.
void judge(ResourceEstimate& e, const Device& device, const ModelLimits& limits = {});

// One line: "fits", "needs 131% of the device's DSP (288 of 220)" or "closes 210 MHz, below its
// 250 MHz clock (critical stage: multiply)".
std::string verdict_text(const ResourceEstimate& e, const Device& device);

// The fitted closed forms: coefficients over the netlist features (tools/synth/fit_resources.py
// writes resource_fit.inc).
enum class FitModule : unsigned char { kGemm = 0, kAlu, kControl };
enum class Resource : unsigned char { kLut = 0, kFf, kDsp };
struct FitRow {
  Family family;
  FitModule module;
  Resource resource;
  std::array<double, kNumNetlistFeatures> coef;
};
const FitRow* find_fit(Family family, FitModule module, Resource resource);
// LUT, FF and DSP of one fitted module for its netlist features.
Resources fitted_module(Family family, FitModule module, const NetlistFeatures& features);

}  // namespace tauvta::fpga
