// One round of work as a Slurm job array, driven to completion: the loop both `dse --slurm` and
// `tune --slurm` run. The caller has written the round's directory (its work list and the batch
// script each task runs) and says, when asked, which array tasks still owe results (read from the
// files the tasks write). The loop submits those tasks, polls until they have left the queue,
// and submits again whatever still owes something: a task that was scancelled, ran out of time or
// failed. (A task on a node that dies is requeued by Slurm itself, sbatch --requeue.) Every job
// id goes to ROUND_DIR/jobs.jsonl before the loop waits on it, so a coordinator that is killed
// and run again waits for the jobs still queued instead of submitting the same work twice.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "cluster/slurm.h"

namespace tauvta::cluster {

// How the array is submitted and watched (the --slurm options of dse and tune).
struct ArrayOptions {
  std::string partition;   // empty: the cluster's default
  std::string time_limit;  // per task (sbatch --time); empty: the partition's
  int array_size = 0;      // array tasks per round at most (0: as many as the work splits into, at most 256)
  int cpus_per_task = 1;   // also the worker's threads
  double poll_seconds = 2;  // between looks at the results and squeue
  int retries = 3;         // submissions in a row that finish nothing before giving up
  std::filesystem::path worker;  // the tauvta binary the tasks run (on the shared filesystem)
  std::vector<std::string> sbatch_extra;  // further sbatch arguments (--account=..., --qos=...)
  // Throws tauvta::Error naming the option that is out of range.
  void check() const;
  // The array size for work that splits into `parts`.
  int tasks_for(size_t parts) const;
};

struct Owing {
  std::set<int> tasks;     // array tasks with results still missing
  size_t have = 0, total = 0;  // results in, of how many
};

struct RoundStats {
  int submissions = 0;
  size_t resubmitted_tasks = 0;  // array tasks submitted again
  double wait_seconds = 0;       // from the loop's start to the last result
};

// Runs `script` (ROUND_DIR/task.sh) as array tasks until owing() is empty. `job_name` names
// the jobs; task logs go to ROUND_DIR/logs/task-N.out (appended across attempts). Throws
// tauvta::Error when `retries` submissions in a row finish nothing, naming the task and the last
// line of its log.
RoundStats run_array_round(const std::filesystem::path& round_dir, const std::filesystem::path& script,
                           const std::string& job_name, const ArrayOptions& options, const SlurmClient& client,
                           const std::function<Owing()>& owing, const std::function<void(size_t have)>& progress,
                           const std::function<void(const std::string&)>& note);

// "'text'" for /bin/sh, whatever the text holds.
std::string shell_quote(const std::string& text);

// Writes ROUND_DIR/task.sh, which runs `worker` with `args` (quoted) and "--threads CPUS", once.
std::filesystem::path write_task_script(const std::filesystem::path& round_dir, const std::filesystem::path& worker,
                                        const std::vector<std::string>& args, int cpus_per_task);

}  // namespace tauvta::cluster
