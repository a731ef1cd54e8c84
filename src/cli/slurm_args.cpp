#include "cli/slurm_args.h"


namespace tauvta::cli {

void add_slurm_args(CLI::App* cmd, bool& slurm, cluster::ArrayOptions& o) {
  cmd->add_flag("--slurm", slurm, "run the work as Slurm job arrays (sbatch); outputs on a shared filesystem (docs/slurm.md)");
  cmd->add_option("--partition", o.partition, "--slurm: the partition (default: the cluster's)");
  cmd->add_option("--array-size", o.array_size, "--slurm: array tasks per round at most (0: one per unit of work, at most 256)")
      ->capture_default_str();
  cmd->add_option("--time", o.time_limit, "--slurm: each task's time limit (sbatch --time, e.g. 30 or 1:00:00)");
  cmd->add_option("--cpus-per-task", o.cpus_per_task, "--slurm: CPUs per task (its threads)")->capture_default_str();
  cmd->add_option("--poll", o.poll_seconds, "--slurm: seconds between looks at the results and squeue")->capture_default_str();
  cmd->add_option("--retries", o.retries, "--slurm: submissions in a row that finish nothing before giving up")
      ->capture_default_str();
  cmd->add_option("--sbatch-arg", o.sbatch_extra, "--slurm: a further sbatch argument (repeat), e.g. --sbatch-arg=--account=lab");
}

}  // namespace tauvta::cli
