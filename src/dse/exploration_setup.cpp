// The exploration's setup, shared by the coordinator and its Slurm workers, and the worker
// itself: `tauvta dse worker ROUND_DIR` rebuilds the coordinator's evaluator from the round's
// work list and evaluates its array task's shard (dse/slurm_runner.h).
#include "dse/exploration_setup.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/elapsed.h"
#include "common/error.h"
#include "common/source_dir.h"
#include "dse/result_cache.h"

namespace tauvta::dse {

namespace fs = std::filesystem;

namespace {

std::vector<int> parse_precision_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "1" || item == "2" || item == "4" || item == "8") {
      out.push_back(std::stoi(item));
    } else {
      throw Error(fmt::format("--precisions: '{}' is not one of 1, 2, 4, 8", item));
    }
  }
  if (out.empty()) throw Error("--precisions: no precision given");
  return out;
}

// The board's memory side: --config, else the device's preset.
hw::HwConfig exploration_board_config(const ExplorationRequest& a, const fpga::Device& d) {
  if (model::has_config(a.model)) return model::source_config(a.model);
  if (std::string(d.name) == "pynq-z1") return hw::HwConfig{};
  return hw::HwConfig::load((source_dir() / "configs" / (std::string(d.name) + ".json")).string());
}

// An environment variable as a non-negative integer (-1: unset or not a number).
int64_t env_nonnegative_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  return *end || x < 0 ? -1 : int64_t(x);
}

double exploration_unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

SpaceOptions ExplorationSetup::space(int precision) const {
  SpaceOptions so;
  so.precision = precision;
  so.device = device;
  so.workload_batch = int(workload->batch());
  return so;
}

ExplorationSetup make_exploration_setup(const ExplorationRequest& a) {
  ExplorationSetup s;
  s.device = &fpga::find_device(a.device);
  s.precisions = parse_precision_list(a.precisions);
  if (!a.workload.empty()) {
    s.workload = std::make_unique<DseWorkload>(a.workload);
  } else {
    s.workload = std::make_unique<DseWorkload>(a.model.model, model::load_options(a.model, true));
  }
  s.evaluator.board = exploration_board_config(a, *s.device);
  s.evaluator.seed = a.strategy.seed;
  s.evaluator.log_dir = fs::path(a.out) / "tuning";
  s.evaluator.verify_best = a.verify;
  return s;
}

nlohmann::json exploration_job_spec(const ExplorationRequest& a) {
  const StrategyOptions& st = a.strategy;
  return {{"model", model::source_spec(a.model)},
          {"workload", a.workload},
          {"device", a.device},
          {"precisions", a.precisions},
          {"strategy", {{"kind", st.kind}, {"budget", st.budget}, {"seed", st.seed}, {"finalists", st.finalists},
                        {"candidates", st.candidates}, {"overlays", st.overlays}, {"sprint", st.sprint},
                        {"initial", st.initial}}},
          {"verify", a.verify},
          {"out", fs::absolute(a.out).string()}};
}

ExplorationRequest exploration_from_job(const nlohmann::json& job) {
  ExplorationRequest a;
  a.model = model::source_from_spec(job.at("model"));
  a.workload = job.at("workload").get<std::string>();
  a.device = job.at("device").get<std::string>();
  a.precisions = job.at("precisions").get<std::string>();
  const auto& st = job.at("strategy");
  a.strategy.kind = st.at("kind").get<std::string>();
  a.strategy.budget = st.at("budget").get<int64_t>();
  a.strategy.seed = st.at("seed").get<uint64_t>();
  a.strategy.finalists = st.at("finalists").get<int>();
  a.strategy.candidates = st.at("candidates").get<int>();
  a.strategy.overlays = st.at("overlays").get<int>();
  a.strategy.sprint = st.at("sprint").get<int>();
  a.strategy.initial = st.at("initial").get<int>();
  a.verify = job.at("verify").get<bool>();
  a.out = job.at("out").get<std::string>();
  return a;
}

void run_exploration_worker(const ExplorationWorkerRequest& w, std::ostream& out) {
  const auto t0 = std::chrono::steady_clock::now();
  const double started = exploration_unix_seconds();
  const fs::path round = fs::absolute(w.round_dir);
  const fs::path work_file = round / "work.json";
  if (!fs::exists(work_file)) throw Error(fmt::format("{}: no such file (not a dse round directory?)", work_file.string()));
  std::ifstream in(work_file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw Error(fmt::format("{}: not JSON", work_file.string()));
  const RoundWork work = round_work_from_json(j, work_file);
  int task = w.task;
  if (task < 0) {
    const int64_t id = env_nonnegative_int("SLURM_ARRAY_TASK_ID");
    if (id < 0) throw Error("dse worker: give --task N (or run it as a Slurm array task: $SLURM_ARRAY_TASK_ID)");
    task = int(id);
  }
  if (task >= work.tasks) throw Error(fmt::format("dse worker: task {} is outside the round's 0..{}", task, work.tasks - 1));
  ExplorationRequest a;
  try {
    a = exploration_from_job(work.job);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: job: {}", work_file.string(), e.what()));
  }
  ExplorationSetup setup = make_exploration_setup(a);
  const DesignSpace space(setup.space(work.precision));
  // This attempt's own file: the array job and Slurm's requeue count (a local run: its pid).
  const int64_t job = env_nonnegative_int("SLURM_ARRAY_JOB_ID"), restarts = env_nonnegative_int("SLURM_RESTART_COUNT");
  const std::string attempt = job >= 0 ? fmt::format("{}r{}", job, std::max<int64_t>(0, restarts))
                                       : fmt::format("local{}", ::getpid());
  ResultCache cache(shard_results_path(round, task, attempt));
  absorb_earlier_attempts(cache, round, task);
  Evaluator evaluator(*setup.workload, setup.evaluator, &cache);
  const double setup_seconds = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  const ShardSummary s = run_shard(work, task, space, evaluator, w.threads);
  const double eval_seconds = seconds_since(t1);
  const char* node = std::getenv("SLURMD_NODENAME");
  const nlohmann::json summary = {{"task", task},
                                  {"attempt", attempt},
                                  {"node", node ? node : ""},
                                  {"items", s.items},
                                  {"computed", s.computed},
                                  {"from_earlier_attempts", s.already},
                                  {"setup_seconds", setup_seconds},
                                  {"evaluate_seconds", eval_seconds},
                                  {"started", started},
                                  {"ended", exploration_unix_seconds()}};
  write_file_atomic(round / "results" / fmt::format("task-{}.{}.summary.json", task, attempt), summary.dump(1) + "\n");
  out << fmt::format("task {} ({}{}): {} evaluations, {} computed, {} from earlier attempts; setup {:.2f} s, "
                     "evaluating {:.2f} s\n",
                     task, attempt, node ? fmt::format(" on {}", node) : "", s.items, s.computed, s.already,
                     setup_seconds, eval_seconds);
}

}  // namespace tauvta::dse
