#!/usr/bin/env bash
# tauvta tune --slurm against a real Slurm cluster on this machine (scripts/slurm-local): VGG-7's
# eight tasks tuned as a job array of three tasks must append to the log the records a
# single-machine run appends (timestamps aside), in the same order, and pick the same schedules.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "tune_slurm_test: skipped: scripts/slurm-local needs root to run slurmd"
  exit 77
fi
TAUVTA=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
SL="$SRC/scripts/slurm-local"
T=$(mktemp -d /tmp/tauvta-slurm-tune.XXXXXX)
trap '"$SL" stop --dir "$T/cluster" >/dev/null 2>&1 || true; rm -rf "$T"' EXIT

"$SL" start --dir "$T/cluster" --nodes 3 --cpus 2 >"$T/start.log" 2>&1 || { cat "$T/start.log"; exit 1; }
# shellcheck disable=SC1091
. "$T/cluster/env.sh"
cd "$T"
ARGS=(tune "$SRC/models/vgg7_fmnist.onnx" --trials 96 --seed 3 -q)
"$TAUVTA" "${ARGS[@]}" --log local.jsonl --report local.json >local.out 2>&1 || { cat local.out; exit 1; }
"$TAUVTA" "${ARGS[@]}" --log slurm.jsonl --report slurm.json --slurm --array-size 3 --poll 0.5 >slurm.out 2>&1 ||
  { cat slurm.out; exit 1; }
grep -q "slurm: 8 task(s) tuned in 3 array task(s)" slurm.out || { cat slurm.out; exit 1; }
/usr/bin/python3 - <<'PYEOF'
import json, sys
def records(path):
    out = []
    for line in open(path):
        j = json.loads(line)
        j["result"] = j["result"][:2]  # [[costs], error_no, all_cost, timestamp]: the last two are wall clocks
        out.append(j)
    return out
a, b = records("local.jsonl"), records("slurm.jsonl")
if a != b:
    sys.exit(f"tune_slurm_test: the logs differ ({len(a)} against {len(b)} records)")
ra, rb = json.load(open("local.json")), json.load(open("slurm.json"))
for x, y in zip(ra["tasks"], rb["tasks"]):
    if x["best"] != y["best"] or x["trials"] != y["trials"]:
        sys.exit(f"tune_slurm_test: {x['name']}: a different best or trial count")
if ra["end_to_end"] != rb["end_to_end"]:
    sys.exit("tune_slurm_test: end-to-end cycles differ")
print(f"tune_slurm_test: passed: {len(a)} records identical, {len(ra['tasks'])} tasks' bests equal")
PYEOF
