#!/usr/bin/env python3
"""Fits the board-level memory parameters of the timing model to board measurements.

The records (AutoTVM log lines with a measured time, tests/data/calibration/) are run through
`tauvta op --log FILE --timing-only --timing JSON`, so the model is exactly the one the tools
use. Only the parameters named by --fit move; every other TIMING key keeps the config's value.
The objective is the mean |log(model / board)| over all records, each capped at log(--cap):
a ratio error, symmetric for optimistic and pessimistic predictions, that a record the model's
physics cannot explain (docs/timing_model.md lists them) cannot dominate. The search is a coordinate descent over integers with shrinking steps, from the
config's current values, so the result is reproducible.

    tools/calibrate/fit_board.py --tauvta build/tauvta \
        --log tests/data/calibration/tophub_vta_v0.10_calibration.jsonl \
        --fit DRAM_LATENCY_CYCLES WRITE_LATENCY_CYCLES BURST_OVERHEAD_CYCLES ROW_OVERHEAD_CYCLES

Prints each step, then the per-record table (predicted, measured, error) with the median and
maximum |error|; --out writes the fitted TIMING values and the table as JSON.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

# The board-level parameters the search may move: the search's bounds and the finest step
# (cycles of the fabric clock; GB/s for the bandwidth). Which of them a board's fit may return,
# and in what range, is tools/calibrate/ranges.json: a value outside it is refused.
RANGES = {
    "DRAM_LATENCY_CYCLES": (0, 1000, 1),
    "WRITE_LATENCY_CYCLES": (0, 1000, 1),
    "BURST_OVERHEAD_CYCLES": (0, 256, 1),
    "ROW_OVERHEAD_CYCLES": (0, 1000, 1),
    "DRAM_BANDWIDTH_GBPS": (0.05, 20.0, 0.01),
}
DOCUMENTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ranges.json")


def run_model(args, timing):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        cmd = [args.tauvta, "op", "--log", args.log, "--timing-only", "--timing", json.dumps(timing),
               "--report", report]
        if args.config:
            cmd += ["--config", args.config]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"fit_board: {' '.join(cmd)} failed: {p.stderr.strip()}")
        with open(report) as f:
            return json.load(f)


def objective(records, cap):
    errs = [min(cap, abs(math.log(r["seconds_at_clock"] / r["board_seconds"]))) for r in records]
    return sum(errs) / len(errs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tauvta", default="build/tauvta")
    ap.add_argument("--log", required=True, help="AutoTVM log whose records carry board times")
    ap.add_argument("--config", default="", help="force one config (default: each record's own)")
    ap.add_argument("--start", default="{}", help="TIMING values to start from (JSON object)")
    ap.add_argument("--fit", nargs="+", required=True, choices=sorted(RANGES))
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--cap", type=float, default=1.5,
                    help="a record counts at most |log(cap)|: one the physics cannot explain (say a "
                         "slower bitstream) cannot drag the fit (default 1.5, i.e. 50%%)")
    ap.add_argument("--tie", nargs="*", default=[], metavar="KEY=FITTED",
                    help="keys that take a fitted key's value, e.g. WRITE_LATENCY_CYCLES=DRAM_LATENCY_CYCLES "
                         "(one round trip through the same port and controller for reads and writes)")
    ap.add_argument("--out", default="", help="write the fitted values and the table as JSON")
    ap.add_argument("--ranges", default=DOCUMENTED,
                    help="the documented range of each parameter per board (default: tools/calibrate/ranges.json)")
    args = ap.parse_args()

    with open(args.ranges) as f:
        documented = json.load(f)
    resolved = resolved_config(args)
    board = resolved["TARGET"]
    ranges = documented.get(board)
    if ranges is None:
        sys.exit(f"fit_board: {args.ranges} documents no parameters of board '{board}': nothing may be fitted")
    for name in args.fit:
        if name not in ranges:
            sys.exit(f"fit_board: --fit {name}: not a documented physical parameter of board '{board}' "
                     f"({args.ranges} has {', '.join(sorted(k for k in ranges))})")

    timing = json.loads(args.start)
    ties = [tuple(t.split("=", 1)) for t in args.tie]
    for key, source in ties:
        if source not in args.fit:
            sys.exit(f"fit_board: --tie {key}={source}: {source} is not fitted")
        if key not in ranges:
            sys.exit(f"fit_board: --tie {key}={source}: {key} is not a documented physical parameter of "
                     f"board '{board}'")

    def tied(t):
        t = dict(t)
        for key, source in ties:
            t[key] = t[source]
        return t

    cache = {}

    def evaluate(t):
        t = tied(t)
        key = json.dumps(t, sort_keys=True)
        if key not in cache:
            cache[key] = objective(run_model(args, t)["records"], math.log(args.cap))
        return cache[key]

    defaults = resolved["TIMING"]
    for name in args.fit:
        timing.setdefault(name, defaults[name])
    best = evaluate(timing)
    print(f"start {json.dumps({k: timing[k] for k in args.fit})}  mean |log error| {best:.4f}", flush=True)
    # Steps start at a quarter of each starting value (a range-wide step would jump over the
    # narrow valleys of parameters like the bandwidth, whose effect saturates at the bus width).
    step = {k: max(RANGES[k][2], abs(timing[k]) / 4) for k in args.fit}
    for rnd in range(args.rounds):
        improved = True
        while improved:
            improved = False
            for name in args.fit:
                lo, hi, fine = RANGES[name]
                for direction in (+1, -1):
                    while True:
                        trial = dict(timing)
                        value = round(round((timing[name] + direction * step[name]) / fine) * fine, 6)
                        trial[name] = min(hi, max(lo, int(value) if fine == 1 else value))
                        if trial[name] == timing[name]:
                            break
                        v = evaluate(trial)
                        if v + 1e-12 < best:
                            timing, best, improved = trial, v, True
                            print(f"  {name} = {timing[name]}  mean |log error| {best:.4f}", flush=True)
                        else:
                            break
        for name in args.fit:
            step[name] = max(RANGES[name][2], step[name] / 2)
        print(f"round {rnd + 1}: {json.dumps({k: timing[k] for k in args.fit})}  mean |log error| {best:.4f}",
              flush=True)

    timing = tied(timing)
    report = run_model(args, timing)
    records = report["records"]
    table = []
    print(f"\n{'line':>5} {'config':<26} {'workload':<56} {'model us':>10} {'board us':>10} {'error':>8}")
    for r in records:
        err = r["seconds_at_clock"] / r["board_seconds"] - 1
        table.append({"line": r["line"], "model": r["model"], "workload": r["workload"], "schedule": r["schedule"],
                      "model_seconds": r["seconds_at_clock"], "board_seconds": r["board_seconds"], "error": err})
        print(f"{r['line']:>5} {r['model'].split('-model=')[-1][-26:]:<26} {r['workload']:<56} "
              f"{r['seconds_at_clock'] * 1e6:>10.1f} {r['board_seconds'] * 1e6:>10.1f} {100 * err:>+7.1f}%")
    mags = sorted(abs(t["error"]) for t in table)
    median, worst = statistics.median(mags), mags[-1]
    print(f"\nfitted {json.dumps({k: timing[k] for k in args.fit})}"
          + (f", tied {json.dumps({k: timing[k] for k, _ in ties})}" if ties else ""))
    print(f"median |error| {100 * median:.1f}%, max |error| {100 * worst:.1f}%, "
          f"{sum(m > 0.35 for m in mags)} of {len(mags)} above 35%")
    comparison = report["board_comparison"]
    for title, key in (("residuals by kind (template, kernel, config)", "by_kind"),
                       ("residuals by session (day measured, config, bitstream)", "by_session")):
        print(f"\n{title:<78} {'records':>7} {'median':>8} {'median |e|':>11} {'max |e|':>8}")
        for k in comparison.get(key, []):
            print(f"{k['kind']:<78} {k['records']:>7} {100 * k['median_error']:>+7.1f}% "
                  f"{100 * k['median_abs_error']:>10.1f}% {100 * k['max_abs_error']:>7.1f}%")
    # Every value must lie in its documented range; a fit outside says the model lacks a mechanism.
    outside = [f"{k} = {timing[k]} is outside its documented range [{ranges[k]['min']}, {ranges[k]['max']}] "
               f"({ranges[k]['why']})"
               for k in list(args.fit) + [t for t, _ in ties]
               if k in ranges and not ranges[k]["min"] <= timing[k] <= ranges[k]["max"]]
    if outside:
        sys.exit("fit_board: refused, nothing written: " + "; ".join(outside))
    if args.out:
        with open(args.out + ".tmp", "w") as f:
            json.dump({"fitted": {k: timing[k] for k in args.fit}, "timing": timing, "objective": best,
                       "by_kind": comparison.get("by_kind", []), "by_session": comparison.get("by_session", []),
                       "median_abs_error": median, "max_abs_error": worst, "records": table}, f, indent=2)
        os.replace(args.out + ".tmp", args.out)


def resolved_config(args):
    """The config the first record resolves to (from one run's report): its TARGET and TIMING."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        cmd = [args.tauvta, "op", "--log", args.log, "--timing-only", "--report", report]
        if args.config:
            cmd += ["--config", args.config]
        subprocess.run(cmd, capture_output=True, check=True)
        with open(report) as f:
            return next(iter(json.load(f)["configs"].values()))


if __name__ == "__main__":
    main()
