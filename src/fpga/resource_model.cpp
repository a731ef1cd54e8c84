#include "fpga/resource_model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "fpga/bram_mapping.h"
#include "fpga/design_options.h"

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

// The ACC buffer's memories under an array option: `copies` x `banks` memories of
// width x 2^log_depth.
Resources acc_memories(Family family, const rtl::BufferShape& acc, const hw::AccArray& a) {
  int width = acc.width, log_depth = acc.log_depth, banks = 1;
  int lf = 0;
  while ((1 << lf) < std::max(1, a.factor)) ++lf;
  switch (a.kind) {
    case hw::ArrayKind::kNone: break;
    case hw::ArrayKind::kPartitionCyclic:
    case hw::ArrayKind::kPartitionBlock:
      if (a.dim == 1) {
        log_depth -= lf;
      } else {
        width /= a.factor;
      }
      banks = a.factor;
      break;
    case hw::ArrayKind::kReshapeCyclic:
    case hw::ArrayKind::kReshapeBlock:  // factor words side by side in one
      if (a.dim == 1) {
        log_depth -= lf;
        width *= a.factor;
      }
      break;
  }
  Resources r = map_memory(family, width, std::max(0, log_depth)).resources;
  const double n = double(banks) * acc.copies;
  r.lut *= n;
  r.ff *= n;
  r.bram36 *= n;
  r.uram *= n;
  return r;
}

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
    case Part::kFetch: return "fetch";
    case Part::kLoad: return "load";
    case Part::kComputeLoads: return "compute loads";
    case Part::kStore: return "store";
    case Part::kCmdQueues: return "command queues";
    case Part::kTokenQueues: return "token queues";
    case Part::kControlSlave: return "control slave";
    case Part::kPlatform: return "interconnect (est.)";
    case Part::kCount: break;
  }
  return "?";
}

const FitRow* find_fit(Family family, FitModule module, Resource resource) {
  // Indexed once (the exploration looks rows up millions of times).
  constexpr int kResources = 3;
  using Index = std::array<const FitRow*, rtl::kNumFamilies * rtl::kNumNetlistModules * kResources>;
  auto slot = [](Family f, FitModule m, Resource r) {
    return (size_t(f) * rtl::kNumNetlistModules + size_t(m)) * kResources + size_t(r);
  };
  static const Index index = [&] {
    Index i{};
    for (const FitRow& row : kFitRows) i[slot(row.family, row.module, row.resource)] = &row;
    return i;
  }();
  return index[slot(family, module, resource)];
}

ResourceEstimate estimate_resources(const hw::HwConfig& config, const rtl::RtlOptions& options,
                                    const Device& device, const ModelLimits& limits) {
  ResourceEstimate e;
  const rtl::DatapathShape s = rtl::shape_of(config, options);
  // Every generated module from its fitted closed form over its netlist features.
  constexpr std::pair<FitModule, Part> kFitted[] = {
      {FitModule::kGemm, Part::kGemm},           {FitModule::kAlu, Part::kAlu},
      {FitModule::kCompute, Part::kControl},     {FitModule::kFetch, Part::kFetch},
      {FitModule::kLoad, Part::kLoad},           {FitModule::kComputeCtrl, Part::kComputeLoads},
      {FitModule::kStore, Part::kStore},         {FitModule::kCmdQueues, Part::kCmdQueues},
      {FitModule::kTokenQueues, Part::kTokenQueues}, {FitModule::kControl, Part::kControlSlave},
  };
  for (const auto& [module, part] : kFitted) {
    Resources r = fitted_module(device.family, module, rtl::netlist_features(module, config, s, device.family));
    // The module's queue memories by the memory-mapping rule, as the buffers are.
    const rtl::QueueMemory q = rtl::queue_memory(module, config, s);
    if (q.count > 0) {
      const Resources m = map_queue_memory(device.family, q.width, q.log_depth).resources;
      r.lut += q.count * m.lut;
      r.ff += q.count * m.ff;
      r.bram36 += q.count * m.bram36;
    }
    e.parts[size_t(part)] = r;
  }
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
  // A partition or reshape changes the ACC buffer's memories (the clock keeps the plain buffer's
  // read path: the ALU's run-time addresses still select among them).
  if (options.acc_array.kind != hw::ArrayKind::kNone) {
    e.parts[size_t(Part::kAcc)] = acc_memories(device.family, s.buffer(rtl::BufferId::kAcc), options.acc_array);
  }
  e.parts[size_t(Part::kPlatform)] = platform(device, 1 << config.timing.log_bus_width);
  for (const Resources& r : e.parts) e.total += r;
  e.products = s.products;
  e.dsp_products = s.dsp_products;

  e.target_mhz = config.timing.clock_mhz;
  e.clock = estimate_clock(s, device, max_depth_blocks, read_blocks);
  judge(e, device, limits);
  return e;
}

ResourceEstimate estimate_resources(const hw::HwConfig& config, const Device& device, const ModelLimits& limits) {
  return estimate_resources(config, rtl_options(config, device), device, limits);
}

void judge(ResourceEstimate& e, const Device& device, const ModelLimits& limits) {
  e.verdict = Verdict::kFits;
  e.over_mask = 0;
  double worst = 0;
  for (int k = 0; k < kNumResourceKinds; ++k) {
    const double cap = get(device.total, ResourceKind(k));
    const double used = get(e.total, ResourceKind(k));
    e.utilization[size_t(k)] = cap > 0 ? used / cap : (used > 0 ? 1e9 : 0);
    if (e.utilization[size_t(k)] > limits.max_utilization) {
      e.over_mask |= 1u << unsigned(k);
      if (e.utilization[size_t(k)] > worst) {
        worst = e.utilization[size_t(k)];
        e.over = ResourceKind(k);
        e.verdict = Verdict::kOverResource;
      }
    }
  }
  e.misses_clock = e.clock.fmax_mhz < e.target_mhz;
  if (e.verdict == Verdict::kFits && e.misses_clock) e.verdict = Verdict::kMissesClock;
}

std::string verdict_text(const ResourceEstimate& e, const Device& device) {
  if (e.verdict == Verdict::kFits) {
    return fmt::format("fits, closes {:.0f} MHz (clock {:.0f} MHz)", e.clock.fmax_mhz, e.target_mhz);
  }
  std::string s, advice;
  for (int k = 0; k < kNumResourceKinds; ++k) {
    if (!e.over_resource(ResourceKind(k))) continue;
    s += fmt::format("{}{} {:.0f}% ({:.0f} of {:.0f})", s.empty() ? "" : ", ", resource_name(ResourceKind(k)),
                     100 * e.utilization[size_t(k)], get(e.total, ResourceKind(k)),
                     get(device.total, ResourceKind(k)));
  }
  if (!s.empty()) s = fmt::format("does not fit the {}: {}", device.board, s);
  if (e.misses_clock) {
    s += fmt::format("{}closes {:.0f} MHz, below its {:.0f} MHz clock (critical stage: {}, {:.2f} ns)",
                     s.empty() ? "does not close its clock: " : "; ", e.clock.fmax_mhz, e.target_mhz,
                     stage_name(e.clock.critical), e.clock.period_ns);
  }
  // Advice that changes the outcome: the DSP limit that brings the DSPs within the device, or the
  // clock it closes.
  if (e.over_resource(ResourceKind::kDsp) && e.dsp_products > 0) {
    const double excess = get(e.total, ResourceKind::kDsp) - get(device.total, ResourceKind::kDsp);
    const int limit = e.dsp_products - int(std::ceil(excess));
    advice += limit > 0 ? fmt::format("; IMPLEMENTATION.DSP_LIMIT {} (--dsp-limit {}) builds the other products in LUTs",
                                      limit, limit)
                        : std::string("; IMPLEMENTATION.BINDING \"lut\" (--binding lut) builds the products in LUTs");
  }
  if (e.misses_clock) {
    advice += fmt::format("; TIMING.CLOCK_MHZ {:.0f} or below closes", std::floor(e.clock.fmax_mhz));
  }
  return s + advice;
}

}  // namespace tauvta::fpga
