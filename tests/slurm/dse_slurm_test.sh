#!/usr/bin/env bash
# tauvta dse --slurm against a real Slurm cluster on this machine (scripts/slurm-local: munge,
# slurmctld and three slurmd nodes), compared with the same exploration run on this machine alone.
#
#   tests/slurm/dse_slurm_test.sh TAUVTA node-loss     a node is killed (slurmd, its steps and
#                                                      tasks) while one of its tasks is half done
#   tests/slurm/dse_slurm_test.sh TAUVTA coordinator   the coordinator is SIGKILLed while a task is
#                                                      half done, then run again
#   tests/slurm/dse_slurm_test.sh TAUVTA cancel        a half-done task is scancelled (as a time
#                                                      limit would end it): the coordinator
#                                                      resubmits it for what it had not finished
#
# Either way the results must equal the single-machine run's, no evaluation may be done twice or
# lost (tests/slurm/dse_runs.py compare), and the script stops every daemon it started.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "dse_slurm_test: skipped: scripts/slurm-local needs root to run slurmd"
  exit 77
fi
TAUVTA=$(readlink -f "$1")
SCENARIO=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
SL="$SRC/scripts/slurm-local"
PY=/usr/bin/python3
T=$(mktemp -d /tmp/tauvta-slurm-test.XXXXXX)
CLUSTER="$T/cluster"
COORD=""

cleanup() {
  [ -n "$COORD" ] && kill -9 "$COORD" 2>/dev/null || true
  "$SL" stop --dir "$CLUSTER" >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT
say() { echo "dse_slurm_test: $(date +%T.%N | cut -c1-12) $*"; }

"$SL" start --dir "$CLUSTER" --nodes 3 --cpus 2 >"$T/start.log" 2>&1 || { cat "$T/start.log"; exit 1; }
# shellcheck disable=SC1091
. "$CLUSTER/env.sh"

# Six tuned designs per sprint over two array tasks: each task tunes three designs one after the
# other, which leaves a few seconds with one finished and two to do (dse_runs.py wait-partial).
ARGS=(dse --workload conv2d,ci=256,h=28,w=28,co=256,k=3,s=1,p=1 --device pynq-z1 --precisions 8
      --strategy tau --budget 400 --overlays 12 --sprint 6 --initial 12 --seed 5)
SLURM_ARGS=(--slurm --array-size 2 --poll 0.5)

t0=$(date +%s.%N)
"$TAUVTA" "${ARGS[@]}" -q --threads 2 --out "$T/local" >"$T/local.log" 2>&1 || { cat "$T/local.log"; exit 1; }
t1=$(date +%s.%N)
say "single machine: $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s"

"$TAUVTA" "${ARGS[@]}" "${SLURM_ARGS[@]}" --out "$T/slurm" >"$T/coord.log" 2>&1 &
COORD=$!
read -r node job task < <("$PY" "$HERE/dse_runs.py" wait-partial "$T/slurm" --timeout 180)
[ -n "${task:-}" ] || { say "no half-done task to interrupt"; cat "$T/coord.log"; exit 1; }

case "$SCENARIO" in
  node-loss)
    say "killing node $node (slurmd, its job steps and their tasks) at $(date +%s.%N), during task ${job}_${task}"
    "$SL" kill-node "$node" --dir "$CLUSTER"
    ;;
  coordinator)
    say "killing the coordinator (pid $COORD) while a task on $node is half done"
    kill -9 "$COORD"
    wait "$COORD" 2>/dev/null || true
    "$TAUVTA" "${ARGS[@]}" "${SLURM_ARGS[@]}" --out "$T/slurm" >"$T/coord2.log" 2>&1 &
    COORD=$!
    ;;
  cancel)
    say "scancel ${job}_${task} (on $node)"
    scancel "${job}_${task}"
    ;;
  *) echo "unknown scenario $SCENARIO" >&2; exit 2 ;;
esac

if ! wait "$COORD"; then
  COORD=""
  say "the coordinator failed:"; cat "$T"/coord*.log; exit 1
fi
COORD=""
t2=$(date +%s.%N)
say "slurm run (with the $SCENARIO): $(awk "BEGIN{printf \"%.1f\", $t2 - $t1}") s"
"$PY" "$HERE/dse_runs.py" compare "$T/local" "$T/slurm"

if [ "$SCENARIO" = coordinator ]; then
  grep -q "picking up the round" "$T/coord2.log" || { say "the restarted coordinator did not pick up the round"; cat "$T/coord2.log"; exit 1; }
  grep -q "resuming:" "$T/coord2.log" || { say "the restarted coordinator did not resume from the cache"; cat "$T/coord2.log"; exit 1; }
else
  if [ "$SCENARIO" = cancel ]; then
    grep -q "resubmitted" "$T/coord.log" || { say "the coordinator did not resubmit the cancelled task"; cat "$T/coord.log"; exit 1; }
  fi
  # The interrupted task ran again and skipped what it had finished.
  "$PY" - "$T/slurm" <<'PYEOF'
import glob, json, os, sys
runs = {}
for f in glob.glob(os.path.join(sys.argv[1], "slurm", "p*", "results", "task-*.jsonl")):
    key = (os.path.dirname(os.path.dirname(f)), os.path.basename(f).split(".")[0])
    runs[key] = runs.get(key, 0) + 1
skipped = sum(json.load(open(f))["from_earlier_attempts"]
              for f in glob.glob(os.path.join(sys.argv[1], "slurm", "p*", "results", "*.summary.json")))
if not any(n > 1 for n in runs.values()):
    for f in sorted(glob.glob(os.path.join(sys.argv[1], "slurm", "p*", "results", "*.summary.json"))):
        j = json.load(open(f))
        print(os.path.basename(f), j["node"], j["items"], j["computed"], f"{j['started']:.2f}-{j['ended']:.2f}")
    sys.exit("dse_slurm_test: no task ran a second time after it was interrupted")
if skipped < 1:
    sys.exit("dse_slurm_test: the task run again did not take up the evaluations finished before")
PYEOF
fi

"$SL" stop --dir "$CLUSTER" >/dev/null
left=$(grep -l "TAUVTA_SLURM_LOCAL=$CLUSTER" /proc/[0-9]*/environ 2>/dev/null | wc -l || true)
[ "$left" -eq 0 ] || { say "$left processes of the cluster are still running after stop"; exit 1; }
say "passed ($SCENARIO)"
