#include "tune/tuner.h"

#include <algorithm>

#include <chrono>
#include <cmath>
#include <ctime>
#include <future>
#include <map>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "lower/conv_plan.h"
#include "tune/features.h"

namespace tauvta::tune {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double unix_time() { return double(std::time(nullptr)); }

constexpr uint64_t kSlowerStop = 4;

}  // namespace

TaskResult tune_task(const TuneTask& task, const TuneOptions& o, Measurer& m, TrialLog* log,
                     const ProgressFn& progress, size_t index, size_t count) {
  const double t0 = now_seconds();
  const hw::HwConfig& c = m.config();
  const lower::ConvWorkload& w = task.workload();
  TaskResult r;
  r.task = task;
  r.tuner = o.searcher.kind;
  const KnobSpace space(c, w, task.needs);
  r.space_size = space.size();
  if (space.size() == 0) throw Error(fmt::format("{}: no schedule fits config {}", task.name, c.name()));
  const std::vector<float> features = o.searcher.kind == "xgb" ? space_features(c, w, space) : std::vector<float>{};
  SearcherOptions so = o.searcher;
  so.expected_trials = int(std::min<int64_t>(o.trials, int64_t(space.size())));
  std::unique_ptr<Searcher> searcher = make_searcher(so, space, features);

  // The default heuristic, measured the same way, for the end table.
  r.default_schedule = lower::default_schedule(c, w, task.needs);
  r.default_measure = m.measure(task.spec, std::span(&r.default_schedule, 1))[0];

  std::mt19937_64 rng(o.searcher.seed ^ 0x5bd1e995u);
  std::vector<size_t> sample;  // successful trials to run functionally
  uint64_t successes = 0;
  std::vector<double> gops_of(space.size(), -1);  // measured GOPS per point (-1: not measured)
  double best = 0;
  uint64_t best_cycles = 0;  // of the best so far (0: none yet)
  int64_t since_better = 0;
  auto record_trial = [&](size_t point, double gops) {
    ++r.trials;
    if (gops > best) {
      best = gops;
      r.best = space.schedule(point);
      since_better = 0;
    } else {
      ++since_better;
    }
    r.best_so_far.push_back(best);
  };

  // Resume: trials already in the log count and are never measured again.
  if (log) {
    std::vector<TrialResult> prior;
    for (const lower::TuningRecord& rec : log->prior(c, w)) {
      std::optional<size_t> p;
      try {
        p = space.find(lower::with_derived_outers(c, w, rec.schedule, nullptr));
      } catch (const Error&) {
      }
      if (!p) continue;
      if (gops_of[*p] >= 0) {
        // A later record of a measured schedule: the functional check found it wrong.
        if (rec.error_no == kWrongAnswer && gops_of[*p] > 0) {
          gops_of[*p] = 0;
          ++r.wrong;
        }
        continue;
      }
      const double seconds = lower::record_seconds(rec);
      const double gops = std::isfinite(seconds) && seconds > 0 ? 2.0 * double(task.macs()) / seconds / 1e9 : 0;
      if (rec.error_no != 0) ++r.errors;
      if (rec.error_no == kRunTimeout) ++r.stopped;
      if (rec.error_no == kWrongAnswer) ++r.wrong;
      prior.push_back({*p, gops});
      if (gops > 0) {
        const uint64_t cycles = uint64_t(std::llround(seconds * c.timing.clock_mhz * 1e6));
        if (best_cycles == 0 || cycles < best_cycles) best_cycles = cycles;
      }
      gops_of[*p] = gops;
      record_trial(*p, gops);
    }
    r.resumed = int64_t(prior.size());
    searcher->report(prior);
  }

  // One measured trial's bookkeeping, the same for given schedules and searched ones: its GOPS
  // (0 when it failed), the best measurement and the cycles that bound later candidates.
  auto take = [&](size_t point, const Measurement& mi) {
    if (!mi.ok()) ++r.errors;
    const double gops = mi.ok() ? mi.gops : 0;
    gops_of[point] = gops;
    if (mi.ok() && gops > best) r.best_measure = mi;
    if (mi.ok() && (best_cycles == 0 || mi.cycles < best_cycles)) best_cycles = mi.cycles;
    record_trial(point, gops);
    return gops;
  };

  // What the tuner was given is measured first, as trials: the default heuristic and the records
  // of this workload on this config it was handed. The best of a tuning is then never slower than
  // where it started (AutoTVM's transfer from TopHub likewise measures the records it starts from).
  {
    std::vector<lower::Schedule> given = {r.default_schedule};
    std::vector<std::string> origin = {"default heuristic"};
    if (o.given) {
      for (const lower::TuningRecord& rec : *o.given) {
        if (rec.workload == w && lower::record_config_name(rec) == c.name() && lower::record_blocking_matches(rec, c)) {
          given.push_back(rec.schedule);
          origin.push_back("given record");
        }
      }
    }
    std::vector<size_t> points;
    std::vector<lower::Schedule> schedules;
    std::vector<std::string> why;
    for (size_t i = 0; i < given.size() && int64_t(points.size()) + r.trials < o.trials; ++i) {
      std::optional<size_t> p;
      try {
        p = space.find(lower::with_derived_outers(c, w, given[i], nullptr));
      } catch (const Error&) {
      }
      if (!p || gops_of[*p] >= 0 || std::find(points.begin(), points.end(), *p) != points.end()) continue;
      points.push_back(*p);
      schedules.push_back(space.schedule(*p));
      why.push_back(origin[i]);
    }
    if (!points.empty()) {
      const double m0 = now_seconds();
      const std::vector<Measurement> ms = m.measure(task.spec, schedules);
      r.measure_seconds += now_seconds() - m0;
      r.measured += int64_t(points.size());
      std::vector<TrialResult> told;
      for (size_t i = 0; i < points.size(); ++i) {
        const Measurement& mi = ms[i];
        const double gops = take(points[i], mi);
        if (log) {
          const nlohmann::json extra = {{"tuner", searcher->name()}, {"trial", r.trials}, {"task", task.name},
                                        {"given", why[i]}};
          log->append(trial_record(c, w, schedules[i], space.config_index(points[i]), mi, unix_time(), extra));
        }
        told.push_back({points[i], gops});
      }
      searcher->report(told);
    }
  }

  auto show = [&](bool last) {
    if (!progress) return;
    TaskProgress p;
    p.task = index;
    p.tasks = count;
    p.t = &r.task;
    p.trials = r.trials;
    p.budget = std::min<int64_t>(o.trials, int64_t(space.size()));
    p.best_gops = best;
    const double wall = now_seconds() - t0;
    p.trials_per_second = wall > 0 ? double(r.measured) / wall : 0;
    progress(p, last);
  };

  while (r.trials < o.trials && !(o.early_stopping > 0 && since_better >= o.early_stopping && r.trials > 0)) {
    const size_t want = size_t(std::min<int64_t>(int64_t(o.batch), o.trials - r.trials));
    const std::vector<size_t> points = searcher->next(want);
    if (points.empty()) break;
    std::vector<lower::Schedule> schedules;
    schedules.reserve(points.size());
    for (size_t p : points) schedules.push_back(space.schedule(p));
    const double m0 = now_seconds();
    // Far slower candidates (the tail of tiny tiles and thousands of instructions) are the
    // costliest to time and teach the model little beyond "bad": stop them at kSlowerStop times
    // the best cycles so far.
    const uint64_t limit = o.stop_slower && best_cycles > 0 ? best_cycles * kSlowerStop : UINT64_MAX;
    std::vector<Measurement> ms = m.measure(task.spec, schedules, limit);
    r.measure_seconds += now_seconds() - m0;
    r.measured += int64_t(points.size());
    std::vector<TrialResult> told;
    for (size_t i = 0; i < points.size(); ++i) {
      const Measurement& mi = ms[i];
      if (mi.error_no == kRunTimeout) ++r.stopped;
      const double gops = take(points[i], mi);
      if (mi.ok()) {
        // Reservoir sample of the successful trials for the functional check.
        ++successes;
        if (int64_t(sample.size()) < o.verify_sample) {
          sample.push_back(points[i]);
        } else if (o.verify_sample > 0) {
          const uint64_t k = std::uniform_int_distribution<uint64_t>(0, successes - 1)(rng);
          if (k < uint64_t(o.verify_sample)) sample[size_t(k)] = points[i];
        }
      }
      if (log) {
        const nlohmann::json extra = {{"tuner", searcher->name()}, {"trial", r.trials}, {"task", task.name}};
        log->append(trial_record(c, w, schedules[i], space.config_index(points[i]), mi, unix_time(), extra));
      }
      // A candidate stopped at the cycle limit tells the searcher the GOPS it could at most
      // reach (its cycles so far are a lower bound): below the best, still ranked.
      const double told_gops = mi.error_no == kRunTimeout && mi.cycles > 0 ? c.gops(task.macs(), mi.cycles) : gops;
      told.push_back({points[i], told_gops});
    }
    searcher->report(told);
    show(false);
  }
  r.importance = searcher->feature_importance();
  r.early_stopped = o.early_stopping > 0 && since_better >= o.early_stopping && r.trials < o.trials &&
                    searcher->remaining() > 0;

  // The functional check: the best first (the next best takes its place while one differs),
  // then the sample. A wrong trial is appended to the log again with AutoTVM's WRONG_ANSWER, so
  // readers that keep the last word on a schedule (and pick-best's cost ranking) never choose it.
  auto mark_wrong = [&](size_t point, const std::string& why) {
    ++r.wrong;
    gops_of[point] = 0;
    if (!log) return;
    Measurement wm;
    wm.error_no = kWrongAnswer;
    wm.error = "the functional run differs from the integer reference: " + why;
    const nlohmann::json extra = {{"tuner", searcher->name()}, {"task", task.name}, {"verified", false}};
    log->append(trial_record(c, w, space.schedule(point), space.config_index(point), wm, unix_time(), extra));
  };
  uint64_t vseed = o.searcher.seed;
  if (o.verify) {
    // The sample runs on other threads while this one checks the best (functional runs of a
    // whole layer are the slowest step of a task).
    std::vector<std::pair<size_t, std::future<std::string>>> checks;
    for (size_t p : sample) {
      if (gops_of[p] <= 0) continue;
      const uint64_t seed = vseed + 1000 + checks.size();
      checks.emplace_back(p, std::async(std::launch::async, [&c, &task, &space, p, seed] {
                            return verify_schedule(c, task.spec, space.schedule(p), seed);
                          }));
    }
    size_t best_checked = space.size();
    for (;;) {
      size_t top = space.size();
      for (size_t p = 0; p < space.size(); ++p) {
        if (gops_of[p] > 0 && (top == space.size() || gops_of[p] > gops_of[top])) top = p;
      }
      if (top == space.size()) break;
      const std::string why = verify_schedule(c, task.spec, space.schedule(top), vseed++);
      if (why.empty()) {
        ++r.verified;
        r.best_verified = true;
        best_checked = top;
        break;
      }
      mark_wrong(top, why);
    }
    for (auto& [p, check] : checks) {
      const std::string why = check.get();
      if (p == best_checked) continue;  // counted once
      if (why.empty()) {
        ++r.verified;
      } else if (gops_of[p] > 0) {
        mark_wrong(p, why);
      }
    }
  }
  // The best is the best measured point that is not known to be wrong.
  best = 0;
  r.best.reset();
  for (size_t p = 0; p < space.size(); ++p) {
    if (gops_of[p] > best) {
      best = gops_of[p];
      r.best = space.schedule(p);
    }
  }
  // A best read back from the log was measured by another run: measure it here too.
  if (r.best && (r.best_measure.cycles == 0 || std::abs(r.best_measure.gops - best) > 1e-9 * best)) {
    r.best_measure = m.measure(task.spec, std::span(&*r.best, 1))[0];
  }
  for (size_t i = 0; i < r.best_so_far.size(); ++i) {
    if (r.best_so_far[i] >= 0.95 * best) {
      r.trials_to_95 = int64_t(i) + 1;
      break;
    }
  }
  r.wall_seconds = now_seconds() - t0;
  show(true);
  return r;
}

TransferSet transfer_set(const std::vector<lower::TuningRecord>& records, const hw::HwConfig& c,
                         const lower::ConvWorkload* exclude) {
  struct Row {
    std::vector<float> x;
    double gops;
  };
  std::map<std::pair<std::string, lower::ConvWorkload>, std::vector<Row>> groups;
  std::map<std::string, std::optional<hw::HwConfig>> configs;
  const size_t nf = num_features();
  for (const lower::TuningRecord& rec : records) {
    const double seconds = lower::record_seconds(rec);
    if (!std::isfinite(seconds) || seconds <= 0) continue;
    const std::string name = lower::record_config_name(rec);
    if (exclude && rec.workload == *exclude && name == c.name()) continue;
    auto it = configs.find(name);
    if (it == configs.end()) {
      std::optional<hw::HwConfig> hc;
      try {
        hc = name == c.name() ? c : hw::HwConfig::from_name(name);
      } catch (const Error&) {
      }
      it = configs.emplace(name, hc).first;
    }
    if (!it->second) continue;
    const hw::HwConfig& rc = *it->second;
    try {
      const lower::Schedule s = lower::record_schedule(rec, rc, nullptr);
      const lower::ConvTiling t = lower::resolve_schedule(rc, rec.workload, s, lower::LayerNeeds{0, false});
      Row row{std::vector<float>(nf), 2.0 * double(rec.workload.macs()) / seconds / 1e9};
      schedule_features(rc, rec.workload, lower::conv_geometry(rc, rec.workload), t, row.x);
      groups[{name, rec.workload}].push_back(std::move(row));
    } catch (const Error&) {
      // A record this build cannot resolve (another blocking, an illegal tile): not evidence.
    }
  }
  TransferSet out;
  for (const auto& [key, rows] : groups) {
    double best = 0;
    for (const Row& row : rows) best = std::max(best, row.gops);
    for (const Row& row : rows) {
      out.rows.insert(out.rows.end(), row.x.begin(), row.x.end());
      out.scores.push_back(float(row.gops / best));
    }
    out.groups.push_back(unsigned(rows.size()));
  }
  return out;
}

}  // namespace tauvta::tune
