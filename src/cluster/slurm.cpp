#include "cluster/slurm.h"

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cluster/process.h"
#include "common/error.h"

namespace tauvta::cluster {

namespace {

// Job states after which a task does nothing more (squeue's long names).
const std::set<std::string> kEnded = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
                                      "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "REVOKED", "SPECIAL_EXIT"};

}  // namespace

std::string array_spec(std::vector<int> tasks) {
  std::sort(tasks.begin(), tasks.end());
  tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
  std::string out;
  for (size_t i = 0; i < tasks.size();) {
    size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", tasks[i]) : fmt::format("{}-{}", tasks[i], tasks[j]);
    i = j + 1;
  }
  return out;
}

std::vector<std::string> SlurmClient::sbatch_args(const ArrayJob& job) const {
  if (job.tasks.empty()) throw InternalError("sbatch: an array without tasks");
  std::vector<std::string> a = {"--parsable", "--array=" + array_spec(job.tasks), "--job-name=" + job.name,
                                fmt::format("--cpus-per-task={}", job.cpus_per_task),
                                // A task on a node that fails goes back to the queue (whatever the
                                // site's JobRequeue default) and its log keeps what came before.
                                "--requeue", "--open-mode=append"};
  if (!job.partition.empty()) a.push_back("--partition=" + job.partition);
  if (!job.time_limit.empty()) a.push_back("--time=" + job.time_limit);
  if (!job.output.empty()) a.push_back("--output=" + job.output.string());
  if (!job.chdir.empty()) a.push_back("--chdir=" + job.chdir.string());
  a.insert(a.end(), job.extra.begin(), job.extra.end());
  a.push_back(job.script.string());
  return a;
}

std::string SlurmClient::submit(const ArrayJob& job) const {
  std::vector<std::string> argv = {sbatch_};
  for (std::string& s : sbatch_args(job)) argv.push_back(std::move(s));
  const ProcessResult r = run_process(argv);
  // --parsable prints "jobid" or "jobid;cluster".
  const std::string id = first_line(r.out).substr(0, first_line(r.out).find(';'));
  if (r.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    throw Error(fmt::format("sbatch failed (exit {}): {}", r.exit_code,
                            first_line(r.err.empty() ? r.out : r.err)));
  }
  return id;
}

std::vector<QueuedTask> SlurmClient::queued(const std::string& job_id) const {
  // -r: one line per array task; every state, since a job named with -j is listed after it ended
  // too (until the controller purges it), and only the states that end a task count as gone.
  const ProcessResult r = run_process({squeue_, "-h", "-r", "-t", "all", "-j", job_id, "-o", "%i|%T|%R"});
  if (r.exit_code != 0) {
    // A job purged from the controller's memory (MinJobAge after it ended) is no longer known.
    if (r.err.find("Invalid job id") != std::string::npos) return {};
    throw Error(fmt::format("squeue -j {} failed (exit {}): {}", job_id, r.exit_code, first_line(r.err)));
  }
  std::vector<QueuedTask> out;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t a = line.find('|'), b = line.find('|', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    QueuedTask t;
    const std::string id = line.substr(0, a);  // "123_4" (a task), or "123_[5-9]" (pending, folded)
    const size_t us = id.find('_');
    if (us == std::string::npos || id.substr(0, us) != job_id) continue;
    const std::string index = id.substr(us + 1);
    if (!index.empty() && index.find_first_not_of("0123456789") == std::string::npos) t.task = std::stoi(index);
    t.state = line.substr(a + 1, b - a - 1);
    t.where = line.substr(b + 1);
    if (kEnded.count(t.state)) continue;
    out.push_back(std::move(t));
  }
  return out;
}

void SlurmClient::cancel(const std::string& job_id) const {
  const ProcessResult r = run_process({scancel_, job_id});
  if (r.exit_code != 0) throw Error(fmt::format("scancel {} failed: {}", job_id, first_line(r.err)));
}

}  // namespace tauvta::cluster
