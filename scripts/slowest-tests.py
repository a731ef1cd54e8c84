#!/usr/bin/env python3
"""Prints the slowest tests of gtest JSON reports (--gtest_output=json:FILE), per file.

    python3 scripts/slowest-tests.py build-asan/asan_shard*.json [--top 12]
scripts/sanitize-test calls it after the ASan shards: what to look at when that stage grows.
"""
import argparse
import json


def seconds(text):
    return float(text.rstrip("s") or 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    for path in args.reports:
        with open(path) as f:
            report = json.load(f)
        tests = [(seconds(t.get("time", "0s")), f"{suite['name']}.{t['name']}")
                 for suite in report.get("testsuites", []) for t in suite.get("testsuite", [])]
        total = sum(s for s, _ in tests)
        print(f"{path}: {len(tests)} tests, {total:.0f} s; slowest:")
        for s, name in sorted(tests, reverse=True)[:args.top]:
            print(f"  {s:8.1f} s  {name}")


if __name__ == "__main__":
    main()
