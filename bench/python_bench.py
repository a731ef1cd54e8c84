#!/usr/bin/env python3
"""What `import tauvta` costs over the C++ it calls, and what an HTML page costs over the JSON report.

Interleaved rounds in one process (the machine is shared: ratios, not absolute times):
  * net.run(x) wall time against the run's own C++ time inside the same call (the report's
    sim_wall_seconds + cpu_seconds): the binding's overhead (inputs in, outputs out, the report
    as Python data);
  * net.time() wall time against its sim_wall_seconds;
  * net.time(html=...) against net.time(): the page's cost (render with Chart.js inlined, write);
  * tauvta.op(spec, timing_only=True) against the same through `tauvta op --timing-only` (a
    process per call: what scripting the CLI would cost).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--rounds 20] [--out bench.json]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "build" / "python"))

import numpy as np  # noqa: E402
import tauvta  # noqa: E402


def timed(f):
    t0 = time.perf_counter()
    r = f()
    return time.perf_counter() - t0, r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--out", help="write the figures as JSON")
    ap.add_argument("--tauvta", default=str(REPO / "build" / "tauvta"))
    a = ap.parse_args()

    net = tauvta.compile(str(REPO / "models/vgg7_fmnist.onnx"),
                         calibrate="/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", calib_samples=64)
    x = np.load(REPO / "models/vgg7_fmnist_input.npy")
    spec = "conv2d,ci=64,h=28,w=28,co=64,k=3,s=1,p=1"
    rows = {k: [] for k in ["run_wall", "run_inner", "time_wall", "time_inner", "time_html_wall", "op_py", "op_cli"]}
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "p.html")
        for i in range(a.rounds):
            w, (_, rep) = timed(lambda: net.run(x))
            rows["run_wall"].append(w)
            rows["run_inner"].append(rep["total"]["sim_wall_seconds"] + rep["total"]["cpu_seconds"])
            w, rep = timed(net.time)
            rows["time_wall"].append(w)
            rows["time_inner"].append(rep["total"]["sim_wall_seconds"])
            w, _ = timed(lambda: net.time(html=page, force=True))
            rows["time_html_wall"].append(w)
            w, _ = timed(lambda: tauvta.op(spec, timing_only=True))
            rows["op_py"].append(w)
            w, _ = timed(lambda: subprocess.run([a.tauvta, "op", "conv2d", "--ci", "64", "--height", "28", "--width", "28",
                                                 "--co", "64", "--kernel", "3", "--pad", "1", "--timing-only"],
                                                check=True, capture_output=True))
            rows["op_cli"].append(w)
            print(f"\rround {i + 1}/{a.rounds}", end="", file=sys.stderr, flush=True)
        page_bytes = os.path.getsize(page)
    print(file=sys.stderr)
    med = {k: statistics.median(v) for k, v in rows.items()}
    figures = {
        "rounds": a.rounds,
        "median_seconds": med,
        "run_overhead_ratio": med["run_wall"] / med["run_inner"],
        "time_overhead_ratio": med["time_wall"] / med["time_inner"],
        "html_page_ratio": med["time_html_wall"] / med["time_wall"],
        "html_page_bytes": page_bytes,
        "op_cli_over_python": med["op_cli"] / med["op_py"],
    }
    print(f"{'measure':<44}{'median ms':>12}")
    for k, v in med.items():
        print(f"{k:<44}{1e3 * v:>12.3f}")
    print(f"\nnet.run wall / its C++ time           {figures['run_overhead_ratio']:.3f}x")
    print(f"net.time wall / its C++ time          {figures['time_overhead_ratio']:.3f}x")
    print(f"net.time(html=...) / net.time()       {figures['html_page_ratio']:.3f}x  ({page_bytes / 1e3:.0f} kB page)")
    print(f"`tauvta op` process / tauvta.op call  {figures['op_cli_over_python']:.2f}x")
    if a.out:
        pathlib.Path(a.out).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
