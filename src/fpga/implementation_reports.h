// Implementation reports: what Vivado (or any flow) reported for designs someone built. A CSV of
// designs (device, config, implementation options, LUT, FF, DSP, BRAM, URAM, achieved clock or
// WNS) is read once; for a design it holds, the report replaces the model; for the others, a
// per-resource correction learned from the reports (XGBoost on the model's cost features, the
// tuner's cost-model code) scales the model's figures. tau-VTA's dataset has this shape.
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fpga/device.h"
#include "fpga/resource_model.h"
#include "hw/hw_config.h"
#include "ml/cost_model.h"
#include "rtl/datapath_shape.h"

namespace tauvta::fpga {

struct ImplementedDesign {
  const Device* device = nullptr;
  hw::HwConfig config;
  rtl::RtlOptions options;
  Resources resources;
  double fmax_mhz = 0;  // 0: the report gave no clock
  size_t line = 0;      // in the CSV, for messages
};

class ImplementationReports {
 public:
  // Columns (header names, any order, case-insensitive): device, config (a VTA name such as
  // 1x16_i8w8a32_15_15_18_17, or a JSON path relative to the CSV), LUT, FF, DSP, and BRAM36
  // and/or BRAM18; optional binding, tree_levels, acc_ports, URAM, clock_mhz (replaces the
  // config's clock), fmax_mhz or wns_ns (with clock_mhz or the config's clock). Other columns
  // (strategies, HLS settings) are ignored. Throws tauvta::Error naming file, line and column.
  static ImplementationReports load(const std::filesystem::path& csv);

  std::span<const ImplementedDesign> designs() const { return designs_; }
  const std::string& source() const { return source_; }
  // The report for exactly this design (datapath keys, clock, options, device), or nullptr.
  const ImplementedDesign* find(const hw::HwConfig& config, const rtl::RtlOptions& options,
                                const Device& device) const;

 private:
  friend std::vector<struct ReportCheck> cross_validate(const ImplementationReports&, uint64_t);
  std::vector<ImplementedDesign> designs_;
  std::string source_;
};

// The model's figures with the report's in place of them when one matches.
ResourceEstimate from_report(const ImplementedDesign& report, const ResourceEstimate& model,
                             const Device& device, const ModelLimits& limits = {});

// Learned log(report / model) per resource (LUT, FF, DSP, BRAM36) and for the clock, from the
// design's cost features, buffer sizes, bus width and device family.
class ResourceCorrection {
 public:
  // Needs at least 3 reports; throws tauvta::Error otherwise.
  static ResourceCorrection train(const ImplementationReports& reports, uint64_t seed = 0);

  // `model` scaled per resource by the learned ratio (parts scaled with their totals), verdict
  // recomputed.
  ResourceEstimate apply(const ResourceEstimate& model, const hw::HwConfig& config,
                         const rtl::RtlOptions& options, const Device& device,
                         const ModelLimits& limits = {}) const;
  size_t trained_on() const { return trained_on_; }

 private:
  static constexpr int kTargets = 5;  // LUT, FF, DSP, BRAM36, fmax
  std::vector<std::unique_ptr<ml::CostModel>> models_;  // one per target, null when constant
  std::array<float, kTargets> constant_{};              // the target's mean log ratio
  size_t trained_on_ = 0;
};

// Each report against the model alone and against the model corrected by all the other reports
// (leave one out): how much the correction would help on a design it has not seen.
struct ReportCheck {
  const ImplementedDesign* design = nullptr;
  ResourceEstimate model, corrected;  // corrected == model when fewer than 3 other reports
};
std::vector<ReportCheck> cross_validate(const ImplementationReports& reports, uint64_t seed = 0);

// The feature vector the correction learns from (names: correction_feature_names()).
std::vector<float> correction_features(const hw::HwConfig& config, const rtl::RtlOptions& options,
                                       const Device& device);
std::vector<std::string> correction_feature_names();

}  // namespace tauvta::fpga
