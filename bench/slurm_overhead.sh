#!/usr/bin/env bash
# What running an exploration through Slurm costs, on this machine: the same `tauvta dse` run
# alone and through a local three-node cluster (scripts/slurm-local, all on this host, so the
# difference is overhead, not speed-up), timed by farm-bench in turn; then one Slurm run's rounds
# broken down per array task: sbatch to the worker's start (queueing and launch), the worker's
# setup (workload and design space rebuilt from the work list), its evaluations, and sbatch to
# the round's last result.
#
#   bench/slurm_overhead.sh [TAUVTA] [--runs N] [--json FILE]
#
# Needs root (slurmd) and the Debian packages scripts/setup installs. Prints a table; --json
# writes the per-round figures.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
TAUVTA=$(readlink -f "${1:-$SRC/build/tauvta}")
shift || true
RUNS=3
JSON=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --json) JSON=$2; shift 2 ;;
    *) echo "usage: bench/slurm_overhead.sh [TAUVTA] [--runs N] [--json FILE]" >&2; exit 2 ;;
  esac
done
SL="$SRC/scripts/slurm-local"
T=$(mktemp -d /tmp/tauvta-slurm-bench.XXXXXX)
trap '"$SL" stop --dir "$T/cluster" >/dev/null 2>&1 || true; rm -rf "$T"' EXIT
"$SL" start --dir "$T/cluster" --nodes 3 --cpus 2 >"$T/start.log" 2>&1 || { cat "$T/start.log"; exit 1; }
# shellcheck disable=SC1091
. "$T/cluster/env.sh"

WORK="dse --workload conv2d,ci=256,h=28,w=28,co=256,k=3,s=1,p=1 --device pynq-z1 --precisions 8 --strategy tau --budget 400 --overlays 12 --sprint 6 --initial 12 --seed 5 -q"
echo "== one exploration ($WORK), $RUNS runs each: Slurm (A) against this machine alone (B)"
farm-bench -n "$RUNS" --timeout 1800 --vs "sh -c 'rm -rf $T/l && exec $TAUVTA $WORK --threads 2 --out $T/l'" \
  -- sh -c "rm -rf $T/s && exec $TAUVTA $WORK --slurm --poll 0.5 --out $T/s"

# The same, and VGG-7 from its ONNX file (each worker imports, calibrates and quantizes it), once
# each through Slurm, broken down per round and array task.
MODEL="dse $SRC/models/vgg7_fmnist.onnx --device pynq-z1 --precisions 8 --strategy halving --budget 200 --candidates 8 --seed 3 -q"
rm -rf "$T/s" "$T/m"
"$TAUVTA" $WORK --slurm --poll 0.5 --out "$T/s" >/dev/null
"$TAUVTA" $MODEL --slurm --poll 0.5 --out "$T/m" >/dev/null 2>&1
/usr/bin/python3 - "$JSON" "$T/s" "$T/m" <<'PYEOF'
import glob, json, os, statistics, sys
json_path, runs = sys.argv[1], sys.argv[2:]
report = {}
for out, label in zip(runs, ["conv2d 256x28x28 -> 256, tau", "VGG-7 ONNX, halving"]):
  print(f"\n== one Slurm run of {label}, per round and array task")
  rows = []
  for rnd in glob.glob(os.path.join(out, "slurm", "p*")):
      work = json.load(open(os.path.join(rnd, "work.json")))
      jobs = [json.loads(l) for l in open(os.path.join(rnd, "jobs.jsonl")) if l.strip()]
      submitted = min(j["submitted"] for j in jobs)
      tasks = [json.load(open(f)) for f in glob.glob(os.path.join(rnd, "results", "*.summary.json"))]
      last_end = max(t["ended"] for t in tasks)
      rows.append({
          "round": os.path.basename(rnd),
          "submitted": submitted,
          "items": len(work["items"]),
          "tuned": any(it["budget"] > 0 for it in work["items"]),
          "array_tasks": work["tasks"],
          "launch_s": [t["started"] - submitted for t in tasks],
          "setup_s": [t["setup_seconds"] for t in tasks],
          "evaluate_s": [t["evaluate_seconds"] for t in tasks],
          "round_s": last_end - submitted,
      })
  rows.sort(key=lambda r: r["submitted"])
  med = statistics.median
  print(f"{'round':<22} {'items':>5} {'tasks':>5} {'launch s':>9} {'setup s':>8} {'eval s':>7} {'sbatch->last result s':>22}")
  for r in rows:
      print(f"{r['round']:<22} {r['items']:>5} {r['array_tasks']:>5} {med(r['launch_s']):>9.2f} {med(r['setup_s']):>8.3f} "
            f"{med(r['evaluate_s']):>7.2f} {r['round_s']:>22.2f}")
  launch = [x for r in rows for x in r["launch_s"]]
  setup = [x for r in rows for x in r["setup_s"]]
  print(f"per array task: launch (sbatch to worker start) median {med(launch):.2f} s (min {min(launch):.2f}, max {max(launch):.2f}); "
        f"worker setup median {med(setup):.3f} s; {len(launch)} tasks in {len(rows)} rounds")
  report[label] = {"rounds": rows, "launch_median_s": med(launch), "setup_median_s": med(setup)}
if json_path:
    json.dump(report, open(json_path, "w"), indent=1)
PYEOF
