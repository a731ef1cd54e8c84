// AutoTVM tuning logs: lower::read_tuning_log (what `tauvta run --tuning-log` reads) and
// tune::TrialLog (the tuner's resumable log, which also repairs a torn last line). Every record
// read is applied to the config it names (lower::record_schedule) and written back with
// lower::tuning_record_json, which must parse to the same workload and schedule.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "fuzz_target.h"
#include "hw/hw_config.h"
#include "lower/tuning_record.h"
#include "tune/trial_log.h"

TAUVTA_FUZZ_TARGET(tuning_log) {
  using namespace tauvta;
  const fuzz::TempFile in(data, size, ".jsonl");
  lower::TuningLog log;
  try {
    log = lower::read_tuning_log(in.path());
  } catch (const Error&) {
    // refused; the tuner's reader below still gets the file (it repairs a torn last line)
  }
  for (const lower::TuningRecord& r : log.records) {
    (void)lower::record_seconds(r);
    hw::HwConfig c;
    try {
      c = hw::HwConfig::from_name(lower::record_config_name(r));
    } catch (const Error&) {
      continue;  // a record for a config this build cannot describe: nothing to apply it to
    }
    std::vector<std::string> notes;
    try {
      (void)lower::record_schedule(r, c, &notes);
    } catch (const Error&) {
      // a schedule that does not apply to the config: refused with a message, as `run` does
    }
    if (!lower::record_blocking_matches(r, c)) continue;
    const nlohmann::json j = lower::tuning_record_json(c, r.workload, r.schedule, r.costs, r.error_no, r.timestamp,
                                                       r.config_index);
    const std::optional<lower::TuningRecord> back = lower::parse_tuning_record(j, "written", 1);
    fuzz::check(back.has_value(), "tuning_record_json wrote a record parse_tuning_record skips: " + j.dump());
    fuzz::check(back->workload == r.workload, "the written record's workload differs: " + j.dump());
    fuzz::check(back->schedule.to_entity(r.workload.kind) == r.schedule.to_entity(r.workload.kind),
                "the written record's schedule differs: " + j.dump());
  }
  // The tuner's reader: same records, and it may cut a torn last line off the file.
  const tune::TrialLog trials(in.path());
  (void)trials.records();
}
