#include "dse/slurm_runner.h"

#include <algorithm>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/fnv1a.h"
#include "dse/result_cache.h"

namespace tauvta::dse {

namespace fs = std::filesystem;

namespace {

constexpr const char* kWorkFormat = "tauvta-dse-round-1";

// Every finished evaluation any attempt of any task wrote, by cache key.
std::map<std::string, std::string> collect_results(const fs::path& round_dir) {
  std::map<std::string, std::string> all;
  std::error_code ec;
  if (!fs::is_directory(round_dir / "results", ec)) return all;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(round_dir / "results")) {
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    for (auto& [key, line] : ResultCache::read_lines(f)) all.try_emplace(key, std::move(line));
  }
  return all;
}

}  // namespace

std::vector<size_t> RoundWork::of_task(int task) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].task == task) out.push_back(i);
  }
  return out;
}

nlohmann::json to_json(const RoundWork& w) {
  nlohmann::json items = nlohmann::json::array();
  for (const RoundWork::Item& it : w.items) {
    items.push_back({{"design", std::vector<int>(it.design.begin(), it.design.end())},
                     {"budget", it.budget},
                     {"cache_key", it.cache_key},
                     {"task", it.task}});
  }
  return {{"format", kWorkFormat}, {"precision", w.precision}, {"tasks", w.tasks}, {"job", w.job}, {"items", items}};
}

RoundWork round_work_from_json(const nlohmann::json& j, const fs::path& where) {
  auto fail = [&](const std::string& what) { return Error(fmt::format("{}: {}", where.string(), what)); };
  if (!j.is_object() || j.value("format", "") != kWorkFormat) throw fail(std::string("not a work list (format ") + kWorkFormat + ")");
  RoundWork w;
  try {
    w.precision = j.at("precision").get<int>();
    w.tasks = j.at("tasks").get<int>();
    w.job = j.at("job");
    for (const auto& it : j.at("items")) {
      RoundWork::Item item;
      const auto d = it.at("design").get<std::vector<int>>();
      if (d.size() != item.design.size()) throw fail(fmt::format("item {}: {} knobs, not {}", w.items.size(), d.size(), item.design.size()));
      for (size_t k = 0; k < d.size(); ++k) item.design[k] = uint8_t(d[k]);
      item.budget = it.at("budget").get<int64_t>();
      item.cache_key = it.at("cache_key").get<std::string>();
      item.task = it.at("task").get<int>();
      if (item.task < 0 || item.task >= w.tasks) throw fail(fmt::format("item {}: task {} outside 0..{}", w.items.size(), item.task, w.tasks - 1));
      w.items.push_back(std::move(item));
    }
  } catch (const nlohmann::json::exception& e) {
    throw fail(e.what());
  }
  return w;
}

fs::path shard_results_path(const fs::path& round_dir, int task, const std::string& attempt) {
  return round_dir / "results" / fmt::format("task-{}.{}.jsonl", task, attempt);
}

void absorb_earlier_attempts(ResultCache& cache, const fs::path& round_dir, int task) {
  std::error_code ec;
  if (!fs::is_directory(round_dir / "results", ec)) return;
  const std::string prefix = fmt::format("task-{}.", task);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(round_dir / "results")) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(prefix) && e.path().extension() == ".jsonl" && e.path() != cache.path()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) cache.absorb(f);
}

ShardSummary run_shard(const RoundWork& work, int task, const DesignSpace& space, Evaluator& evaluator, int threads) {
  if (task < 0 || task >= work.tasks) throw Error(fmt::format("task {} is outside the round's 0..{}", task, work.tasks - 1));
  if (space.precision() != work.precision) throw InternalError("run_shard: the space's precision is not the round's");
  ShardSummary s;
  std::vector<Ask> asks;
  for (size_t i : work.of_task(task)) {
    const RoundWork::Item& it = work.items[i];
    const std::string key = evaluator.cache_key(space, it.design, it.budget);
    if (key != it.cache_key) {
      throw Error(fmt::format("item {}: this worker keys the design as '{}', the coordinator as '{}' (a different "
                              "tauvta build or input files on this node?)", i, key, it.cache_key));
    }
    if (evaluator.cache() && evaluator.cache()->contains(key)) ++s.already;
    asks.push_back({it.design, it.budget, true});
  }
  s.items = asks.size();
  const int64_t before = evaluator.computed();
  ThreadRunner(threads).run(space, evaluator, asks, {});
  s.computed = size_t(evaluator.computed() - before);
  return s;
}

SlurmRunner::SlurmRunner(fs::path dir, nlohmann::json job, cluster::ArrayOptions options, cluster::SlurmClient client,
                         std::function<void(const std::string&)> note)
    : dir_(std::move(dir)), job_(std::move(job)), options_(std::move(options)), client_(std::move(client)),
      note_(std::move(note)) {
  if (options_.worker.empty()) throw InternalError("SlurmRunner: no worker binary");
  options_.check();
}

std::vector<Evaluation> SlurmRunner::run(const DesignSpace& space, Evaluator& evaluator, std::span<const Ask> asks,
                                         const std::function<void(size_t done)>& done) {
  ResultCache* cache = evaluator.cache();
  if (!cache) throw InternalError("SlurmRunner: the evaluator has no result cache");
  // What the cluster must do: designs the resource model accepts, not evaluated before, once each.
  std::vector<size_t> remote;
  std::set<std::string> seen;
  for (size_t i = 0; i < asks.size(); ++i) {
    if (asks[i].budget < 0 || space.violation(asks[i].design)) continue;
    std::string key = evaluator.cache_key(space, asks[i].design, asks[i].budget);
    if (cache->contains(key) || seen.count(key) || !evaluator.cost_only(space, asks[i].design).feasible) continue;
    seen.insert(std::move(key));
    remote.push_back(i);
  }
  if (!remote.empty()) {
    // Shards: whole sharing groups, longest first onto the least-loaded task (LPT); a tuned ask
    // weighs its budget, a screened one 1.
    std::vector<Ask> sub;
    for (size_t i : remote) sub.push_back(asks[i]);
    const std::vector<std::vector<size_t>> groups = sharing_groups(space, evaluator, sub);
    RoundWork work;
    work.precision = space.precision();
    work.job = job_;
    work.tasks = options_.tasks_for(groups.size());
    std::vector<double> weight(groups.size());
    std::vector<size_t> order(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) {
      order[g] = g;
      for (size_t i : groups[g]) weight[g] += double(std::max<int64_t>(1, sub[i].budget));
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight[a] > weight[b]; });
    std::vector<double> load(size_t(work.tasks), 0);
    std::vector<int> task_of(sub.size(), 0);
    for (size_t g : order) {
      const int t = int(std::min_element(load.begin(), load.end()) - load.begin());
      load[size_t(t)] += weight[g];
      for (size_t i : groups[g]) task_of[i] = t;
    }
    for (size_t i = 0; i < sub.size(); ++i) {
      work.items.push_back({sub[i].design, sub[i].budget, evaluator.cache_key(space, sub[i].design, sub[i].budget), task_of[i]});
    }
    run_round(evaluator, work, done);
  }
  // Everything is now a cache hit or a resource-only verdict.
  return ThreadRunner(options_.cpus_per_task).run(space, evaluator, asks, {});
}

void SlurmRunner::run_round(const Evaluator& evaluator, const RoundWork& work,
                            const std::function<void(size_t done)>& done) {
  const std::string text = to_json(work).dump(1) + "\n";
  const fs::path round = dir_ / fmt::format("p{}-{:016x}", work.precision, fnv1a64(text));
  fs::create_directories(round / "results");
  if (fs::exists(round / "work.json")) {
    std::ifstream in(round / "work.json", std::ios::binary);
    const std::string old((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (old != text) throw Error(fmt::format("{}: holds a different work list under the same name", round.string()));
    say(fmt::format("{}: picking up the round from its directory", round.string()));
  } else {
    write_file_atomic(round / "work.json", text);
  }
  const fs::path script = cluster::write_task_script(round, options_.worker, {"dse", "worker", round.string()},
                                                     options_.cpus_per_task);
  ++stats_.rounds;
  stats_.tasks += work.tasks;
  auto owing = [&] {
    const auto results = collect_results(round);
    cluster::Owing o;
    o.total = work.items.size();
    for (const RoundWork::Item& it : work.items) {
      if (results.count(it.cache_key)) {
        ++o.have;
      } else {
        o.tasks.insert(it.task);
      }
    }
    return o;
  };
  const cluster::RoundStats rs =
      cluster::run_array_round(round, script, fmt::format("tauvta-dse-p{}", work.precision), options_, client_, owing,
                               done, note_);
  stats_.submissions += rs.submissions;
  stats_.resubmitted_tasks += rs.resubmitted_tasks;
  stats_.wait_seconds += rs.wait_seconds;
  stats_.evaluations += work.items.size();
  // Into the result cache, in the round's order (the cache is keyed; its order is for people).
  ResultCache& cache = *evaluator.cache();
  const auto results = collect_results(round);
  for (const RoundWork::Item& it : work.items) {
    if (!cache.contains(it.cache_key)) cache.put(it.cache_key, nlohmann::json::parse(results.at(it.cache_key)));
  }
}

}  // namespace tauvta::dse
