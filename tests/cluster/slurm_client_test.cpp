// The Slurm client's pieces that need no cluster: the --array form of task lists, the sbatch
// arguments a job array is submitted with, running a program and reading what it printed, and
// the one-line errors when a program is missing. (The client against a real cluster:
// tests/slurm/*.sh over scripts/slurm-local.)
#include <gtest/gtest.h>

#include <algorithm>

#include "common/error_of.h"
#include "cluster/array_round.h"
#include "cluster/process.h"
#include "cluster/slurm.h"
#include "common/error.h"

namespace tauvta::cluster {
namespace {

using tauvta::testing::error_of;

TEST(SlurmClient, ArraySpecFoldsRunsOfIndices) {
  EXPECT_EQ(array_spec({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(array_spec({7, 0, 2, 1, 2, 9, 8}), "0-2,7-9");
  EXPECT_EQ(array_spec({5}), "5");
  EXPECT_EQ(array_spec({1, 3, 5}), "1,3,5");
}

TEST(SlurmClient, SbatchArgumentsCarryEveryOption) {
  ArrayJob job;
  job.script = "/shared/round/task.sh";
  job.tasks = {3, 0, 1, 7};
  job.name = "tauvta-dse-p8";
  job.partition = "gpu";
  job.time_limit = "1:00:00";
  job.cpus_per_task = 4;
  job.output = "/shared/round/logs/task-%a.out";
  job.chdir = "/shared/round";
  job.extra = {"--account=lab"};
  const std::vector<std::string> a = SlurmClient{}.sbatch_args(job);
  for (const char* want : {"--parsable", "--array=0-1,3,7", "--job-name=tauvta-dse-p8", "--cpus-per-task=4",
                           "--requeue", "--open-mode=append", "--partition=gpu", "--time=1:00:00",
                           "--output=/shared/round/logs/task-%a.out", "--chdir=/shared/round", "--account=lab"}) {
    EXPECT_NE(std::find(a.begin(), a.end(), want), a.end()) << want;
  }
  EXPECT_EQ(a.back(), "/shared/round/task.sh");  // the script comes last: sbatch's options end there
  ArrayJob plain;
  plain.script = "t.sh";
  plain.tasks = {0};
  const std::vector<std::string> b = SlurmClient{}.sbatch_args(plain);
  EXPECT_EQ(std::count_if(b.begin(), b.end(), [](const std::string& s) { return s.starts_with("--partition"); }), 0);
}

TEST(ClusterProcess, ReadsBothStreamsAndTheExitCode) {
  const ProcessResult r = run_process({"sh", "-c", "echo out; echo err >&2; printf 'x%.0s' $(seq 1 70000); exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out.substr(0, 4), "out\n");
  EXPECT_EQ(r.out.size(), 4u + 70000u);  // more than a pipe holds: both streams are drained together
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(run_process({"sh", "-c", "kill -9 $$"}).exit_code, 128 + 9);
}

TEST(ClusterProcess, MissingProgramsAreOneLine) {
  EXPECT_EQ(error_of([] { run_process({"tauvta-no-such-program"}); }),
            "tauvta-no-such-program: not found on PATH (is its package installed?)");
  EXPECT_EQ(error_of([] { run_process({"/nonexistent/sbatch"}); }), "/nonexistent/sbatch: no such program");
  const SlurmClient client("/nonexistent/sbatch", "/nonexistent/squeue", "/nonexistent/scancel");
  ArrayJob job;
  job.script = "t.sh";
  job.tasks = {0};
  EXPECT_EQ(error_of([&] { client.submit(job); }), "/nonexistent/sbatch: no such program");
  EXPECT_EQ(error_of([&] { client.queued("12"); }), "/nonexistent/squeue: no such program");
}

TEST(SlurmClient, FailedCommandsNameWhatFailed) {
  // Stand-ins that fail the way the real programs do (the real ones run in tests/slurm).
  const SlurmClient client("false", "sh", "false");
  ArrayJob job;
  job.script = "t.sh";
  job.tasks = {0};
  EXPECT_EQ(error_of([&] { client.submit(job); }).rfind("sbatch failed (exit 1)", 0), 0u);
  EXPECT_EQ(error_of([&] { client.cancel("12"); }).rfind("scancel 12 failed", 0), 0u);
}

TEST(ArrayOptions, OutOfRangeOptionsAreRefused) {
  ArrayOptions o;
  o.check();
  EXPECT_EQ(o.tasks_for(3), 3);
  EXPECT_EQ(o.tasks_for(1000), 256);
  o.array_size = 4;
  EXPECT_EQ(o.tasks_for(10), 4);
  o.array_size = -1;
  EXPECT_EQ(error_of([&] { o.check(); }), "--array-size -1: must be 0 (automatic) or more");
  o.array_size = 0;
  o.cpus_per_task = 0;
  EXPECT_EQ(error_of([&] { o.check(); }), "--cpus-per-task 0: must be at least 1");
  o.cpus_per_task = 1;
  o.poll_seconds = 0;
  EXPECT_EQ(error_of([&] { o.check(); }), "--poll 0: must be above 0 seconds");
}

TEST(ArrayOptions, ShellQuotingSurvivesQuotesAndSpaces) {
  EXPECT_EQ(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
  const ProcessResult r = run_process({"sh", "-c", "printf %s " + shell_quote("/a b/it's $HOME")});
  EXPECT_EQ(r.out, "/a b/it's $HOME");
}

}  // namespace
}  // namespace tauvta::cluster
