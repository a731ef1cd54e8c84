// `tauvta tune --slurm`: the tasks of a model tuned as a Slurm job array. Every task is tuned
// independently of the others (its searcher resumes only its own workload's records), so each
// goes to an array task that tunes it on a private copy of the shared log (StagedLog) and
// writes the records it added to ROUND/results/item-K.jsonl, whole, when the task is done. The
// coordinator appends those, in task order, to the log, which then holds what a single-machine
// run appends (timestamps aside); the ordinary run that follows resumes every trial from it.
// A killed attempt leaves no item file, so its task is tuned again from the same records.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cluster/array_options_io.h"
#include "tune/tune_run.h"
#include "common/atomic_file.h"
#include "common/elapsed.h"
#include "common/error.h"
#include "common/fnv1a.h"
#include "tune/staged_log.h"
#include "tune/trial_log.h"

namespace tauvta::tune {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTuneWorkFormat = "tauvta-tune-round-1";

std::string tune_round_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

nlohmann::json tune_job_spec(const TuneRequest& a) {
  const TuneOptions& o = a.options;
  return {{"model", model::source_spec(a.model)},
          {"batch", a.batch ? nlohmann::json(*a.batch) : nlohmann::json()},
          {"workload", a.workload},
          {"log", fs::absolute(a.log).string()},
          {"transfer", a.transfer.empty() ? std::string() : fs::absolute(a.transfer).string()},
          {"tasks", a.tasks},
          {"objective", a.objective},
          {"tuner", o.searcher.kind},
          {"seed", o.searcher.seed},
          {"epsilon", o.searcher.epsilon},
          {"trials", o.trials},
          {"early_stopping", o.early_stopping},
          {"batch_size", o.batch},
          {"verify_sample", o.verify_sample},
          {"no_verify", a.no_verify},
          {"no_prior", a.no_prior},
          {"full_timing", a.full_timing}};
}

TuneRequest tune_args_from_job(const nlohmann::json& j) {
  TuneRequest a;
  a.model = model::source_from_spec(j.at("model"));
  if (!j.at("batch").is_null()) a.batch = j.at("batch").get<int64_t>();
  a.workload = j.at("workload").get<std::string>();
  a.log = j.at("log").get<std::string>();
  a.transfer = j.at("transfer").get<std::string>();
  a.tasks = j.at("tasks").get<std::string>();
  a.objective = j.at("objective").get<std::string>();
  a.options.searcher.kind = j.at("tuner").get<std::string>();
  a.options.searcher.seed = j.at("seed").get<uint64_t>();
  a.options.searcher.epsilon = j.at("epsilon").get<double>();
  a.options.trials = j.at("trials").get<int64_t>();
  a.options.early_stopping = j.at("early_stopping").get<int64_t>();
  a.options.batch = j.at("batch_size").get<size_t>();
  a.options.verify_sample = j.at("verify_sample").get<int64_t>();
  a.no_verify = j.at("no_verify").get<bool>();
  a.no_prior = j.at("no_prior").get<bool>();
  a.full_timing = j.at("full_timing").get<bool>();
  return a;
}

fs::path tune_item_path(const fs::path& round, size_t item) { return round / "results" / fmt::format("item-{}.jsonl", item); }

}  // namespace

void tune_on_slurm(const TuneRequest& a, const TuneTasks& t, std::ostream& out) {
  const cluster::ArrayOptions options = cluster::resolved_array_options(a.slurm_options);
  { TrialLog repair(a.log); }  // a torn last line is cut before records are appended below
  // Items: the tasks, spread over the array by their MACs (longest first onto the lightest task).
  nlohmann::json work = {{"format", kTuneWorkFormat}, {"job", tune_job_spec(a)}};
  const int ntasks = options.tasks_for(t.tasks.size());
  std::vector<size_t> order(t.tasks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return t.tasks[x].macs() > t.tasks[y].macs(); });
  std::vector<double> load(size_t(ntasks), 0);
  std::vector<int> task_of(t.tasks.size());
  for (size_t i : order) {
    const int k = int(std::min_element(load.begin(), load.end()) - load.begin());
    load[size_t(k)] += double(std::max<uint64_t>(1, t.tasks[i].macs()));
    task_of[i] = k;
  }
  nlohmann::json items = nlohmann::json::array();
  for (size_t i = 0; i < t.tasks.size(); ++i) {
    items.push_back({{"workload", t.tasks[i].workload().to_string()}, {"task", task_of[i]}});
  }
  work["tasks"] = ntasks;
  work["items"] = items;
  const std::string text = work.dump(1) + "\n";
  const fs::path round = fs::absolute(a.log + ".slurm") / fmt::format("round-{:016x}", fnv1a64(text));
  fs::create_directories(round / "results");
  if (fs::exists(round / "work.json")) {
    if (tune_round_file(round / "work.json") != text) throw Error(fmt::format("{}: holds a different work list", round.string()));
    out << fmt::format("{}: picking up the round from its directory\n", round.string());
  } else {
    write_file_atomic(round / "work.json", text);
  }
  const fs::path script = cluster::write_task_script(round, options.worker, {"tune", "worker", round.string()},
                                                     options.cpus_per_task);
  auto owing = [&] {
    cluster::Owing o;
    o.total = t.tasks.size();
    for (size_t i = 0; i < t.tasks.size(); ++i) {
      if (fs::exists(tune_item_path(round, i))) {
        ++o.have;
      } else {
        o.tasks.insert(task_of[i]);
      }
    }
    return o;
  };
  auto note = [&](const std::string& line) {
    if (!a.quiet) std::cerr << line << "\n";
  };
  const cluster::RoundStats rs = cluster::run_array_round(round, script, "tauvta-tune", options, cluster::SlurmClient{},
                                                          owing, {}, note);
  // Into the log in task order; an item already there (a coordinator killed while appending) is
  // not appended again.
  const std::string log_text = tune_round_file(a.log);
  std::ofstream log(a.log, std::ios::binary | std::ios::app);
  size_t appended = 0;
  for (size_t i = 0; i < t.tasks.size(); ++i) {
    const std::string added = tune_round_file(tune_item_path(round, i));
    if (added.empty() || log_text.find(added.substr(0, added.find('\n') + 1)) != std::string::npos) continue;
    log << added;
    ++appended;
  }
  log.flush();
  if (!log) throw Error(fmt::format("{}: cannot append the array's records", a.log));
  out << fmt::format("slurm: {} task(s) tuned in {} array task(s), {} submission(s), {:.1f} s; {} appended to {}\n",
                     t.tasks.size(), ntasks, rs.submissions, rs.wait_seconds, appended, a.log);
}

void tune_worker(const TuneWorkerRequest& w, std::ostream& out) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path round = fs::absolute(w.round_dir);
  const fs::path work_file = round / "work.json";
  if (!fs::exists(work_file)) throw Error(fmt::format("{}: no such file (not a tune round directory?)", work_file.string()));
  const nlohmann::json work = nlohmann::json::parse(tune_round_file(work_file), nullptr, false);
  if (!work.is_object() || work.value("format", "") != kTuneWorkFormat) {
    throw Error(fmt::format("{}: not a tune work list (format {})", work_file.string(), kTuneWorkFormat));
  }
  int task = w.task;
  if (task < 0) {
    const char* id = std::getenv("SLURM_ARRAY_TASK_ID");
    if (!id || !*id) throw Error("tune worker: give --task N (or run it as a Slurm array task: $SLURM_ARRAY_TASK_ID)");
    task = std::atoi(id);
  }
  TuneRequest a;
  try {
    if (task >= work.at("tasks").get<int>()) {
      throw Error(fmt::format("tune worker: task {} is outside the round's 0..{}", task, work.at("tasks").get<int>() - 1));
    }
    a = tune_args_from_job(work.at("job"));
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: {}", work_file.string(), e.what()));
  }
  a.threads = w.threads;
  const TuneOptions o = resolved_tune_options(a);
  const TuneTasks t = make_tune_tasks(a);
  const auto& items = work.at("items");
  if (items.size() != t.tasks.size()) {
    throw Error(fmt::format("{}: {} items, but this worker finds {} tasks (a different tauvta build or model?)",
                            work_file.string(), items.size(), t.tasks.size()));
  }
  TransferSet transfer;
  if (!a.transfer.empty()) transfer = transfer_set(lower::read_tuning_log(a.transfer).records, t.config, nullptr);
  Measurer measurer(t.config, w.threads);
  const char* node = std::getenv("SLURMD_NODENAME");
  const double setup_seconds = seconds_since(t0);
  size_t tuned = 0, already = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].at("task").get<int>() != task) continue;
    const TuneTask& tt = t.tasks[i];
    if (items[i].at("workload").get<std::string>() != tt.workload().to_string()) {
      throw Error(fmt::format("{}: item {} is {}, this worker's task {} is {}", work_file.string(), i,
                              items[i].at("workload").get<std::string>(), i + 1, tt.workload().to_string()));
    }
    if (fs::exists(tune_item_path(round, i))) {
      ++already;
      continue;
    }
    TuneOptions ot = o;
    if (!transfer.rows.empty()) ot.searcher.transfer = &transfer;
    const fs::path staging = round / "results" / fmt::format(".item-{}.{}.staging", i, ::getpid());
    StagedLog staged(a.log, staging);
    {
      TrialLog log(staged.work());
      staged.mark();
      const TaskResult r = tune_task(tt, ot, measurer, &log, {}, i, items.size());
      out << fmt::format("item {} ({}): {} trials, best {:.2f} GOPS\n", i, tt.name, r.trials, r.best_measure.gops);
    }
    write_file_atomic(tune_item_path(round, i), staged.added());
    ++tuned;
  }
  out << fmt::format("task {}{}: {} tuning task(s) tuned, {} done by an earlier attempt; setup {:.2f} s, {:.2f} s in all\n",
                     task, node ? fmt::format(" on {}", node) : "", tuned, already, setup_seconds, seconds_since(t0));
}

}  // namespace tauvta::tune
