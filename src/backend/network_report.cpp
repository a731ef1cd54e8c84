#include "backend/network_report.h"

#include "backend/layer_specs.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tauvta::backend {

namespace {

std::string schedule_text(const NetworkLayer& l) {
  if (!l.schedule || !l.workload) return "";
  return l.schedule->to_string(l.workload->kind);
}

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

LayerFigures layer_figures(const hw::HwConfig& c, const NetworkLayer& l, const LayerRun& r) {
  LayerFigures f;
  if (l.placement != Placement::kVta) return f;
  f.cycles = r.report.cycles;
  f.seconds_at_clock = double(f.cycles) / (c.timing.clock_mhz * 1e6);
  f.gops = c.gops(l.macs, f.cycles);
  // GEMM rows used, not micro-ops issued: a micro-op of a BATCH-row core on a batch-1 layer keeps
  // one row of BATCH busy.
  f.gemm_utilization = r.report.gemm_utilization() * (l.workload ? batch_rows_used(l.workload->batch, c.batch()) : 1.0);
  f.floor_cycles = r.report.compute_floor_cycles(c);
  f.ceiling_gops = c.gops(l.macs, f.floor_cycles);
  for (uint64_t b : r.report.bytes_loaded) f.bytes += b;
  f.bytes += r.report.bytes_stored;
  if (l.macs > 0 && f.bytes > 0) {
    f.intensity = 2.0 * double(l.macs) / double(f.bytes);
    // Roofline: attainable = min(peak, intensity * bandwidth).
    const double bandwidth_gbs = c.dram_gbps();
    f.bound = f.intensity * bandwidth_gbs < c.peak_gops() ? "bandwidth" : "compute";
  }
  return f;
}

double batch_rows_used(int64_t batch, int config_batch) {
  if (batch <= 0 || config_batch <= 0) return 1.0;
  const int64_t blocks = (batch + config_batch - 1) / config_batch;
  return double(batch) / double(blocks * config_batch);
}

bool accelerator_op(const std::string& graph_op) {
  return is_conv_family(graph_op) || graph_op == "MaxPool" || graph_op == "QAdd";
}

NetworkTotals network_totals(const CompiledNetwork& net, const NetworkRun& run) {
  NetworkTotals t;
  uint64_t macs = 0, conv_macs = 0, conv_cycles = 0, conv_floor = 0;
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    if (l.placement == Placement::kCpu) {
      ++t.cpu_layers;
      if (accelerator_op(l.op)) {
        ++t.fallback_layers;
        t.fallback_macs += l.macs;
        t.fallback_seconds += i < run.layers.size() ? run.layers[i].cpu_seconds : 0.0;
        t.fallback_ops[l.op] += 1;
      }
      continue;
    }
    if (l.program_layer < 0) continue;
    ++t.vta_layers;
    macs += l.macs;
    if (is_gemm_op(l.op)) {
      conv_macs += l.macs;
      conv_cycles += run.layers[i].report.cycles;
      conv_floor += run.layers[i].report.compute_floor_cycles(net.config);
    }
  }
  const double hz = net.config.timing.clock_mhz * 1e6;
  t.cycles = run.total.cycles;
  t.seconds_at_clock = double(t.cycles) / hz;
  t.gops = net.config.gops(macs, t.cycles);
  t.conv_gops = net.config.gops(conv_macs, conv_cycles);
  t.conv_ceiling_gops = net.config.gops(conv_macs, conv_floor);
  return t;
}

nlohmann::json network_report_json(const CompiledNetwork& net, const NetworkRun& run) {
  nlohmann::json layers = nlohmann::json::array();
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    const LayerFigures f = layer_figures(net.config, l, run.layers[i]);
    nlohmann::json j;
    j["name"] = l.name;
    j["op"] = l.op;
    j["placement"] = placement_name(l.placement);
    j["reason"] = l.reason;
    j["schedule"] = schedule_text(l);
    if (l.schedule && l.workload) j["schedule_entity"] = l.schedule->to_entity(l.workload->kind);
    j["schedule_source"] = l.schedule_source;
    j["workload"] = l.workload ? l.workload->to_string() : "";
    j["cycles"] = f.cycles;
    j["seconds_at_clock"] = f.seconds_at_clock;
    j["macs"] = l.macs;
    j["gops"] = f.gops;
    j["gemm_utilization"] = f.gemm_utilization;
    j["compute_floor_cycles"] = f.floor_cycles;
    j["ceiling_gops"] = f.ceiling_gops;
    j["bytes"] = f.bytes;
    nlohmann::json per;
    for (int m = 0; m < hw::kNumMemIds; ++m) {
      if (run.layers[i].report.bytes_loaded[size_t(m)]) {
        per[std::string("load_") + hw::mem_id_name(uint8_t(m))] = run.layers[i].report.bytes_loaded[size_t(m)];
      }
    }
    per["store_OUT"] = run.layers[i].report.bytes_stored;
    j["bytes_by_memory"] = per;
    // Why a layer is slow: each module's cycles by reason (stall_dram_cycles: waiting for the port
    // while other modules' transfers held it) and the bytes per cycle each memory type achieved.
    j["modules"] = run.layers[i].report.modules_json();
    j["dram_bandwidth"] = run.layers[i].report.dram_json();
    j["intensity"] = f.intensity;
    j["bound"] = f.bound;
    j["insns"] = run.layers[i].report.insns;
    j["cpu_seconds"] = run.layers[i].cpu_seconds;
    j["nodes"] = l.nodes;
    layers.push_back(j);
  }
  const NetworkTotals t = network_totals(net, run);
  nlohmann::json out;
  out["layers"] = layers;
  out["total"] = {{"cycles", t.cycles},
                  {"seconds_at_clock", t.seconds_at_clock},
                  {"gops", t.gops},
                  {"conv_gops", t.conv_gops},
                  {"conv_ceiling_gops", t.conv_ceiling_gops},
                  {"vta_layers", t.vta_layers},
                  {"cpu_layers", t.cpu_layers},
                  {"cpu_fallback_layers", t.fallback_layers},
                  {"cpu_fallback_seconds", t.fallback_seconds},
                  {"cpu_fallback_ops", t.fallback_ops},
                  {"insns", run.total.insns},
                  {"compile_seconds", net.compile_seconds},
                  {"lower_seconds", net.lower_seconds},
                  {"sim_wall_seconds", run.sim_wall_seconds},
                  {"cpu_seconds", run.cpu_seconds},
                  {"timing_only", run.total.timing_only}};
  out["config"] = net.config.to_json();
  out["config_name"] = net.config.name();
  return out;
}

std::string network_report_table(const CompiledNetwork& net, const NetworkRun& run) {
  std::string s = fmt::format("{:<24} {:<13} {:<4} {:>11} {:>9} {:>8} {:>6} {:>10} {:>6} {:>6} {:>9} {:<9}  {}\n",
                              "layer", "op", "on", "cycles", "us@clock", "GOPS", "util", "DRAM bytes", "op/B", "B/cyc",
                              "dram wait", "bound", "schedule / reason");
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    const LayerFigures f = layer_figures(net.config, l, run.layers[i]);
    const std::string name = l.name.size() > 24 ? l.name.substr(0, 21) + "..." : l.name;
    const std::string detail = l.placement == Placement::kVta && l.schedule ? schedule_text(l) : l.reason;
    if (l.placement == Placement::kCpu || l.program_layer < 0) {
      s += fmt::format("{:<24} {:<13} {:<4} {:>11} {:>9} {:>8} {:>6} {:>10} {:>6} {:>6} {:>9} {:<9}  {}\n", name, l.op,
                       placement_name(l.placement), "-", "-", "-", "-", "-", "-", "-", "-", "", detail);
      continue;
    }
    // B/cyc: DRAM bytes over the cycles their transfers ran (what the port delivered to this
    // layer); dram wait: cycles modules waited for the port while others held it.
    const sim::RunReport& rr = run.layers[i].report;
    uint64_t transfer = 0;
    for (uint64_t c : rr.transfer_cycles) transfer += c;
    const double bpc = transfer ? double(f.bytes) / double(transfer) : 0.0;
    s += fmt::format("{:<24} {:<13} {:<4} {:>11} {:>9.1f} {:>8.2f} {:>5.1f}% {:>10} {:>6.1f} {:>6.2f} {:>9} {:<9}  {}\n",
                     name, l.op, "vta", f.cycles, f.seconds_at_clock * 1e6, f.gops, 100 * f.gemm_utilization,
                     f.bytes, f.intensity, bpc, rr.stall_dram_cycles(), f.bound, detail);
  }
  const NetworkTotals t = network_totals(net, run);
  s += fmt::format("\ntotal: {} cycles = {:.3f} ms at {} MHz, {:.2f} GOPS over accelerator layers "
                   "({:.2f} GOPS over conv/dense; peak {:.1f}); {} accelerator layers, {} on the CPU\n",
                   t.cycles, t.seconds_at_clock * 1e3, net.config.timing.clock_mhz, t.gops, t.conv_gops,
                   net.config.peak_gops(), t.vta_layers, t.cpu_layers);
  if (t.fallback_layers > 0) {
    std::string ops;
    for (const auto& [op, n] : t.fallback_ops) ops += fmt::format("{}{} x{}", ops.empty() ? "" : ", ", op, n);
    s += fmt::format("warning: {} layer(s) the accelerator runs on other configs ran on the CPU here ({}; {:.3f} ms on "
                     "the host{}): the accelerator's cycles and GOPS leave them out, so compare totals with care\n",
                     t.fallback_layers, ops, t.fallback_seconds * 1e3,
                     run.total.timing_only ? ", not run: timing only" : "");
  }
  if (t.conv_ceiling_gops > 0) {
    s += fmt::format("ceiling of these instructions: {:.2f} GOPS over conv/dense (their GEMM and ALU micro-ops alone, "
                     "the compute floor no schedule can beat)\n",
                     t.conv_ceiling_gops);
  }
  s += fmt::format("compile {:.3f} s (lowering {:.3f} s), simulation {:.3f} s wall{}, CPU layers {:.3f} s\n",
                   net.compile_seconds, net.lower_seconds, run.sim_wall_seconds,
                   run.total.timing_only ? " (timing only)" : "", run.cpu_seconds);
  return s;
}

std::string network_report_csv(const CompiledNetwork& net, const NetworkRun& run) {
  std::string s = "name,op,placement,reason,schedule,cycles,seconds_at_clock,macs,gops,gemm_utilization,bytes,"
                  "intensity,bound,compute_floor_cycles,ceiling_gops\n";
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    const LayerFigures f = layer_figures(net.config, l, run.layers[i]);
    s += fmt::format("{},{},{},{},{},{},{:.9g},{},{:.6g},{:.6g},{},{:.6g},{},{},{:.6g}\n", csv_field(l.name), l.op,
                     placement_name(l.placement), csv_field(l.reason), csv_field(schedule_text(l)), f.cycles,
                     f.seconds_at_clock, l.macs, f.gops, f.gemm_utilization, f.bytes, f.intensity, f.bound,
                     f.floor_cycles, f.ceiling_gops);
  }
  return s;
}

}  // namespace tauvta::backend
