#!/usr/bin/env python3
"""tools/calibrate/fit_board.py fits only documented physical parameters and refuses a fit that
leaves a parameter's documented range (tools/calibrate/ranges.json): it prints the residuals by
kind and by session either way, and writes nothing when it refuses.
Usage: calibrate_ranges.py TAUVTA SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile


def fit(tauvta, src, extra):
    cmd = [sys.executable, os.path.join(src, "tools/calibrate/fit_board.py"), "--tauvta", tauvta,
           "--log", os.path.join(src, "tests/data/calibration/tophub_vta_v0.10_calibration.jsonl"),
           "--rounds", "1"] + extra
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    tauvta, src = sys.argv[1], sys.argv[2]
    failures = []

    def check(cond, what, p):
        if not cond:
            failures.append(f"{what}\n--- stdout\n{p.stdout[-3000:]}\n--- stderr\n{p.stderr[-2000:]}")

    with tempfile.TemporaryDirectory() as tmp:
        start = ["--start", json.dumps({"DRAM_LATENCY_CYCLES": 80, "DRAM_BANDWIDTH_GBPS": 0.4})]
        latency = ["--fit", "DRAM_LATENCY_CYCLES", "--tie", "WRITE_LATENCY_CYCLES=DRAM_LATENCY_CYCLES"]
        # Within the documented ranges: the fit is written, with the residuals by kind and session.
        out = os.path.join(tmp, "fit.json")
        p = fit(tauvta, src, start + latency + ["--out", out])
        check(p.returncode == 0, "a fit within the documented ranges failed", p)
        check("residuals by session (day measured, config, bitstream)" in p.stdout, "no residuals by session", p)
        check("residuals by kind (template, kernel, config)" in p.stdout, "no residuals by kind", p)
        if os.path.exists(out):
            j = json.load(open(out))
            lat = j["fitted"]["DRAM_LATENCY_CYCLES"]
            check(40 <= lat <= 120, f"fitted latency {lat} outside [40, 120]", p)
            check(len(j["by_session"]) == 3, "the fit's JSON lacks the three sessions", p)
        else:
            check(False, "--out was not written", p)

        # A range the records contradict: the fit leaves it and is refused, nothing written.
        narrow = json.load(open(os.path.join(src, "tools/calibrate/ranges.json")))
        narrow["pynq"]["DRAM_LATENCY_CYCLES"].update({"min": 100, "max": 110})
        narrow["pynq"]["WRITE_LATENCY_CYCLES"].update({"min": 100, "max": 110})
        ranges = os.path.join(tmp, "narrow.json")
        json.dump(narrow, open(ranges, "w"))
        refused = os.path.join(tmp, "refused.json")
        p = fit(tauvta, src, start + latency + ["--ranges", ranges, "--out", refused])
        check(p.returncode != 0, "a fit outside its documented range was not refused", p)
        check("refused, nothing written: DRAM_LATENCY_CYCLES = " in p.stderr
              and "outside its documented range [100, 110]" in p.stderr, "the refusal does not name the parameter", p)
        check("residuals by kind" in p.stdout, "a refused fit did not print its residuals", p)
        check(not os.path.exists(refused), "a refused fit wrote --out", p)

        # Only documented physical parameters of the board may be fitted.
        del narrow["pynq"]["BURST_OVERHEAD_CYCLES"]
        json.dump(narrow, open(ranges, "w"))
        p = fit(tauvta, src, ["--ranges", ranges, "--fit", "BURST_OVERHEAD_CYCLES"])
        check(p.returncode != 0 and "not a documented physical parameter of board 'pynq'" in p.stderr,
              "an undocumented parameter was fitted", p)
        json.dump({"zcu104": narrow["pynq"]}, open(ranges, "w"))
        p = fit(tauvta, src, ["--ranges", ranges] + latency)
        check(p.returncode != 0 and "documents no parameters of board 'pynq'" in p.stderr,
              "a board without documented ranges was fitted", p)

    if failures:
        sys.exit("\n\n".join(failures))
    print("calibrate_ranges: ok")


if __name__ == "__main__":
    main()
