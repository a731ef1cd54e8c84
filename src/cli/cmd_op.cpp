// tauvta op: one convolution-family workload on the accelerator with a given schedule (or the
// default heuristic, or the workload and knobs of one AutoTVM log line): cycles, time at the
// clock, GOPS, and a bit-exact check against the integer reference (unless --timing-only).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/network_report.h"
#include "fpga/feasibility.h"
#include "tune/task.h"
#include "backend/op_runner.h"
#include "common/file_io.h"
#include "hw/config_file.h"
#include "hw/program_file.h"
#include "cli/commands.h"
#include "backend/op_log_run.h"
#include "common/error.h"
#include "lower/conv_plan.h"
#include "lower/tuning_record.h"

namespace tauvta::cli {
namespace {

struct OpArgs {
  std::string op;
  int64_t batch = 1, in_channels = 0, height = 1, width = 1, out_channels = 0, groups = 1;
  std::string kernel = "1", stride = "1", pad = "0", dilation = "1", output_padding = "0";
  std::string schedule, record, log, config, timing, report, csv, html;
  bool timing_only = false, check_hazards = false, force = false, bias = false;
  bool no_bitstreams = false;
  uint64_t seed = 1;
};

// "3" -> {3, 3}; "3x1" -> {3, 1}.
std::pair<int64_t, int64_t> pair_of(const std::string& flag, const std::string& v) {
  const size_t x = v.find('x');
  try {
    size_t used = 0;
    if (x == std::string::npos) {
      const int64_t a = std::stoll(v, &used);
      if (used == v.size()) return {a, a};
    } else {
      const int64_t a = std::stoll(v.substr(0, x), &used);
      size_t used2 = 0;
      const int64_t b = std::stoll(v.substr(x + 1), &used2);
      if (used == x && used2 == v.size() - x - 1) return {a, b};
    }
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("{} '{}': expected N or HxW", flag, v));
}

lower::ConvWorkload workload_of(const OpArgs& a) {
  // The workload spec `tune --workload`, `dse --workload` and Python's op take
  // ("conv2d,ci=256,h=14,w=14,co=256,k=3,p=1").
  if (a.op.find(',') != std::string::npos) return tune::parse_workload_spec(a.op);
  lower::ConvWorkload w;
  w.kind = lower::parse_op_kind(a.op);
  w.batch = a.batch;
  w.in_channels = a.in_channels;
  w.out_channels = a.out_channels;
  w.groups = a.groups;
  if (w.kind == lower::OpKind::kDense) return w;
  w.height = a.height;
  w.width = a.width;
  std::tie(w.kernel_h, w.kernel_w) = pair_of("--kernel", a.kernel);
  std::tie(w.stride_h, w.stride_w) = pair_of("--stride", a.stride);
  std::tie(w.dilation_h, w.dilation_w) = pair_of("--dilation", a.dilation);
  std::tie(w.output_pad_h, w.output_pad_w) = pair_of("--output-padding", a.output_padding);
  const size_t commas = size_t(std::count(a.pad.begin(), a.pad.end(), ','));
  if (commas == 3) {
    int64_t p[4];
    size_t at = 0;
    for (int i = 0; i < 4; ++i) {
      const size_t end = a.pad.find(',', at);
      p[i] = pair_of("--pad", a.pad.substr(at, end - at)).first;
      at = end + 1;
    }
    w.pad_top = p[0];
    w.pad_left = p[1];
    w.pad_bottom = p[2];
    w.pad_right = p[3];
  } else {
    const auto [ph, pw] = pair_of("--pad", a.pad);
    w.pad_top = w.pad_bottom = ph;
    w.pad_left = w.pad_right = pw;
  }
  if (w.kind == lower::OpKind::kConv2d && w.groups > 1) w.kind = lower::OpKind::kGroupConv2d;
  return w;
}

}  // namespace

namespace {

void run_op_command(const OpArgs& a) {
  if (!a.log.empty()) {
    if (!a.record.empty() || !a.schedule.empty() || !a.op.empty()) {
      throw Error("op --log runs every record of a log: give no operator, --record or --schedule with it");
    }
    backend::run_op_log(backend::OpLogRequest{a.log, a.config, a.timing, a.report, a.csv, a.html, a.timing_only, a.check_hazards, a.force, a.bias, a.seed, !a.no_bitstreams},
               std::cout);
    return;
  }
  if (!a.csv.empty() || !a.html.empty()) throw Error("op: --csv and --html are for --log (one row per record)");
  if (a.no_bitstreams) throw Error("op: --no-bitstreams is for --log (a record's bitstream comes from its date)");
  check_can_write(a.report, a.force);
  hw::HwConfig config;
  lower::ConvWorkload w;
  lower::Schedule s;
  std::string source;
  std::vector<std::string> notes;
  double recorded_seconds = 0;
  if (!a.record.empty()) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(a.record);
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("--record: not a JSON line: {}", e.what()));
    }
    const std::optional<lower::TuningRecord> r = lower::parse_tuning_record(j, "--record", 1);
    if (!r) throw Error("--record: not a VTA record (its target has no -device=vta or its task is not a VTA task)");
    config = a.config.empty() ? hw::HwConfig::from_name(backend::record_board_model(*r, &notes)) : hw::load_config(a.config);
    // What TVM's template ran on the board (docs/timing_model.md: TVM's templates).
    const lower::TuningRecord as_run = lower::record_as_run(*r, &notes);
    w = as_run.workload;
    s = lower::record_schedule(as_run, config, &notes);
    recorded_seconds = lower::record_seconds(*r);
    source = fmt::format("record: {} on {}", lower::op_kind_task(w.kind), r->model);
  } else {
    if (a.op.empty()) throw Error("op: give the operator (conv2d, dense, group_conv2d, conv2d_transpose) or --record");
    config = hw::load_config(a.config);
  }
  if (const nlohmann::json t = hw::load_timing_override(a.timing); !t.is_null()) config = config.with_timing(t, "--timing");
  if (a.record.empty()) {
    w = workload_of(a);
    w.validate();
    if (!a.schedule.empty()) {
      s = lower::Schedule::parse(a.schedule);
      source = "given";
    } else {
      source = "default heuristic";
    }
  }
  backend::OpRunOptions o;
  o.timing_only = a.timing_only;
  o.check_hazards = a.check_hazards;
  o.seed = a.seed;
  o.bias = a.bias;
  o.tvm_template = !a.record.empty();  // a TVM record: as its template and task ran
  const backend::OpRun r =
      backend::run_op(config, w, source == "default heuristic" ? std::nullopt : std::optional(s), o);
  s = r.schedule;
  std::string out;
  out += fmt::format("{} on {}{}\n", w.to_string(), config.name(), a.timing_only ? "  [timing only]" : "");
  out += fmt::format("schedule: {} ({})\n", s.to_string(w.kind), source);
  for (const std::string& n : notes) out += fmt::format("note: {}\n", n);
  out += "\n";
  out += fmt::format("{:<26}{:>16}\n", "result", a.timing_only ? "not computed" : r.verified ? "verified" : "MISMATCH");
  out += fmt::format("{:<26}{:>16}\n", "cycles", r.report.cycles);
  out += fmt::format("{:<26}{:>16.3f}\n", fmt::format("time at {} MHz (us)", config.timing.clock_mhz), r.seconds_at_clock * 1e6);
  out += fmt::format("{:<26}{:>16.2f}  (peak {:.1f})\n", "GOPS at clock", r.gops, config.peak_gops());
  out += fmt::format("{:<26}{:>15.1f}%\n", "GEMM utilization",
                     100 * r.report.gemm_utilization() * backend::batch_rows_used(w.batch, config.batch()));
  out += fmt::format("{:<26}{:>16}\n", "instructions", r.insns);
  out += fmt::format("{:<26}{:>16}\n", "MACs", r.macs);
  if (recorded_seconds > 0 && std::isfinite(recorded_seconds)) {
    // The board's measurement from the log, shown beside the model's figure, never fed into it.
    out += fmt::format("{:<26}{:>16.3f}\n", "recorded on board (us)", recorded_seconds * 1e6);
  }
  if (const std::string warn = fpga::feasibility_warning(config, fpga::feasibility(config)); !warn.empty()) out += warn + "\n";
  std::cout << out;
  if (!a.report.empty()) {
    write_text(a.report, backend::op_report_json(config, w, source, r, notes, recorded_seconds).dump(2) + "\n", a.force);
  }
  if (!a.timing_only && !r.verified) throw Error("op result mismatch: " + r.mismatch);
  if (!r.report.hazards.empty()) {
    for (const sim::Hazard& h : r.report.hazards) std::cerr << "hazard: " << h.message() << "\n";
    throw Error(fmt::format("{} hazard(s) found", r.report.hazards.size()));
  }
}

}  // namespace

void add_op_command(CLI::App& app) {
  auto a = std::make_shared<OpArgs>();
  CLI::App* cmd = app.add_subcommand("op", "Run one conv2d/dense/group_conv2d workload with a schedule on the accelerator");
  cmd->add_option("op", a->op,
                  "conv2d, dense, group_conv2d or conv2d_transpose, or a whole workload spec such as "
                  "conv2d,ci=256,h=14,w=14,co=256,k=3,p=1 (not needed with --record)");
  cmd->add_option("--batch", a->batch, "Batch size (default 1)");
  cmd->add_option("--in-channels,--ci", a->in_channels, "Input channels (dense: K)");
  cmd->add_option("--height", a->height, "Input height");
  cmd->add_option("--width", a->width, "Input width");
  cmd->add_option("--out-channels,--co", a->out_channels, "Output channels (dense: N)");
  cmd->add_option("--kernel", a->kernel, "Kernel size: K or KHxKW (default 1)");
  cmd->add_option("--stride", a->stride, "Stride: S or SHxSW (default 1)");
  cmd->add_option("--pad", a->pad, "Padding: P, PHxPW or top,left,bottom,right (default 0)");
  cmd->add_option("--dilation", a->dilation, "Dilation: D or DHxDW (default 1)");
  cmd->add_option("--groups", a->groups, "Groups (default 1)");
  cmd->add_option("--output-padding", a->output_padding, "conv2d_transpose output padding");
  cmd->add_option("--schedule", a->schedule, "Knobs, e.g. tile_h=1x14,tile_w=2x7,tile_ci=4x1,tile_co=2x4,oc_nthread=2 (default: the heuristic)");
  cmd->add_option("--record", a->record, "One AutoTVM log line: run its workload with its knobs");
  cmd->add_option("--log", a->log, "An AutoTVM/TopHub log: run every VTA record in it, one row each");
  cmd->add_option("--csv", a->csv, "With --log: write the rows as CSV");
  cmd->add_option("--html", a->html, "With --log: a self-contained HTML report (predicted vs recorded time per record)");
  cmd->add_option("--config", a->config, "Hardware config JSON or VTA config name (default: a record's own, else pynq)");
  cmd->add_option("--timing", a->timing, "TIMING keys to replace in the config (inline JSON object or a JSON file), e.g. '{\"DRAM_LATENCY_CYCLES\": 60}'; "
                 "with --log, a record's bitstream keeps the values it documents (--no-bitstreams: none)");
  cmd->add_option("--seed", a->seed, "Random operands' seed (default 1)");
  cmd->add_flag("--no-bitstreams", a->no_bitstreams,
                "With --log: time every record with its config's HLS design, not the bitstream it was "
                "measured on where that differs (docs/timing_model.md, Bitstreams)");
  cmd->add_flag("--bias", a->bias, "Add a per-channel bias (kept in the accumulators; TVM's tuned tasks have none)");
  cmd->add_flag("--timing-only", a->timing_only, "Cycles only: nothing computed or verified");
  cmd->add_flag("--check-hazards", a->check_hazards, "Report SRAM accesses not ordered by tokens");
  cmd->add_option("--report", a->report, "Write cycles, time, GOPS and the schedule as JSON");
  cmd->add_flag("--force", a->force, "Overwrite an existing --report file");
  cmd->callback([a] { run_op_command(*a); });
}

static const CommandRegistrar kOpRegistrar("op", add_op_command);

}  // namespace tauvta::cli
