#include "tune/trial_log.h"

#include <cmath>
#include <fstream>
#include <set>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_parse.h"

namespace tauvta::tune {

using nlohmann::json;

namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open tuning log", path.string()));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("{}: read error", path.string()));
  return s.str();
}

// Calls f(line_number, text) for every line of `text`; the last line's text lacks its newline.
template <typename F>
void for_lines(const std::string& text, F f) {
  size_t at = 0;
  int64_t line = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    ++line;
    f(line, text.substr(at, (end == std::string::npos ? text.size() : end) - at), end != std::string::npos);
    if (end == std::string::npos) break;
    at = end + 1;
  }
}

bool blank_or_comment(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t\r");
  return first == std::string::npos || s[first] == '#';
}

}  // namespace

TrialLog::TrialLog(const std::filesystem::path& path) : path_(path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format("{}: is a directory, not a log", path.string()));
    const std::string text = read_all(path);
    size_t keep = text.size();  // bytes to keep (a torn last line is cut)
    size_t offset = 0;
    for_lines(text, [&](int64_t line, const std::string& s, bool terminated) {
      const size_t line_start = offset;
      offset += s.size() + (terminated ? 1 : 0);
      if (blank_or_comment(s)) return;
      json j;
      try {
        j = parse_json_bounded(fmt::format("{}:{}", path.string(), line), s);
      } catch (const json::exception& e) {
        if (!terminated) {
          keep = line_start;
          repair_note_ = fmt::format("{}:{}: removed an unfinished last record ({} bytes; a run stopped while "
                                     "writing it)",
                                     path.string(), line, s.size());
          return;
        }
        throw Error(fmt::format("{}:{}: not a JSON record: {}", path.string(), line, e.what()));
      }
      if (std::optional<lower::TuningRecord> r = lower::parse_tuning_record(j, path.string(), line)) {
        records_.push_back(std::move(*r));
      }
    });
    if (keep < text.size()) {
      std::filesystem::resize_file(path, keep, ec);
      if (ec) throw Error(fmt::format("{}: cannot remove the unfinished last record: {}", path.string(), ec.message()));
    } else if (!text.empty() && text.back() != '\n') {
      // A complete record without its newline: end the line before appending.
      std::ofstream(path, std::ios::app) << '\n';
    }
  }
  file_ = std::fopen(path.c_str(), "ab");
  if (!file_) throw Error(fmt::format("{}: cannot open the tuning log for appending", path.string()));
}

TrialLog::~TrialLog() {
  if (file_) std::fclose(file_);
}

std::vector<lower::TuningRecord> TrialLog::prior(const hw::HwConfig& c, const lower::ConvWorkload& w) const {
  std::vector<lower::TuningRecord> out;
  for (const lower::TuningRecord& r : records_) {
    if (r.workload == w && lower::record_config_name(r) == c.name() && lower::record_blocking_matches(r, c)) {
      out.push_back(r);
    }
  }
  return out;
}

void TrialLog::append(const json& record) {
  const std::string line = record.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
    throw Error(fmt::format("{}: cannot write the tuning log", path_.string()));
  }
}

json trial_record(const hw::HwConfig& c, const lower::ConvWorkload& w, const lower::Schedule& s,
                  uint64_t config_index, const Measurement& m, double timestamp, const json& extra) {
  const std::vector<double> costs = m.ok() ? std::vector<double>{m.seconds} : std::vector<double>{1e9};
  json j = lower::tuning_record_json(c, w, s, costs, m.error_no, timestamp, int64_t(config_index));
  j["result"][2] = m.wall_seconds;
  json t = extra;
  t["cycles"] = m.cycles;
  t["gops"] = m.gops;
  t["insns"] = m.insns;
  if (!m.ok()) t["error"] = m.error;
  j["tauvta"] = t;
  return j;
}

PickBestSummary pick_best(const std::filesystem::path& in, const std::filesystem::path& out, bool force) {
  std::error_code ec;
  if (!force && std::filesystem::exists(out, ec)) {
    throw Error(fmt::format("{}: file exists (use --force to replace it)", out.string()));
  }
  if (std::filesystem::exists(out, ec) && std::filesystem::equivalent(in, out, ec)) {
    throw Error(fmt::format("{}: pick-best would overwrite its own input", out.string()));
  }
  const std::string text = read_all(in);
  // Every record as (key, schedule, cost): VTA records keyed by target, task and workload;
  // other targets' by their whole input, with their mean cost when they succeeded.
  struct Entry {
    std::string key, schedule, line;
    double cost;
    int64_t error_no;
  };
  std::vector<Entry> entries;
  for_lines(text, [&](int64_t line, const std::string& s, bool) {
    if (blank_or_comment(s)) return;
    json j;
    try {
      j = json::parse(s);
    } catch (const json::exception& e) {
      throw Error(fmt::format("{}:{}: not a JSON record: {}", in.string(), line, e.what()));
    }
    Entry e{"", "", s, std::numeric_limits<double>::infinity(), 0};
    if (std::optional<lower::TuningRecord> r = lower::parse_tuning_record(j, in.string(), line)) {
      e.key = fmt::format("{}|{}|{}", r->target, lower::op_kind_task(r->workload.kind), r->workload.to_string());
      e.schedule = r->schedule.to_string(r->workload.kind);
      e.cost = lower::record_seconds(*r);
      e.error_no = r->error_no;
    } else {
      if (!j.contains("input") || !j.contains("result")) {
        throw Error(fmt::format("{}:{}: not an AutoTVM record (no input or result)", in.string(), line));
      }
      e.key = j["input"].dump();
      e.schedule = j.contains("config") ? j["config"].dump() : "";
      const json& res = j["result"];
      if (res.is_array() && res.size() >= 2 && res[1] == 0 && res[0].is_array() && !res[0].empty()) {
        double total = 0;
        for (const json& c : res[0]) total += c.is_number() ? c.get<double>() : std::numeric_limits<double>::infinity();
        e.cost = total / double(res[0].size());
      }
      if (res.is_array() && res.size() >= 2 && res[1].is_number_integer()) e.error_no = res[1].get<int64_t>();
    }
    entries.push_back(std::move(e));
  });
  // A schedule the functional check found wrong is never a best, whatever it measured.
  std::set<std::pair<std::string, std::string>> wrong;
  for (const Entry& e : entries) {
    if (e.error_no == kWrongAnswer) wrong.insert({e.key, e.schedule});
  }
  PickBestSummary sum;
  sum.lines = entries.size();
  std::map<std::string, size_t> best;  // key -> entry
  std::vector<std::string> order;      // keys in order of first appearance
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (!std::isfinite(e.cost) || wrong.count({e.key, e.schedule})) {
      ++sum.failed;
      continue;
    }
    auto it = best.find(e.key);
    if (it == best.end()) {
      best.emplace(e.key, i);
      order.push_back(e.key);
    } else if (e.cost < entries[it->second].cost) {
      it->second = i;
    }
  }
  std::string kept_lines;
  for (const std::string& k : order) (kept_lines += entries[best.at(k)].line) += '\n';
  write_file_atomic(out, kept_lines);
  sum.kept = order.size();
  return sum;
}

}  // namespace tauvta::tune
