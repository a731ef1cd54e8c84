// `tauvta hw resources` as a call: a design's resources and clock on one device (or all), from
// the resource model or, where implementation reports are given, from what was built (or the model
// corrected by them). The terminal's table and the JSON report come from the same estimates.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "hw/hw_config.h"

namespace tauvta::fpga {

struct ResourceReportRequest {
  hw::HwConfig config;  // with its implementation as it is to be built (overrides applied)
  std::string device;   // pynq-z1, ultra96, zcu104, all; empty: the config's TARGET board
  double max_util = 1.0;
  std::string reports;  // implementation reports CSV (optional)
};

// The report; `text`, when given, receives the table. report["fits"]: whether the design fits
// any device asked about.
nlohmann::json resource_report(const ResourceReportRequest& a, std::string* text);

}  // namespace tauvta::fpga
