// A batch of asks as a Slurm job array. The coordinator (this runner, inside `tauvta dse
// --slurm`) answers what it can at once (resource-only verdicts, designs already in the result
// cache), shards the rest over array tasks (asks that share a tuning log stay in one task, in ask
// order: Evaluator::sharing_key), writes the round's work list and submits it with sbatch. Each
// task runs `tauvta dse worker ROUND_DIR`, which evaluates its shard and appends every evaluation,
// flushed, to a results file of its own (run_shard). cluster/array_round.h drives the array:
// when it has left the queue with evaluations missing (a task scancelled, out of time, failed),
// the tasks that still owe some are submitted again and skip what they already wrote. A task on
// a node that dies is requeued by Slurm itself (sbatch --requeue) and does the same.
// The round's evaluations then go into the result cache in ask order, and the batch is answered
// from it, as a resumed local run would be.
//
// Restart: a round's directory is named by the hash of its work list. A coordinator killed and
// run again replays the strategy (deterministic for its seed) from the cache, arrives at the same
// round, finds its directory, waits for the jobs recorded there that are still queued, and
// resubmits only what is missing.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/array_round.h"
#include "cluster/slurm.h"
#include "dse/batch_runner.h"

namespace tauvta::dse {

// One round's work list: ROUND_DIR/work.json.
struct RoundWork {
  int precision = 8;
  nlohmann::json job;  // what rebuilds the workload and evaluator (the command's resolved options)
  int tasks = 0;
  struct Item {
    Design design{};
    int64_t budget = 0;
    std::string cache_key;
    int task = 0;
  };
  std::vector<Item> items;
  std::vector<size_t> of_task(int task) const;  // item indices, in order
};
nlohmann::json to_json(const RoundWork& w);
RoundWork round_work_from_json(const nlohmann::json& j, const std::filesystem::path& where);

// The worker's side. results_path: ROUND_DIR/results/task-T.ATTEMPT.jsonl, the file this attempt
// appends to (ATTEMPT: the Slurm job id and restart count, so no two attempts share a file).
std::filesystem::path shard_results_path(const std::filesystem::path& round_dir, int task, const std::string& attempt);
// Loads every earlier attempt's finished evaluations of `task` into `cache`.
void absorb_earlier_attempts(ResultCache& cache, const std::filesystem::path& round_dir, int task);
struct ShardSummary {
  size_t items = 0, computed = 0, already = 0;
};
// Evaluates task `task`'s items with `evaluator` (whose cache is the attempt's results file);
// checks each item's cache key against the evaluator's, so a worker built differently from its
// coordinator stops with an error instead of writing results under other keys.
ShardSummary run_shard(const RoundWork& work, int task, const DesignSpace& space, Evaluator& evaluator, int threads);

class SlurmRunner final : public BatchRunner {
 public:
  // `dir`: where rounds go (on the shared filesystem); `job`: RoundWork::job. The evaluator given
  // to run() must have a result cache.
  SlurmRunner(std::filesystem::path dir, nlohmann::json job, cluster::ArrayOptions options,
              cluster::SlurmClient client = {}, std::function<void(const std::string&)> note = {});
  std::vector<Evaluation> run(const DesignSpace& space, Evaluator& evaluator, std::span<const Ask> asks,
                              const std::function<void(size_t done)>& done) override;

  // What went through the cluster so far (for the report and the overhead figures).
  struct Stats {
    int rounds = 0, submissions = 0, tasks = 0;
    size_t evaluations = 0;      // evaluated on the cluster
    size_t resubmitted_tasks = 0;  // array tasks submitted again for missing evaluations
    double wait_seconds = 0;     // from first sbatch to all results, summed over rounds
  };
  const Stats& stats() const { return stats_; }

 private:
  void run_round(const Evaluator& evaluator, const RoundWork& work, const std::function<void(size_t done)>& done);
  void say(const std::string& line) const {
    if (note_) note_(line);
  }

  std::filesystem::path dir_;
  nlohmann::json job_;
  cluster::ArrayOptions options_;
  cluster::SlurmClient client_;
  std::function<void(const std::string&)> note_;
  Stats stats_;
};

}  // namespace tauvta::dse
