// Per-layer accounting of a network run: where each layer ran and why, its schedule, cycles,
// time at the clock, GOPS, GEMM utilization, DRAM bytes per memory type, arithmetic intensity
// and which side of the config's roofline it sits on; totals. As a terminal table, CSV and JSON
// (with the fully resolved config).
#pragma once

#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "backend/network.h"
#include "backend/network_runner.h"

namespace tauvta::backend {

struct LayerFigures {
  uint64_t cycles = 0;
  double seconds_at_clock = 0;
  double gops = 0;
  double gemm_utilization = 0;  // GEMM rows used per cycle, of the BATCH rows a micro-op drives
  uint64_t bytes = 0;           // DRAM bytes loaded and stored
  double intensity = 0;         // operations (2 per MAC) per DRAM byte
  std::string bound;            // "compute", "bandwidth" or "" (no MACs / CPU)
  // The layer's GEMM and ALU micro-ops alone (RunReport::compute_floor_cycles) and the GOPS
  // they allow: what no schedule of this lowering can beat.
  uint64_t floor_cycles = 0;
  double ceiling_gops = 0;
};

LayerFigures layer_figures(const hw::HwConfig& c, const NetworkLayer& l, const LayerRun& r);

struct NetworkTotals {
  uint64_t cycles = 0;
  double seconds_at_clock = 0;
  double gops = 0;       // accelerator MACs * 2 over the accelerator time
  double conv_gops = 0;  // convolution and dense layers only
  double conv_ceiling_gops = 0;  // the same over their compute floors
  uint64_t vta_layers = 0, cpu_layers = 0;
  // CPU layers of ops the accelerator runs on other configs (a MaxPool on 1-bit data, a conv whose
  // tiles do not fit): work the accelerator's totals leave out.
  uint64_t fallback_layers = 0, fallback_macs = 0;
  double fallback_seconds = 0;              // their host time (0 when timing only)
  std::map<std::string, int> fallback_ops;  // op -> layers
};
// Whether a graph op is one the accelerator can run (on some config).
bool accelerator_op(const std::string& graph_op);
// The share of a BATCH-row GEMM core's rows a layer of `batch` images keeps busy.
double batch_rows_used(int64_t batch, int config_batch);
NetworkTotals network_totals(const CompiledNetwork& net, const NetworkRun& run);

nlohmann::json network_report_json(const CompiledNetwork& net, const NetworkRun& run);
std::string network_report_table(const CompiledNetwork& net, const NetworkRun& run);
std::string network_report_csv(const CompiledNetwork& net, const NetworkRun& run);

// One CSV field (RFC 4180): quoted when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);

}  // namespace tauvta::backend
