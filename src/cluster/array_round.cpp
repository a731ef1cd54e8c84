#include "cluster/array_round.h"

#include <chrono>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/elapsed.h"
#include "common/error.h"

namespace tauvta::cluster {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxDefaultTasks = 256;

// The job ids submitted for a round, from its jobs.jsonl (one line per sbatch).
std::vector<std::string> recorded_jobs(const fs::path& round_dir) {
  std::vector<std::string> jobs;
  std::ifstream in(round_dir / "jobs.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("job") && j["job"].is_string()) jobs.push_back(j["job"].get<std::string>());
  }
  return jobs;
}

void record_job(const fs::path& round_dir, const std::string& job, const std::string& tasks) {
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::ofstream out(round_dir / "jobs.jsonl", std::ios::app);
  out << nlohmann::json{{"job", job}, {"tasks", tasks}, {"submitted", now}}.dump() << "\n";
  out.flush();
  if (!out) throw Error(fmt::format("{}: cannot record job {}", (round_dir / "jobs.jsonl").string(), job));
}

// The last non-empty line of a task's log (what a failed task said last).
std::string log_tail(const fs::path& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last.empty() ? "(no output)" : last;
}

}  // namespace

void ArrayOptions::check() const {
  if (array_size < 0) throw Error(fmt::format("--array-size {}: must be 0 (automatic) or more", array_size));
  if (cpus_per_task < 1) throw Error(fmt::format("--cpus-per-task {}: must be at least 1", cpus_per_task));
  if (!(poll_seconds > 0)) throw Error(fmt::format("--poll {}: must be above 0 seconds", poll_seconds));
  if (retries < 0) throw Error(fmt::format("--retries {}: must be 0 or more", retries));
}

int ArrayOptions::tasks_for(size_t parts) const {
  return int(std::min<size_t>(parts, size_t(array_size > 0 ? array_size : kMaxDefaultTasks)));
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

fs::path write_task_script(const fs::path& round_dir, const fs::path& worker, const std::vector<std::string>& args,
                           int cpus_per_task) {
  const fs::path script = round_dir / "task.sh";
  std::string text = "#!/bin/sh\n# One array task of a tauvta round: $SLURM_ARRAY_TASK_ID picks its shard.\nexec ";
  text += shell_quote(worker.string());
  for (const std::string& a : args) {
    text.push_back(' ');
    text += shell_quote(a);
  }
  text += fmt::format(" --threads {}\n", cpus_per_task);
  write_file_atomic(script, text);
  fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
  return script;
}

RoundStats run_array_round(const fs::path& round_dir, const fs::path& script, const std::string& job_name,
                           const ArrayOptions& options, const SlurmClient& client, const std::function<Owing()>& owing,
                           const std::function<void(size_t have)>& progress,
                           const std::function<void(const std::string&)>& note) {
  RoundStats stats;
  fs::create_directories(round_dir / "logs");
  std::vector<std::string> jobs = recorded_jobs(round_dir);
  const auto t0 = std::chrono::steady_clock::now();
  int stalls = 0;
  size_t have_at_submit = SIZE_MAX;
  for (;;) {
    Owing o = owing();
    if (progress) progress(o.have);
    if (o.tasks.empty()) break;
    bool queued = false;
    for (const std::string& j : jobs) {
      if (!client.queued(j).empty()) {
        queued = true;
        break;
      }
    }
    if (!queued) {
      o = owing();  // a task may have written its last result and left the queue since the look above
      if (o.tasks.empty()) break;
      if (have_at_submit != SIZE_MAX && o.have <= have_at_submit) {
        if (++stalls > options.retries) {
          const int t = *o.tasks.begin();
          const fs::path log = round_dir / "logs" / fmt::format("task-{}.out", t);
          throw Error(fmt::format("{}: task {} ended {} times in a row without finishing anything; {} ends: {}",
                                  round_dir.string(), t, stalls, log.string(), log_tail(log)));
        }
      } else {
        stalls = 0;
      }
      ArrayJob job;
      job.script = script;
      job.tasks.assign(o.tasks.begin(), o.tasks.end());
      job.name = job_name;
      job.partition = options.partition;
      job.time_limit = options.time_limit;
      job.cpus_per_task = options.cpus_per_task;
      job.output = round_dir / "logs" / "task-%a.out";
      job.chdir = round_dir;
      job.extra = options.sbatch_extra;
      const std::string id = client.submit(job);
      record_job(round_dir, id, array_spec(job.tasks));
      if (!jobs.empty()) stats.resubmitted_tasks += job.tasks.size();
      jobs.push_back(id);
      ++stats.submissions;
      have_at_submit = o.have;
      if (note) {
        note(fmt::format("{}: {} {} as job {} (array {}), {} of {} results in", job_name,
                         jobs.size() == 1 ? "submitted" : "resubmitted",
                         job.tasks.size() == 1 ? "1 task" : fmt::format("{} tasks", job.tasks.size()), id,
                         array_spec(job.tasks), o.have, o.total));
      }
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(options.poll_seconds));
  }
  stats.wait_seconds = seconds_since(t0);
  return stats;
}

}  // namespace tauvta::cluster
