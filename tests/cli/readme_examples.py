#!/usr/bin/env python3
"""Runs the README's command examples as written (the "Using it" blocks: tools and models).

Each fenced block of the README that starts with `build/tauvta` lines, up to the hardware
exploration, is run as one bash script (`set -e`) in a fresh directory whose `build`, `models`,
`configs` and `tests` point into the tree, so every relative path resolves as it does from the
repository's root and every output lands in the scratch directory. A line naming a file the user
brings (an all-caps placeholder such as YOUR_REPORTS.csv) is the only kind skipped; lines needing
the generated models (build/models) are skipped when scripts/make-models has not run. Exits
non-zero naming the block and line of the first command that fails, and prints
'N passed, N failed'.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

PLACEHOLDER = re.compile(r"\bYOUR_[A-Z_]+\b")


def blocks(readme):
    """(first line number, [(line number, logical line)]) of each fenced block."""
    out, cur, start, in_block = [], [], 0, False
    lines = open(readme, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines, 1):
        if line.startswith("```"):
            if in_block:
                out.append((start, cur))
                cur = []
            in_block = not in_block
            start = i + 1
            continue
        if in_block:
            cur.append((i, line))
    # Join backslash continuations (and comment-only continuation lines) into logical lines.
    result = []
    for start, raw in out:
        logical, pending, first = [], "", 0
        for n, line in raw:
            if pending:
                pending += "\n" + line
            else:
                pending, first = line, n
            if not line.rstrip().endswith("\\"):
                logical.append((first, pending))
                pending = ""
        result.append((start, logical))
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    readme = os.path.join(a.src, "README.md")
    text = open(readme, encoding="utf-8").read()
    section = text[text.index("## Using it"):text.index("The hardware itself")]
    first_line = text[:text.index("## Using it")].count("\n") + 1
    last_line = first_line + section.count("\n")
    have_models = os.path.exists(os.path.join(a.build, "models", "resnet18.onnx"))
    passed = failed = skipped = 0
    for start, logical in blocks(readme):
        if not (first_line <= start <= last_line):
            continue
        if not any(l.startswith("build/tauvta") for _, l in logical):
            continue
        with tempfile.TemporaryDirectory(prefix="tauvta_readme_") as tmp:
            os.symlink(os.path.abspath(a.build), os.path.join(tmp, "build"))
            for d in ("models", "configs", "tests", "tools"):
                os.symlink(os.path.join(a.src, d), os.path.join(tmp, d))
            for n, line in logical:
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                if PLACEHOLDER.search(line) or ("build/models/" in line and not have_models):
                    skipped += 1
                    print(f"README.md:{n}: skipped: {line.splitlines()[0]}")
                    continue
                # Assignments (D=..., P=...) carry to the next lines: run each command in the same
                # shell state by replaying the block's assignments before it.
                env_lines = [l for _, l in logical if re.match(r"^[A-Z]+=", l)]
                script = "set -e\n" + "\n".join(env_lines) + "\n" + line + "\n"
                r = subprocess.run(["bash", "-c", script], cwd=tmp, capture_output=True, text=True, timeout=900)
                if r.returncode == 0:
                    passed += 1
                else:
                    failed += 1
                    print(f"README.md:{n}: exit {r.returncode}: {line.splitlines()[0]}\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
