// The tuner's log: AutoTVM's JSON-lines records (input, config with entity, result [[costs],
// error_no, all_cost, timestamp], version), one appended and flushed per trial so a killed run
// loses nothing, readable by TVM and by `tauvta run --tuning-log`. Opening a log reads the trials
// already in it, so the same command continues where it stopped; pick_best keeps the best
// record per workload.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "hw/hw_config.h"
#include "lower/tuning_record.h"
#include "tune/measurer.h"

namespace tauvta::tune {

class TrialLog {
 public:
  // Opens (creating) `path` for appending and reads its records. A last line a killed run left
  // unfinished (no newline, not valid JSON) is cut off first and repair_note() says so; any other
  // malformed line is an error naming the file and line.
  explicit TrialLog(const std::filesystem::path& path);
  ~TrialLog();
  TrialLog(const TrialLog&) = delete;
  TrialLog& operator=(const TrialLog&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Records already in the log tuned on config `c` (same name and blocking) for workload `w`.
  std::vector<lower::TuningRecord> prior(const hw::HwConfig& c, const lower::ConvWorkload& w) const;
  size_t records() const { return records_.size(); }
  const std::string& repair_note() const { return repair_note_; }

  // One record, one line, flushed to the operating system before returning.
  void append(const nlohmann::json& record);

 private:
  std::filesystem::path path_;
  std::vector<lower::TuningRecord> records_;
  std::string repair_note_;
  std::FILE* file_ = nullptr;
};

// The record of one trial: AutoTVM's fields (the measured seconds at the clock as the cost, or
// AutoTVM's 1e9 for a failed trial) plus "tauvta": cycles, GOPS, the error text, whether it ran
// functionally and matched, the tuner, the trial number.
nlohmann::json trial_record(const hw::HwConfig& c, const lower::ConvWorkload& w, const lower::Schedule& s,
                            uint64_t config_index, const Measurement& m, double timestamp,
                            const nlohmann::json& extra);

struct PickBestSummary {
  size_t lines = 0;      // records read
  size_t kept = 0;       // records written (one per workload and target)
  size_t failed = 0;     // records without a successful measurement (or found wrong)
};

// Writes, for every (target, task, workload), the record with the lowest mean measured cost, as
// its original line. Refuses to replace an existing `out` unless `force`.
PickBestSummary pick_best(const std::filesystem::path& in, const std::filesystem::path& out, bool force);

}  // namespace tauvta::tune
