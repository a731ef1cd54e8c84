#include "dse/evaluator.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/elapsed.h"
#include "common/error.h"
#include "common/fnv1a.h"
#include "lower/conv_plan.h"
#include "lower/program.h"
#include "tune/staged_log.h"
#include "tune/trial_log.h"
#include "tune/tuner.h"

namespace tauvta::dse {

namespace {

void fill_resources(Evaluation& e, const fpga::ResourceEstimate& r, const fpga::Device& device) {
  e.resources = r.total;
  e.fmax_mhz = r.clock.fmax_mhz;
  e.critical_stage = fpga::stage_name(r.clock.critical);
  e.feasible = r.feasible();
  e.reason = fpga::verdict_text(r, device);
  e.verdict = r.verdict == fpga::Verdict::kFits           ? "fits"
              : r.verdict == fpga::Verdict::kMissesClock ? "misses clock"
                                                         : std::string("over ") + fpga::resource_name(r.over);
}

}  // namespace

nlohmann::json to_json(const Evaluation& e) {
  nlohmann::json j;
  j["key"] = e.key;
  j["precision"] = e.precision;
  j["design"] = std::vector<int>(e.design.begin(), e.design.end());
  j["budget"] = e.budget;
  j["feasible"] = e.feasible;
  j["reason"] = e.reason;
  j["verdict"] = e.verdict;
  j["resources"] = {{"lut", e.resources.lut}, {"ff", e.resources.ff}, {"dsp", e.resources.dsp},
                    {"bram36", e.resources.bram36}, {"uram", e.resources.uram}};
  j["fmax_mhz"] = e.fmax_mhz;
  j["clock_mhz"] = e.clock_mhz;
  j["peak_gops"] = e.peak_gops;
  j["critical_stage"] = e.critical_stage;
  j["cycles"] = e.cycles;
  j["macs"] = e.macs;
  j["gops"] = e.gops;
  j["latency_ms"] = e.latency_ms;
  if (e.accuracy >= 0) {  // judged again on reading (the bound may differ)
    j["accuracy"] = e.accuracy;
    j["accumulator_wrap_rate"] = e.wrap_rate;
    j["accumulator_warnings"] = e.accumulator_warnings;
  }
  // Screened designs are most of a cache: their tasks are cycle counts only (the heuristic's
  // schedules are the compiler's own, and the mapped config follows from the design).
  nlohmann::json tasks = nlohmann::json::array();
  for (const TaskTime& t : e.tasks) {
    if (e.budget <= 0) {
      tasks.push_back({t.cycles, t.layers, t.macs});
    } else {
      tasks.push_back({{"name", t.name}, {"layers", t.layers}, {"cycles", t.cycles}, {"macs", t.macs},
                       {"schedule", t.schedule.to_string()}, {"tuned", t.tuned}});
    }
  }
  j["tasks"] = tasks;
  if (e.budget > 0) {
    j["config"] = e.config.to_json();
    j["rtl"] = {{"binding", rtl::binding_name(e.rtl.binding)},
                {"tree_levels_per_stage", e.rtl.tree_levels_per_stage},
                {"acc_read_ports", e.rtl.acc_read_ports},
                {"max_dsp_products", e.rtl.max_dsp_products}};
  }
  j["wall_seconds"] = e.wall_seconds;
  return j;
}

Evaluation evaluation_from_json(const nlohmann::json& j) {
  Evaluation e;
  e.key = j.at("key").get<std::string>();
  e.precision = j.at("precision").get<int>();
  const auto d = j.at("design").get<std::vector<int>>();
  if (d.size() != e.design.size()) throw Error("cached evaluation: design has the wrong number of knobs");
  for (size_t i = 0; i < d.size(); ++i) e.design[i] = uint8_t(d[i]);
  e.budget = j.at("budget").get<int64_t>();
  e.feasible = j.at("feasible").get<bool>();
  e.reason = j.at("reason").get<std::string>();
  e.verdict = j.at("verdict").get<std::string>();
  const auto& r = j.at("resources");
  e.resources = {r.at("lut").get<double>(), r.at("ff").get<double>(), r.at("dsp").get<double>(),
                 r.at("bram36").get<double>(), r.at("uram").get<double>()};
  e.fmax_mhz = j.at("fmax_mhz").get<double>();
  e.clock_mhz = j.at("clock_mhz").get<double>();
  e.peak_gops = j.at("peak_gops").get<double>();
  e.critical_stage = j.at("critical_stage").get<std::string>();
  e.cycles = j.at("cycles").get<uint64_t>();
  e.macs = j.at("macs").get<uint64_t>();
  e.gops = j.at("gops").get<double>();
  e.latency_ms = j.at("latency_ms").get<double>();
  for (const auto& t : j.at("tasks")) {
    TaskTime x;
    if (t.is_array()) {
      x.cycles = t.at(0).get<uint64_t>();
      x.layers = t.at(1).get<int64_t>();
      x.macs = t.at(2).get<uint64_t>();
    } else {
      x.name = t.at("name").get<std::string>();
      x.layers = t.at("layers").get<int64_t>();
      x.cycles = t.at("cycles").get<uint64_t>();
      x.macs = t.at("macs").get<uint64_t>();
      x.schedule = lower::Schedule::parse(t.at("schedule").get<std::string>());
      x.tuned = t.at("tuned").get<bool>();
    }
    e.tasks.push_back(std::move(x));
  }
  e.wall_seconds = j.at("wall_seconds").get<double>();
  e.cached = true;
  return e;
}

Evaluator::Evaluator(DseWorkload& workload, const EvaluatorOptions& options, ResultCache* cache)
    : workload_(workload), options_(options), cache_(cache) {
  settings_ = fmt::format("tuner={},seed={},board={}", options.tuner, options.seed,
                          fnv1a64(options.board.to_json().dump()));
}

std::filesystem::path Evaluator::log_path(const hw::HwConfig& config) const {
  if (options_.log_dir.empty()) return {};
  return options_.log_dir / fmt::format("{}_{:016x}.jsonl", config.name(),
                                        fnv1a64(timing_key(config) + "|" + workload_.id() + "|" + settings_));
}

Evaluation Evaluator::cost_only(const DesignSpace& space, const Design& d) const {
  Evaluation e = priced(space, d, map_design(space, d, options_.board));
  judge_accuracy(space, e);
  return e;
}

void Evaluator::judge_accuracy(const DesignSpace& space, Evaluation& e) const {
  if (!options_.accuracy) return;
  const auto f = options_.accuracy->find(space.precision(), space.value(e.design, Knob::kAccWidth));
  if (!f) return;
  e.accuracy = f->tuned_accuracy;
  e.wrap_rate = f->wrap_rate();
  e.accumulator_warnings = int(f->compile_warnings.size());
  if (e.feasible && !f->meets) {
    e.feasible = false;
    e.verdict = "accuracy";
    e.reason = f->reason;
  }
}

Evaluation Evaluator::priced(const DesignSpace& space, const Design& d, const MappedDesign& m) const {
  Evaluation e;
  e.key = space.key(d);
  e.precision = space.precision();
  e.design = d;
  e.config = m.config;
  e.rtl = m.rtl;
  e.clock_mhz = m.config.timing.clock_mhz;
  e.peak_gops = m.config.peak_gops();
  fill_resources(e, design_resources(m, space.device()), space.device());
  return e;
}

namespace {

// What distinguishes two layers of one workload in time: their requantization, bias, fused add and
// layout options (the weights are never in a timing spec).
std::string timing_variant_key(const lower::ConvLayerSpec& s) {
  std::string k = fmt::format("{}|{}|{},{}|{}|{}{}|{}|", fmt::join(s.bias, ","), fmt::join(s.shifts, ","), s.clip_min,
                              s.clip_max, s.acc_bits, s.force_bias_add, s.bias_in_weights, s.constant_channels);
  if (s.add) k += fmt::format("{},{},{},{},{}", s.add->conv_shl, s.add->other_scale, s.add->shift, s.add->clip_min,
                              s.add->clip_max);
  return k;
}

}  // namespace

std::vector<TaskTime> Evaluator::variant_times(const hw::HwConfig& c, const WorkloadTask& wt,
                                               const lower::Schedule& chosen, bool tuned) {
  // The network's cycles: each layer of the task with its own spec, and the schedule the network
  // would give it (the tuned one where it is legal for the layer, else the layer's heuristic), so
  // the exploration's total is run --timing-only's to the cycle. Layers with equal specs are timed once.
  std::vector<lower::ConvLayerSpec> specs = wt.task.layer_specs;
  if (specs.empty()) specs.assign(size_t(std::max<int64_t>(wt.layers, 1)), wt.task.spec);
  std::vector<std::pair<std::string, size_t>> seen;  // key -> index into out
  std::vector<TaskTime> out;
  lower::ProgramTimer timer(c);
  for (const lower::ConvLayerSpec& spec : specs) {
    const std::string key = timing_variant_key(spec);
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == key; });
    if (it != seen.end()) {
      ++out[it->second].layers;
      continue;
    }
    const lower::LayerNeeds needs = spec.needs(c);
    lower::Schedule s = lower::default_schedule(c, spec.w, needs);
    bool tuned_here = false;
    if (tuned) {
      try {
        (void)lower::resolve_schedule(c, spec.w, chosen, needs);
        s = chosen;
        tuned_here = true;
      } catch (const Error&) {
        // The network compiles this layer with its heuristic too.
      }
    }
    TaskTime t;
    t.name = wt.task.name;
    t.layers = 1;
    t.macs = wt.task.macs();
    t.schedule = s;
    t.tuned = tuned_here;
    try {
      t.cycles = timer.time(lower::lower_conv_program(c, spec, s)).cycles;
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", wt.task.name, e.what()));
    }
    seen.emplace_back(key, out.size());
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<TaskTime> Evaluator::time_tasks(const hw::HwConfig& c, const std::vector<WorkloadTask>& tasks,
                                            int64_t budget) {
  std::vector<TaskTime> out;
  if (budget <= 0) {
    for (const WorkloadTask& wt : tasks) {
      for (TaskTime& t : variant_times(c, wt, {}, false)) out.push_back(std::move(t));
    }
    return out;
  }
  tune::TuneOptions o;
  o.searcher.kind = options_.tuner;
  o.searcher.seed = options_.seed;
  o.searcher.model.nthread = 1;
  o.trials = budget;
  o.verify = options_.verify_best;
  o.verify_sample = 0;
  tune::Measurer meter(c, 1);
  // One tuning of a log at a time in this process; across processes the runners keep asks that
  // share a log in one worker (sharing_key).
  const std::filesystem::path path = log_path(c);
  std::unique_lock<std::mutex> log_lock;
  if (!path.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& m = log_locks_[path];
    if (!m) m = std::make_unique<std::mutex>();
    log_lock = std::unique_lock<std::mutex>(*m);
  }
  std::optional<tune::StagedLog> staged;
  std::unique_ptr<tune::TrialLog> log;
  if (!path.empty()) {
    staged.emplace(path);
    log = std::make_unique<tune::TrialLog>(staged->work());
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    const WorkloadTask& wt = tasks[i];
    const tune::TaskResult r = tune::tune_task(wt.task, o, meter, log.get(), {}, i, tasks.size());
    // The tuner's best is what the log gives the network; the heuristic when it found nothing better.
    const bool tuned = r.best && r.best_measure.ok() &&
                       (!r.default_measure.ok() || r.best_measure.cycles < r.default_measure.cycles);
    if (!tuned && !r.default_measure.ok()) throw Error(fmt::format("{}: no schedule could be timed", wt.task.name));
    for (TaskTime& t : variant_times(c, wt, tuned ? *r.best : r.default_schedule, tuned)) out.push_back(std::move(t));
  }
  log.reset();  // closed before it replaces the log
  if (staged) staged->commit();
  return out;
}

std::string Evaluator::cache_key(const DesignSpace& space, const Design& d, int64_t budget) const {
  return ResultCache::make_key(space.key(d), workload_.id(), budget, settings_);
}

std::string Evaluator::sharing_key(const DesignSpace& space, const Design& d, int64_t budget) const {
  if (budget <= 0 || space.violation(d)) return {};
  return timing_key(map_design(space, d, options_.board).config);
}

Evaluation Evaluator::evaluate(const DesignSpace& space, const Design& d, int64_t budget) {
  const auto t0 = std::chrono::steady_clock::now();
  if (budget < 0) {  // resources only: microseconds, never cached
    Evaluation e = cost_only(space, d);
    e.budget = budget;
    e.wall_seconds = seconds_since(t0);
    return e;
  }
  if (auto why = space.violation(d)) {
    throw Error(fmt::format("design {} is outside the pruned space: {}", space.key(d), *why));
  }
  const std::string key = cache_key(space, d, budget);
  const MappedDesign m = map_design(space, d, options_.board);
  if (cache_) {
    if (auto j = cache_->find(key)) {
      Evaluation e = evaluation_from_json(*j);
      e.config = m.config;  // not kept in the line
      e.rtl = m.rtl;
      judge_accuracy(space, e);
      return e;
    }
  }
  Evaluation e = priced(space, d, m);
  e.budget = budget;
  judge_accuracy(space, e);  // a format that misses the bound is not worth timing
  const bool timed = e.feasible;
  if (e.feasible) {
    try {
      const auto tasks = workload_.tasks(space.task_host(d));
      std::shared_ptr<const std::vector<TaskTime>> times;
      const std::string tkey = timing_key(m.config);
      if (budget <= 0) {
        std::lock_guard<std::mutex> lock(mu_);
        if (auto it = screened_.find(tkey); it != screened_.end()) times = it->second;
      }
      if (!times) {
        times = std::make_shared<const std::vector<TaskTime>>(time_tasks(m.config, *tasks, budget));
        if (budget <= 0) {
          std::lock_guard<std::mutex> lock(mu_);
          screened_.emplace(tkey, times);
        }
      }
      e.tasks = *times;
      for (const TaskTime& t : e.tasks) {
        e.cycles += t.cycles * uint64_t(t.layers);
        e.macs += t.macs * uint64_t(t.layers);
      }
      e.gops = m.config.gops(e.macs, e.cycles);
      e.latency_ms = double(e.cycles) / (m.config.timing.clock_mhz * 1e3);
    } catch (const Error& ex) {
      e.feasible = false;
      e.reason = ex.what();
      e.verdict = "workload";
    }
  }
  e.wall_seconds = seconds_since(t0);
  if (timed) ++computed_;
  // A design the resource model rejects costs microseconds to judge again: only timed ones are
  // worth a line.
  if (cache_ && timed) cache_->put(key, to_json(e));
  return e;
}

}  // namespace tauvta::dse
