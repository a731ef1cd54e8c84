#include "fpga/resource_model.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "fpga/bram_mapping.h"

namespace tauvta::fpga {

namespace {

const FitRow kFitRows[] = {
#include "fpga/resource_fit.inc"
};

double apply(const FitRow* row, const NetlistFeatures& f) {
  if (row == nullptr) return 0;
  double v = 0;
  for (int k = 0; k < kNumNetlistFeatures; ++k) v += row->coef[size_t(k)] * f[size_t(k)];
  return std::max(0.0, v);
}

}  // namespace

Resources fitted_module(Family family, FitModule module, const NetlistFeatures& f) {
  Resources r;
  r.lut = apply(find_fit(family, module, Resource::kLut), f);
  r.ff = apply(find_fit(family, module, Resource::kFf), f);
  r.dsp = apply(find_fit(family, module, Resource::kDsp), f);
  return r;
}

const char* part_name(Part p) {
  switch (p) {
    case Part::kGemm: return "gemm core";
    case Part::kAlu: return "tensor alu";
    case Part::kUop: return "uop buffer";
    case Part::kInp: return "inp buffer";
    case Part::kWgt: return "wgt buffer";
    case Part::kAcc: return "acc buffer";
    case Part::kOut: return "out buffer";
    case Part::kControl: return "compute control";
    case Part::kInfrastructure: return "infrastructure";
    case Part::kCount: break;
  }
  return "?";
}

const FitRow* find_fit(Family family, FitModule module, Resource resource) {
  for (const FitRow& r : kFitRows) {
    if (r.family == family && r.module == module && r.resource == resource) return &r;
  }
  return nullptr;
}

ResourceEstimate estimate_resources(const hw::HwConfig& config, const rtl::RtlOptions& options,
                                    const Device& device, const ModelLimits& limits) {
  ResourceEstimate e;
  const rtl::DatapathShape s = rtl::shape_of(config, options);
  const NetlistFeatures one = [] {
    NetlistFeatures f{};
    f[size_t(NetlistFeature::kOne)] = 1;
    return f;
  }();
  e.parts[size_t(Part::kGemm)] =
      fitted_module(device.family, FitModule::kGemm, gemm_netlist_features(s, device.family));
  e.parts[size_t(Part::kAlu)] = fitted_module(device.family, FitModule::kAlu, alu_netlist_features(s));
  e.parts[size_t(Part::kControl)] = fitted_module(device.family, FitModule::kControl, one);
  int max_depth_blocks = 1;
  double read_blocks = 0;
  for (int b = 0; b < rtl::kNumBuffers; ++b) {
    const rtl::BufferShape& buf = s.buffers[size_t(b)];
    const MemoryMapping m = map_memory(device.family, buf.width, buf.log_depth);
    Resources r = m.resources;
    r.lut *= buf.copies;
    r.ff *= buf.copies;
    r.bram36 *= buf.copies;
    r.uram *= buf.copies;
    e.parts[size_t(Part::kUop) + size_t(b)] = r;
    max_depth_blocks = std::max(max_depth_blocks, m.depth_blocks);
    if (b == int(rtl::BufferId::kInp) || b == int(rtl::BufferId::kWgt) || b == int(rtl::BufferId::kAcc)) {
      read_blocks += 2 * r.bram36;  // 18 Kb blocks, each with its own enable
    }
  }
  e.parts[size_t(Part::kInfrastructure)] = infrastructure(device, 1 << config.timing.log_bus_width);
  for (const Resources& r : e.parts) e.total += r;

  e.target_mhz = config.timing.clock_mhz;
  e.clock = estimate_clock(s, device, max_depth_blocks, read_blocks);
  judge(e, device, limits);
  return e;
}

void judge(ResourceEstimate& e, const Device& device, const ModelLimits& limits) {
  e.verdict = Verdict::kFits;
  double worst = 0;
  for (int k = 0; k < kNumResourceKinds; ++k) {
    const double cap = get(device.total, ResourceKind(k));
    const double used = get(e.total, ResourceKind(k));
    e.utilization[size_t(k)] = cap > 0 ? used / cap : (used > 0 ? 1e9 : 0);
    if (e.utilization[size_t(k)] > limits.max_utilization && e.utilization[size_t(k)] > worst) {
      worst = e.utilization[size_t(k)];
      e.over = ResourceKind(k);
      e.verdict = Verdict::kOverResource;
    }
  }
  if (e.verdict == Verdict::kFits && e.clock.fmax_mhz < e.target_mhz) {
    e.verdict = Verdict::kMissesClock;
  }
}

std::string verdict_text(const ResourceEstimate& e, const Device& device) {
  switch (e.verdict) {
    case Verdict::kFits:
      return fmt::format("fits, closes {:.0f} MHz (clock {:.0f} MHz)", e.clock.fmax_mhz,
                         e.target_mhz);
    case Verdict::kOverResource: {
      const double used = get(e.total, e.over), cap = get(device.total, e.over);
      return fmt::format("does not fit: needs {:.0f}% of the {}'s {} ({:.0f} of {:.0f}){}",
                         100 * e.utilization[size_t(e.over)], device.board,
                         resource_name(e.over), used, cap,
                         e.over == ResourceKind::kDsp && e.parts[size_t(Part::kGemm)].dsp > 0
                             ? "; a DSP limit (--dsp-limit) builds the products beyond it in LUTs"
                             : "");
    }
    case Verdict::kMissesClock:
      return fmt::format(
          "does not close its clock: {:.0f} MHz is below its {:.0f} MHz (critical stage: {}, "
          "{:.2f} ns)",
          e.clock.fmax_mhz, e.target_mhz, stage_name(e.clock.critical), e.clock.period_ns);
  }
  return "?";
}

}  // namespace tauvta::fpga
