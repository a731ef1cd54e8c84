#!/usr/bin/env python3
"""The tuner never returns a schedule slower than one it was given (issue 33, item 6): for every
record of TopHub's VTA log in the repository, `tauvta tune --workload SPEC --transfer LOG --trials 2`
(the two trials are what the tuner was given: the default heuristic and the record itself) must
return a best at least as fast as the record's own schedule, as `tauvta op --log --no-bitstreams`
times it with the same timing model.
Usage: tophub_given.py TAUVTA TOPHUB_LOG"""
import json
import os
import re
import subprocess
import sys
import tempfile

WORKLOAD = re.compile(r"(\w+) (\d+)x(\d+)x(\d+)x(\d+) -> (\d+) k(\d+)x(\d+) s(\d+)x(\d+) "
                      r"p(\d+),(\d+),(\d+),(\d+) d1x1 g(\d+)")


def main():
    tauvta, log = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "op.json")
        # --no-bitstreams: the tuner times the config's HLS design, so the records are timed on it too
        # (not on the bitstream each was measured on, hw/bitstreams.cpp).
        subprocess.run([tauvta, "op", "--log", log, "--timing-only", "--no-bitstreams", "--report", report], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        records = json.load(open(report))["records"]
        checked, worse = 0, []
        for i, r in enumerate(records):
            m = WORKLOAD.fullmatch(r["workload"])
            if not r.get("gops") or not m:
                continue
            op, n, ci, h, w, co, kh, kw, sh, sw, p0, p1, p2, p3, g = m.groups()
            if kh != kw or sh != sw or len({p0, p1, p2, p3}) != 1:
                continue  # the workload spec takes square kernels, strides and pads
            spec = f"{op},n={n},ci={ci},h={h},w={w},co={co},k={kh},s={sh},p={p0}" + (f",g={g}" if g != "1" else "")
            config = r["model"].split("_", 1)[1]  # "pynq_1x16_i8w8a32_15_15_18_17" -> the VTA name
            out = os.path.join(tmp, f"tune{i}.json")
            subprocess.run([tauvta, "tune", "--workload", spec, "--config", config, "--log",
                            os.path.join(tmp, f"tune{i}.jsonl"), "--trials", "2", "--transfer", log, "--no-verify",
                            "-q", "--threads", "1", "--report", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            best = json.load(open(out))["tasks"][0]["best"]["measure"]["gops"]
            checked += 1
            if best < r["gops"] * (1 - 1e-12):
                worse.append(f"{spec} on {config}: tuned {best:.4f} GOPS < TopHub's schedule {r['gops']:.4f}")
    print(f"tophub_given: {checked} records; the tuned best is at least TopHub's schedule on {checked - len(worse)}")
    for line in worse:
        print("FAIL " + line)
    return 1 if worse or checked < 25 else 0


if __name__ == "__main__":
    sys.exit(main())
