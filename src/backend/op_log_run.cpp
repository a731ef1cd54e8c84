#include "backend/op_log_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/network_report.h"
#include "backend/op_runner.h"
#include "common/file_io.h"
#include "hw/bitstreams.h"
#include "hw/config_file.h"
#include "report/html_file.h"
#include "common/progress.h"
#include "common/error.h"
#include "fpga/feasibility.h"
#include "lower/conv_plan.h"
#include "lower/tuning_record.h"

namespace tauvta::backend {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size();
  return m == 0 ? 0.0 : m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

// The UTC day a record was measured on (YYYY-MM-DD): one tuning session.
std::string measured_day(double timestamp) {
  const auto t = std::chrono::sys_seconds{std::chrono::seconds{int64_t(timestamp)}};
  const std::chrono::year_month_day d{std::chrono::floor<std::chrono::days>(t)};
  return fmt::format("{:04}-{:02}-{:02}", int(d.year()), unsigned(d.month()), unsigned(d.day()));
}

struct OpLogRow {
  const lower::TuningRecord* record = nullptr;
  const hw::Bitstream* bitstream = nullptr;  // the bitstream it was timed with, if not the HLS design
  std::string config_name;
  std::string timed_workload;  // the workload TVM's template computed (empty if its config failed)
  lower::Schedule schedule;
  std::vector<std::string> notes;
  OpRun run;
  std::string error;  // non-empty: the record could not run
};

}  // namespace

std::string record_board_model(const lower::TuningRecord& r, std::vector<std::string>* notes) {
  const hw::HwConfig own = hw::HwConfig::from_name(r.model);
  if (lower::record_blocking_matches(r, own)) return r.model;
  const hw::BoardConfig* b = hw::board_config_with_shape(r.model, int(r.block_batch), int(r.block_in), int(r.block_out));
  if (b == nullptr) return r.model;
  if (notes) {
    notes->push_back(fmt::format("the record's tensors are blocked {}x{} (out {}), which only a GEMM core of that "
                                 "shape computes (TVM tensorizes with its environment's shape): timed on the board "
                                 "config {} ({}), not {}",
                                 r.block_batch, r.block_in, r.block_out, b->model, b->evidence, r.model));
  }
  return b->model;
}

nlohmann::json run_op_log(const OpLogRequest& a, std::ostream& terminal) {
  check_can_write(a.report, a.force);
  check_can_write(a.csv, a.force);
  check_can_write(a.html, a.force);
  const lower::TuningLog log = lower::read_tuning_log(a.log);
  if (log.records.empty()) throw Error(fmt::format("{}: no VTA records", a.log));
  std::map<std::string, hw::HwConfig> configs;  // the record's -model= name -> config
  const nlohmann::json timing = hw::load_timing_override(a.timing);
  auto with_timing = [&](const hw::HwConfig& c) { return timing.is_null() ? c : c.with_timing(timing, "--timing"); };
  // A bad key or value is the command's error, said once, not every record's.
  if (!timing.is_null()) (void)with_timing(a.config.empty() ? hw::HwConfig::from_name(log.records.front().model) : hw::load_config(a.config));
  const std::optional<hw::HwConfig> fixed = a.config.empty() ? std::nullopt : std::optional(with_timing(hw::load_config(a.config)));
  OpRunOptions o;
  o.timing_only = a.timing_only;
  o.check_hazards = a.check_hazards;
  o.seed = a.seed;
  o.bias = a.bias;
  o.tvm_template = true;  // every record as its template and task ran
  std::vector<OpLogRow> rows;
  const auto started = std::chrono::steady_clock::now();
  for (const lower::TuningRecord& r : log.records) {
    OpLogRow row;
    row.record = &r;
    try {
      const std::string model = fixed ? r.model : record_board_model(r, &row.notes);
      hw::HwConfig c = fixed ? *fixed : hw::HwConfig::from_name(model);
      if (!fixed) {
        // --timing replaces the presets' values; a bitstream's own values go on top, since the
        // record ran that hardware (a calibration fit of the board-level parameters must not
        // move what a bitstream documents as different). --no-bitstreams leaves --timing alone.
        c = with_timing(c);
        row.bitstream = a.bitstreams ? hw::bitstream_of(model, r.timestamp) : nullptr;
        if (row.bitstream != nullptr) {
          c = c.with_timing(hw::bitstream_timing(*row.bitstream),
                            fmt::format("bitstream {}", row.bitstream->name));
        }
      }
      configs.emplace(c.target + "_" + c.name() + (row.bitstream ? fmt::format(" ({})", row.bitstream->name) : ""), c);
      row.config_name = c.name();
      // Time what TVM's template ran on the board (a transposed convolution over its dilated input).
      const lower::TuningRecord as_run = lower::record_as_run(r, &row.notes);
      row.timed_workload = as_run.workload.to_string();
      row.schedule = lower::record_schedule(as_run, c, &row.notes);
      row.run = run_op(c, as_run.workload, row.schedule, o);
      if (!a.timing_only && !row.run.verified) row.error = "MISMATCH: " + row.run.mismatch;
      if (!row.run.report.hazards.empty()) row.error = fmt::format("{} hazard(s): {}", row.run.report.hazards.size(), row.run.report.hazards[0].message());
    } catch (const Error& e) {
      row.error = e.what();
    }
    rows.push_back(std::move(row));
    show_progress(fmt::format("records {}/{}", rows.size(), log.records.size()), int64_t(rows.size()),
                  rows.size() == log.records.size(), 20);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::string out = fmt::format("{}: {} VTA records ({} of other targets skipped){}\n\n", a.log,
                                log.records.size(), log.other_records, a.timing_only ? "  [timing only]" : "");
  out += fmt::format("{:>5}  {:<17}{:<27}{:<60}{:>10}{:>10}{:>7}{:>6}{:>11}{:>8}  {}\n", "line", "task", "config",
                     "workload", "cycles", "model us", "GOPS", "util", "board us", "error", "result");
  int failed = 0;
  nlohmann::json jrows = nlohmann::json::array();
  std::string csv = "line,task,config,workload,schedule,cycles,seconds_at_clock,gops,gemm_utilization,board_seconds,error,result\n";
  std::vector<double> mag;  // |model - board| / board of every record that ran and has a board time
  // The signed errors by kind of record: template, kernel (1x1 layers behave apart) and config;
  // and by session (the day it was measured, its config and bitstream).
  std::map<std::string, std::vector<double>> by_kind, by_session;
  std::map<const hw::Bitstream*, int> bitstream_records;
  for (const OpLogRow& row : rows) {
    const lower::TuningRecord& r = *row.record;
    const double board = lower::record_seconds(r);
    const std::string task = lower::op_kind_name(r.workload.kind);
    const std::string result = !row.error.empty() ? row.error : a.timing_only ? "timed" : "verified";
    if (!row.error.empty()) ++failed;
    const bool ran = row.error.empty() || row.error.rfind("MISMATCH", 0) == 0;
    const std::string board_us = std::isfinite(board) ? fmt::format("{:.1f}", board * 1e6) : "-";
    const bool compared = ran && std::isfinite(board) && board > 0;
    const double error = compared ? (row.run.seconds_at_clock - board) / board : 0.0;
    if (compared) {
      mag.push_back(std::fabs(error));
      by_kind[fmt::format("{} k{}x{} on {}", lower::op_kind_task(r.workload.kind), r.workload.kernel_h,
                          r.workload.kernel_w, row.config_name)]
          .push_back(error);
      by_session[fmt::format("measured {} on {}{}", measured_day(r.timestamp), row.config_name,
                             row.bitstream ? fmt::format(", bitstream {}", row.bitstream->name) : "")]
          .push_back(error);
    }
    if (row.bitstream != nullptr) ++bitstream_records[row.bitstream];
    if (ran) {
      out += fmt::format("{:>5}  {:<17}{:<27}{:<60}{:>10}{:>10.1f}{:>7.2f}{:>5.0f}%{:>11}{:>8}  {}\n", r.line, task,
                         row.config_name, r.workload.to_string(), row.run.report.cycles,
                         row.run.seconds_at_clock * 1e6, row.run.gops, 100 * row.run.report.gemm_utilization(),
                         board_us, compared ? fmt::format("{:+.1f}%", 100 * error) : "-", result);
    } else {
      out += fmt::format("{:>5}  {:<17}{:<27}{:<60}  error: {}\n", r.line, task, row.config_name,
                         r.workload.to_string(), row.error);
    }
    nlohmann::json j = {{"line", r.line},
                        {"task", lower::op_kind_task(r.workload.kind)},
                        {"model", r.model},
                        {"workload", r.workload.to_string()},
                        {"schedule", row.schedule.to_string(r.workload.kind)},
                        {"schedule_entity", row.schedule.to_entity(r.workload.kind)},
                        {"notes", row.notes},
                        {"timed_workload", row.timed_workload.empty() ? r.workload.to_string() : row.timed_workload},
                        {"measured", r.timestamp > 0 ? measured_day(r.timestamp) : std::string()},
                        {"bitstream", row.bitstream ? row.bitstream->name : "HLS design"},
                        {"result", result}};
    if (ran) {
      j["cycles"] = row.run.report.cycles;
      j["seconds_at_clock"] = row.run.seconds_at_clock;
      j["gops"] = row.run.gops;
      j["gemm_utilization"] = row.run.report.gemm_utilization();
      j["macs"] = row.run.macs;
    }
    if (std::isfinite(board)) j["board_seconds"] = board;
    if (compared) j["error"] = error;
    jrows.push_back(j);
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", r.line, lower::op_kind_task(r.workload.kind),
                       row.config_name, csv_field(r.workload.to_string()),
                       csv_field(row.schedule.to_string(r.workload.kind)), ran ? fmt::format("{}", row.run.report.cycles) : "",
                       ran ? fmt::format("{}", row.run.seconds_at_clock) : "", ran ? fmt::format("{}", row.run.gops) : "",
                       ran ? fmt::format("{}", row.run.report.gemm_utilization()) : "",
                       std::isfinite(board) ? fmt::format("{}", board) : "", compared ? fmt::format("{}", error) : "",
                       csv_field(result));
  }
  out += fmt::format("\n{} of {} records {} in {:.2f} s\n", rows.size() - size_t(failed), rows.size(),
                     a.timing_only ? "timed" : "verified bit-exact", wall);
  nlohmann::json used = nlohmann::json::array();
  for (const auto& [b, n] : bitstream_records) {
    out += fmt::format("{} record(s) timed with bitstream {} ({} measured {} to {}): TIMING {}\n", n,
                       b->name, b->config, b->measured_from, b->measured_to, hw::bitstream_timing(*b).dump());
    nlohmann::json jb = hw::to_json(*b);
    jb["records"] = n;
    used.push_back(jb);
  }
  nlohmann::json summary = nlohmann::json::object();
  if (!mag.empty()) {
    std::sort(mag.begin(), mag.end());
    const size_t m = mag.size();
    const double median = median_of(mag);
    const size_t over35 = size_t(std::count_if(mag.begin(), mag.end(), [](double e) { return e > 0.35; }));
    out += fmt::format("model vs board over {} records: median |error| {:.1f}%, max |error| {:.1f}%, {} above 35%\n", m,
                       100 * median, 100 * mag.back(), over35);
    summary = {{"records", m}, {"median_abs_error", median}, {"max_abs_error", mag.back()}, {"above_35_percent", over35}};
    auto kind_table = [&out](const char* title, const std::map<std::string, std::vector<double>>& groups) {
      out += fmt::format("{:<76}{:>8}{:>16}{:>16}{:>16}\n", title, "records", "median error",
                         "median |error|", "max |error|");
      nlohmann::json kinds = nlohmann::json::array();
      for (const auto& [kind, errors] : groups) {
        std::vector<double> abs_errors;
        for (double e : errors) abs_errors.push_back(std::fabs(e));
        const double med = median_of(errors), med_abs = median_of(abs_errors);
        const double worst = *std::max_element(abs_errors.begin(), abs_errors.end());
        out += fmt::format("{:<76}{:>8}{:>15.1f}%{:>15.1f}%{:>15.1f}%\n", kind, errors.size(), 100 * med,
                           100 * med_abs, 100 * worst);
        kinds.push_back({{"kind", kind}, {"records", errors.size()}, {"median_error", med},
                         {"median_abs_error", med_abs}, {"max_abs_error", worst}});
      }
      return kinds;
    };
    summary["by_kind"] = kind_table("by kind (template, kernel, config)", by_kind);
    summary["by_session"] = kind_table("by session (day measured, config, bitstream)", by_session);
  }
  terminal << out;
  nlohmann::json cfgs = nlohmann::json::object();
  for (const auto& [name, c] : configs) cfgs[name] = c.to_json();
  const nlohmann::json j = {{"log", a.log}, {"timing_only", a.timing_only}, {"configs", cfgs},
                            {"records", jrows}, {"board_comparison", summary}, {"bitstreams", used}, {"failed", failed}, {"wall_seconds", wall}};
  if (!a.report.empty()) write_text(a.report, j.dump(2) + "\n", a.force);
  if (!a.csv.empty()) write_text(a.csv, csv, a.force);
  if (!a.html.empty()) {
    report::Page page;
    page.kind = report::PageKind::kOpLog;
    page.title = fmt::format("tauvta op --log {}: model vs board", a.log);
    page.config = configs.size() == 1 ? configs.begin()->second.to_json() : nlohmann::json(nullptr);
    page.report = j;
    report::write_html_report(a.html, std::move(page), a.force);
  }
  if (failed) throw Error(fmt::format("{} of {} records failed (see the table)", failed, rows.size()));
  return j;
}

nlohmann::json op_report_json(const hw::HwConfig& config, const lower::ConvWorkload& w, const std::string& source,
                              const OpRun& r, const std::vector<std::string>& notes, double recorded_seconds) {
  nlohmann::json j = r.report.to_json(config);
  j["workload"] = w.to_string();
  j["task"] = lower::op_kind_task(w.kind);
  j["schedule"] = r.schedule.to_string(w.kind);
  j["schedule_entity"] = r.schedule.to_entity(w.kind);
  j["schedule_source"] = source;
  j["seconds_at_clock"] = r.seconds_at_clock;
  j["gops"] = r.gops;
  // GEMM rows used (the table's figure), not micro-ops issued.
  j["gemm_utilization"] = r.report.gemm_utilization() * batch_rows_used(w.batch, config.batch());
  j["macs"] = r.macs;
  j["verified"] = r.verified;
  j["config"] = config.to_json();
  j["feasibility"] = fpga::to_json(fpga::feasibility(config));
  j["notes"] = notes;
  if (recorded_seconds > 0 && std::isfinite(recorded_seconds)) j["recorded_seconds"] = recorded_seconds;
  return j;
}

}  // namespace tauvta::backend
