#include <map>
#include <set>

#include <fmt/format.h>

#include "backend/build_network.h"
#include "common/error.h"
#include "lower/conv_plan.h"
#include "lower/tuning_record.h"

namespace tauvta::backend {

CompileOptions tuning_log_options(const std::string& path, const hw::HwConfig& c, nlohmann::json& report) {
  CompileOptions o;
  if (path.empty()) return o;
  const lower::TuningLog log = lower::read_tuning_log(path);
  size_t matching = 0;
  // Schedules a functional check found wrong (the tuner appends AutoTVM's WRONG_ANSWER after
  // the timing record) never apply, whatever their measured time.
  std::set<std::pair<lower::ConvWorkload, lower::Schedule>> wrong;
  for (const lower::TuningRecord& r : log.records) {
    if (r.error_no == lower::kWrongAnswer) wrong.insert({r.workload, r.schedule});
  }
  std::map<lower::ConvWorkload, std::pair<double, const lower::TuningRecord*>> best;
  for (const lower::TuningRecord& r : log.records) {
    if (lower::record_config_name(r) != c.name() || !lower::record_blocking_matches(r, c) || r.error_no != 0) continue;
    if (wrong.count({r.workload, r.schedule})) continue;
    ++matching;
    const double cost = lower::record_seconds(r);
    auto it = best.find(r.workload);
    if (it == best.end() || cost < it->second.first) best[r.workload] = {cost, &r};
  }
  for (const auto& [w, rec] : best) {
    lower::Schedule s = rec.second->schedule;
    try {
      s = lower::with_derived_outers(c, w, s, nullptr);
    } catch (const Error&) {
      // The workload cannot run on this config at all; no layer will ask for it.
    }
    o.schedules[w] = ScheduleChoice{s, fmt::format("{} line {}", path, rec.second->line)};
  }
  report["tuning_log"] = {{"path", path},
                          {"records", log.records.size()},
                          {"other_records", log.other_records},
                          {"for_this_config", matching},
                          {"workloads", best.size()}};
  return o;
}

}  // namespace tauvta::backend
