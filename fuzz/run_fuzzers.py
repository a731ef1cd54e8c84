#!/usr/bin/python3
"""Runs the libFuzzer targets of a fuzz build (scripts/fuzz builds it) one after another.

    fuzz/run_fuzzers.py --build-dir build-fuzz [SECONDS] [TARGET...]

Each target runs for SECONDS (default 60) under `nice -n 10` on BUILD/corpus/<target>, a working
copy the committed seeds (fuzz/corpus/<target>) are copied into, never on the committed corpus.
Crash, timeout, leak and out-of-memory inputs go to BUILD/findings/<target>/. Prints executions,
coverage (cov, ft) and findings per target, writes BUILD/fuzz_summary.json, and exits 1 when any
target found something.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "fuzz")

# target -> libFuzzer's -max_len (bytes): large enough for the seeds, small enough to stay fast.
MAX_LEN = {
    "sim": 65536, "asm": 8192, "hw_config": 4096, "artifact": 65536, "artifact_body": 65536,
    "onnx": 32768, "tuning_log": 16384, "precision_formats": 4096, "precision_checkpoint": 8192,
    "npy": 4096, "tensor_pb": 4096, "idx": 4096,
}
# target -> its dictionary under fuzz/ (default: <target>.dict when it exists)
DICT = {"artifact_body": "artifact.dict"}
FINDING_PREFIXES = ("crash-", "timeout-", "leak-", "oom-")


def corpus_stats(d):
    files = [os.path.join(d, f) for f in os.listdir(d)] if os.path.isdir(d) else []
    return len(files), sum(os.path.getsize(f) for f in files)


def run_target(build, target, seconds, extra):
    exe = os.path.join(build, "fuzz", f"{target}_fuzz")
    corpus = os.path.join(build, "corpus", target)
    findings = os.path.join(build, "findings", target)
    logs = os.path.join(build, "fuzz_logs")
    for d in (corpus, findings, logs):
        os.makedirs(d, exist_ok=True)
    seeds = os.path.join(FUZZ, "corpus", target)
    for f in sorted(os.listdir(seeds)):
        dst = os.path.join(corpus, f)
        if not os.path.exists(dst):
            shutil.copyfile(os.path.join(seeds, f), dst)
    before = set(os.listdir(findings))
    args = ["nice", "-n", "10", exe, corpus, f"-max_total_time={seconds}", "-timeout=10", "-rss_limit_mb=2048",
            f"-max_len={MAX_LEN.get(target, 4096)}", f"-artifact_prefix={findings}/", "-print_final_stats=1"]
    dictionary = os.path.join(FUZZ, DICT.get(target, f"{target}.dict"))
    if os.path.exists(dictionary):
        args.append(f"-dict={dictionary}")
    args += extra
    log_path = os.path.join(logs, f"{target}.log")
    t0 = time.time()
    with open(log_path, "w") as log:
        # ASan's default leak check stays on; UBSan aborts (the build adds -fno-sanitize-recover).
        env = dict(os.environ, UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
                   ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_stack_use_after_return=0")
        code = subprocess.call(args, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=build)
    wall = time.time() - t0
    text = open(log_path, errors="replace").read()
    execs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
    covs = re.findall(r"cov: (\d+) ft: (\d+)", text)
    rss = re.findall(r"stat::peak_rss_mb:\s*(\d+)", text)
    new = sorted(os.path.join(findings, f) for f in set(os.listdir(findings)) - before
                 if f.startswith(FINDING_PREFIXES))
    files, size = corpus_stats(corpus)
    return {
        "target": target, "seconds": round(wall, 1), "exit_code": code,
        "execs": int(execs[-1]) if execs else None,
        "execs_per_second": round(int(execs[-1]) / wall) if execs and wall > 0 else None,
        "cov": int(covs[-1][0]) if covs else None, "ft": int(covs[-1][1]) if covs else None,
        "corpus_files": files, "corpus_bytes": size, "peak_rss_mb": int(rss[-1]) if rss else None,
        "findings": new, "log": log_path,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-fuzz"))
    ap.add_argument("args", nargs="*", help="[SECONDS] [TARGET...]")
    ap.add_argument("--libfuzzer-arg", action="append", default=[], help="passed to every fuzzer")
    a = ap.parse_args()
    build = os.path.abspath(a.build_dir)
    rest = list(a.args)
    seconds = int(rest.pop(0)) if rest and rest[0].isdigit() else 60
    targets = rest or sorted(d for d in os.listdir(os.path.join(FUZZ, "corpus")))
    unknown = [t for t in targets if not os.path.exists(os.path.join(build, "fuzz", f"{t}_fuzz"))]
    if unknown:
        print(f"fuzz: no such target(s): {', '.join(unknown)} (built: "
              f"{', '.join(sorted(f[:-5] for f in os.listdir(os.path.join(build, 'fuzz')) if f.endswith('_fuzz')))})")
        return 2
    results = []
    print(f"{'target':22s} {'secs':>6s} {'execs':>10s} {'exec/s':>7s} {'cov':>6s} {'ft':>7s} {'corpus':>7s}  findings")
    for t in targets:
        r = run_target(build, t, seconds, a.libfuzzer_arg)
        results.append(r)
        status = ", ".join(r["findings"]) if r["findings"] else ("none" if r["exit_code"] == 0 else
                                                                   f"exit {r['exit_code']} (see {r['log']})")
        print(f"{t:22s} {r['seconds']:6.0f} {r['execs'] or 0:10d} {r['execs_per_second'] or 0:7d} {r['cov'] or 0:6d} "
              f"{r['ft'] or 0:7d} {r['corpus_files']:7d}  {status}", flush=True)
    summary = os.path.join(build, "fuzz_summary.json")
    with open(summary, "w") as f:
        json.dump({"seconds_per_target": seconds, "targets": results}, f, indent=1)
    print(f"summary: {summary}")
    failed = [r for r in results if r["findings"] or r["exit_code"] != 0]
    if failed:
        print(f"fuzz: findings in {', '.join(r['target'] for r in failed)}; reproduce with "
              f"{build}/fuzz/<target>_fuzz <file>, then see docs/fuzzing.md")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
