// The resource and clock model: for a HwConfig, the implementation options and a device, the
// LUT/FF/DSP/BRAM/URAM of each part of the design (every generated module from closed forms over
// its netlist features fitted to yosys synthesis, buffers by the block-RAM mapping rule, the AXI
// interconnect to the processing system as a written-down estimate), totals, utilization, the
// clock the datapath can close and whether the design fits.
// One call costs microseconds and allocates nothing: the exploration makes millions.
#pragma once

#include <array>

#include "fpga/clock_model.h"
#include "fpga/device.h"
#include "fpga/resources.h"
#include "hw/hw_config.h"
#include "rtl/datapath_shape.h"
#include "rtl/netlist_features.h"

namespace tauvta::fpga {

enum class Part : unsigned char {
  kGemm = 0, kAlu, kUop, kInp, kWgt, kAcc, kOut, kControl,
  // The generated accelerator around the datapath (src/rtl/verilog/), each priced from synthesis.
  kFetch, kLoad, kComputeLoads, kStore, kCmdQueues, kTokenQueues, kControlSlave,
  kPlatform,  // the AXI interconnect to the processing system: Xilinx IP, an estimate
  kCount
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
  Verdict verdict = Verdict::kFits;   // kOverResource when any resource is over, else the clock's
  ResourceKind over = ResourceKind::kLut;  // the most over-used resource when kOverResource
  unsigned over_mask = 0;             // bit k: ResourceKind k is over the limit
  bool misses_clock = false;          // fmax below the config's clock (whatever the resources)
  int dsp_products = 0;               // GEMM products in DSP slices (for the verdict's advice)
  int products = 0;                   // GEMM products in all
  bool feasible() const { return verdict == Verdict::kFits; }
  bool over_resource(ResourceKind k) const { return (over_mask >> unsigned(k)) & 1u; }
};

struct ModelLimits {
  double max_utilization = 1.0;  // a design fits when every resource is at most this share
};

// `options` as given (the ACC array option priced by the block-RAM mapping rule).
ResourceEstimate estimate_resources(const hw::HwConfig& config, const rtl::RtlOptions& options,
                                    const Device& device, const ModelLimits& limits = {});
// The config's own IMPLEMENTATION on `device` (fpga/design_options.h: rtl_options).
ResourceEstimate estimate_resources(const hw::HwConfig& config, const Device& device,
                                    const ModelLimits& limits = {});

// The ACC buffer's memories under an array partition or reshape: `copies` x banks memories mapped
// by the block-RAM rule.
Resources acc_memories(Family family, const rtl::BufferShape& acc, const hw::AccArray& a);

// Derives utilization and the verdict from e.total, e.clock and e.target_mhz.
void judge(ResourceEstimate& e, const Device& device, const ModelLimits& limits = {});

// One line naming every resource over the limit and the clock when it is missed, with advice that
// changes the outcome: "fits, closes 156 MHz (clock 100 MHz)" or "does not fit: DSP 193% (424 of
// 220), BRAM36 150% (210 of 140); closes 59 MHz, below its 100 MHz clock (critical stage:
// multiply); ...".
std::string verdict_text(const ResourceEstimate& e, const Device& device);

// The fitted closed forms: coefficients over the netlist features, one row per family, module and
// resource (tools/synth/fit_resources.py writes resource_fit.inc).
using FitModule = rtl::NetlistModule;
using rtl::NetlistFeature;
using rtl::NetlistFeatures;
using rtl::kNumNetlistFeatures;
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
