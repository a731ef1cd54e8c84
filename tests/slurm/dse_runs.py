#!/usr/bin/env python3
"""Helpers of tests/slurm/dse_slurm_test.sh (the DSE through a real local Slurm cluster).

  dse_runs.py wait-partial OUT [--timeout S]
      Waits until an array task of OUT/slurm is RUNNING with at least one evaluation finished and
      at least two still to do, in a round that tunes; prints its node name (what the test then kills or interrupts).
  dse_runs.py compare LOCAL SLURM
      Checks that the Slurm run's results equal the single-machine run's (wall times and Slurm
      bookkeeping aside) and that no evaluation was done twice or lost; prints what it found.
"""
import glob
import json
import os
import subprocess
import sys
import time


def fail(msg):
    print(f"dse_runs: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def finished_lines(path):
    """Cache keys of the finished (newline-terminated) lines of a results file."""
    with open(path, "rb") as f:
        data = f.read()
    keys = []
    for line in data.split(b"\n")[:-1]:
        if line.strip():
            keys.append(json.loads(line)["cache_key"])
    return keys


def queued(job):
    out = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%i|%T|%N"], capture_output=True, text=True)
    rows = []
    for line in out.stdout.splitlines():
        tid, state, node = line.split("|")
        if "_" in tid and tid.split("_")[1].isdigit():
            rows.append((int(tid.split("_")[1]), state, node))
    return rows


def worker_pids(job, task):
    """Pids of this host's `tauvta dse worker` processes of array task JOB_TASK."""
    pids = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            env = open(os.path.join(d, "environ"), "rb").read().split(b"\0")
            cmd = open(os.path.join(d, "cmdline"), "rb").read().split(b"\0")
        except OSError:
            continue
        if (f"SLURM_ARRAY_JOB_ID={job}".encode() in env and f"SLURM_ARRAY_TASK_ID={task}".encode() in env
                and b"worker" in cmd and b"dse" in cmd):
            pids.append(int(os.path.basename(d)))
    return pids


def tuning_now(out, pids):
    staged = set()
    for pid in pids:
        staged.update(glob.glob(os.path.join(out, "tuning", f"*.staging-{pid}-*")))
    return staged


def wait_partial(out, timeout):
    deadline = time.time() + timeout
    before = {}  # (job, task) -> the staged logs of its worker on the last look
    while time.time() < deadline:
        for rnd in sorted(glob.glob(os.path.join(out, "slurm", "p*"))):
            try:
                work = json.load(open(os.path.join(rnd, "work.json")))
                jobs = [json.loads(l)["job"] for l in open(os.path.join(rnd, "jobs.jsonl")) if l.strip()]
            except (OSError, ValueError):
                continue
            if not any(it["budget"] > 0 for it in work["items"]):
                continue  # screening rounds finish in a blink: wait for a tuning round
            for job in jobs:
                for task, state, node in queued(job):
                    if state != "RUNNING":
                        continue
                    pids = worker_pids(job, task)
                    now = tuning_now(out, pids)
                    last = before.get((job, task))
                    before[(job, task)] = now
                    fresh = now - last if last is not None else set()
                    if not fresh:
                        continue
                    items = sum(1 for it in work["items"] if it["task"] == task)
                    done = set()
                    for f in glob.glob(os.path.join(rnd, "results", f"task-{task}.*.jsonl")):
                        done.update(finished_lines(f))
                    if not 1 <= len(done) <= items - 1:
                        continue
                    time.sleep(0.3)
                    if fresh & tuning_now(out, pids):
                        print(node, job, task)
                        return
        time.sleep(0.05)
    fail(f"no running task started a lasting tuning after finishing an evaluation within {timeout} s")


def strip(obj, keys):
    if isinstance(obj, dict):
        return {k: strip(v, keys) for k, v in obj.items() if k not in keys}
    if isinstance(obj, list):
        return [strip(v, keys) for v in obj]
    return obj


def first_difference(a, b, path="$"):
    if type(a) != type(b):
        return f"{path}: {a!r} against {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: only in one"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} against {b!r}"


def evaluations(out):
    rows = {}
    with open(os.path.join(out, "evaluations.jsonl")) as f:
        for line in f:
            j = json.loads(line)
            if j["cache_key"] in rows:
                fail(f"{out}/evaluations.jsonl holds {j['cache_key']} twice")
            rows[j["cache_key"]] = strip(j, {"wall_seconds"})
    return rows


def tuning_records(path):
    # AutoTVM's result is [[costs], error_no, all_cost, timestamp]: the last two are wall clocks.
    recs = []
    for line in open(path):
        j = json.loads(line)
        j["result"] = j["result"][:2]
        recs.append(j)
    return recs


def compare(local, slurm):
    for f in ["designs.csv", "pareto.csv", "convergence.csv", "importance.csv"]:
        if open(os.path.join(local, f)).read() != open(os.path.join(slurm, f)).read():
            fail(f"{f} differs between {local} and {slurm}")
    a, b = evaluations(local), evaluations(slurm)
    if a.keys() != b.keys():
        fail(f"evaluated designs differ: {len(a.keys() - b.keys())} only local, {len(b.keys() - a.keys())} only on Slurm")
    for k in a:
        if a[k] != b[k]:
            fail(f"evaluation {k} differs: {first_difference(a[k], b[k])}")
    # Paths into the output directory name the run's own directory.
    sa = json.loads(open(os.path.join(local, "summary.json")).read().replace(os.path.abspath(local), "OUT").replace(local, "OUT"))
    sb = json.loads(open(os.path.join(slurm, "summary.json")).read().replace(os.path.abspath(slurm), "OUT").replace(slurm, "OUT"))
    sa, sb = strip(sa, {"wall_seconds", "slurm"}), strip(sb, {"wall_seconds", "slurm"})
    if sa != sb:
        fail(f"summary.json differs (wall times aside): {first_difference(sa, sb)}")
    for p in glob.glob(os.path.join(local, "best", "p*")):
        q = os.path.join(slurm, "best", os.path.basename(p))
        if open(os.path.join(p, "vta_config.json")).read() != open(os.path.join(q, "vta_config.json")).read():
            fail(f"{q}/vta_config.json differs")
        if os.path.exists(os.path.join(p, "tuning_log.jsonl")):
            if tuning_records(os.path.join(p, "tuning_log.jsonl")) != tuning_records(os.path.join(q, "tuning_log.jsonl")):
                fail(f"{q}/tuning_log.jsonl differs (timestamps aside)")
    # Nothing evaluated twice: every key is in exactly one task's results, whatever the attempts.
    seen = {}
    attempts = skipped = 0
    per_task = {}
    for rnd in sorted(glob.glob(os.path.join(slurm, "slurm", "p*"))):
        work = json.load(open(os.path.join(rnd, "work.json")))
        for f in sorted(glob.glob(os.path.join(rnd, "results", "task-*.jsonl"))):
            attempts += 1
            task = os.path.basename(f).split(".")[0]
            per_task[(rnd, task)] = per_task.get((rnd, task), 0) + 1
            for k in finished_lines(f):
                if k in seen:
                    fail(f"{k} was evaluated twice ({seen[k]} and {f})")
                seen[k] = f
        for f in glob.glob(os.path.join(rnd, "results", "task-*.summary.json")):
            skipped += json.load(open(f))["from_earlier_attempts"]
        missing = [it["cache_key"] for it in work["items"] if it["cache_key"] not in seen]
        if missing:
            fail(f"{rnd}: {len(missing)} evaluations of the work list have no result")
    if set(seen) - set(b):
        fail("results on the cluster that did not reach evaluations.jsonl")
    print(json.dumps({"evaluations": len(b), "on_cluster": len(seen), "attempt_files": attempts,
                      "tasks_run_again": sum(1 for n in per_task.values() if n > 1), "finished_before_a_kill_and_skipped": skipped}))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "wait-partial":
        timeout = float(sys.argv[4]) if len(sys.argv) >= 5 and sys.argv[3] == "--timeout" else 180
        wait_partial(sys.argv[2], timeout)
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
