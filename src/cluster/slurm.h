// The Slurm commands a coordinator needs, as Slurm's own client programs (sbatch, squeue,
// scancel) run them: submitting a job array, asking which of its tasks are still in the queue,
// cancelling it. SLURM_CONF and the rest of the environment pass through, so the client talks to
// whichever cluster the shell is set up for. No state beyond the program names.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tauvta::cluster {

struct ArrayJob {
  std::filesystem::path script;  // a batch script (#!/bin/sh ...); $SLURM_ARRAY_TASK_ID picks the shard
  std::vector<int> tasks;        // array indices to run (sbatch --array=0-3,7)
  std::string name;              // --job-name
  std::string partition;         // empty: the cluster's default partition
  std::string time_limit;        // --time (Slurm's formats: MM, HH:MM:SS, D-HH); empty: the partition's
  int cpus_per_task = 1;
  std::filesystem::path output;  // --output pattern (%A job, %a task); appended to across requeues
  std::filesystem::path chdir;   // --chdir
  std::vector<std::string> extra;  // further sbatch arguments, passed as they are
};

// One array task that is still in the queue.
struct QueuedTask {
  int task = -1;       // array index
  std::string state;   // PENDING, RUNNING, REQUEUED, COMPLETING, ...
  std::string where;   // the node it runs on, or why it waits
};

// "0-3,7": the compact --array form of sorted, distinct indices.
std::string array_spec(std::vector<int> tasks);

class SlurmClient {
 public:
  SlurmClient() = default;
  // Other client programs (a wrapper script, a full path).
  SlurmClient(std::string sbatch, std::string squeue, std::string scancel)
      : sbatch_(std::move(sbatch)), squeue_(std::move(squeue)), scancel_(std::move(scancel)) {}

  // The sbatch arguments `submit` uses (without the program), for records and tests.
  std::vector<std::string> sbatch_args(const ArrayJob& job) const;
  // Submits the array; returns the job id. Throws tauvta::Error with sbatch's message.
  std::string submit(const ArrayJob& job) const;
  // The job's tasks that have not ended (pending, running, requeued, completing); empty when
  // every task has ended, in any state, or the job is purged. Throws tauvta::Error when squeue itself fails for another reason.
  std::vector<QueuedTask> queued(const std::string& job_id) const;
  void cancel(const std::string& job_id) const;

 private:
  std::string sbatch_ = "sbatch", squeue_ = "squeue", scancel_ = "scancel";
};

}  // namespace tauvta::cluster
