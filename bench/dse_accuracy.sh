#!/usr/bin/env bash
# What the accuracy step adds to an exploration (docs/dse.md, "Accuracy under a bound"): the
# committed VGG-7 on the Pynq-Z1 at W8A8, W4A4, W2A2 and W1A1, exhaustive screening, each run into
# a fresh directory:
#   1. without an accuracy step;
#   2. with the step and a bound every format keeps (--min-accuracy 0): the same designs are
#      timed, so the difference is the step's cost (1000 tuning, 1000 held-out images, OTune);
#   3. with a 1-point bound, the answer a user asks for (formats below it are not timed);
#   4. run 3 again: everything from its caches.
# Prints the wall times, the step's cost and the per-format table of run 3.
#   bash bench/dse_accuracy.sh [OUT_DIR]      (default build/dse_accuracy)
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TAUVTA:-build/tauvta}
OUT=${1:-build/dse_accuracy}
D=/usr/share/datasets/fashion-mnist
rm -rf "$OUT" && mkdir -p "$OUT"
common=(dse models/vgg7_fmnist.onnx --calibrate "$D/train-images-idx3-ubyte.gz" --device pynq-z1 --precisions 8,4,2,1
        --strategy exhaustive --budget 0 -q)
data=(--images "$D/t10k-images-idx3-ubyte.gz" --labels "$D/t10k-labels-idx1-ubyte.gz")
t0=$(date +%s.%N); "$T" "${common[@]}" --out "$OUT/plain" > "$OUT/plain.txt"; t1=$(date +%s.%N)
"$T" "${common[@]}" "${data[@]}" --min-accuracy 0 --out "$OUT/any" > "$OUT/any.txt"; t2=$(date +%s.%N)
"$T" "${common[@]}" "${data[@]}" --max-accuracy-drop 1 --out "$OUT/bound" > "$OUT/bound.txt"; t3=$(date +%s.%N)
"$T" "${common[@]}" "${data[@]}" --max-accuracy-drop 1 --out "$OUT/bound" > "$OUT/again.txt"; t4=$(date +%s.%N)
python3 - "$OUT" "$t0" "$t1" "$t2" "$t3" "$t4" <<'PY'
import json, sys
out = sys.argv[1]
t0, t1, t2, t3, t4 = map(float, sys.argv[2:])
plain, anyb, bound, again = t1 - t0, t2 - t1, t3 - t2, t4 - t3
# The step's own time, measured in the process: each format's seconds (the float model's accuracy
# and the quantization at each width included). The difference of whole runs is within the noise
# of the screening on a shared machine.
step = sum(f["seconds"] for f in json.load(open(f"{out}/any/summary.json"))["accuracy"]["formats"])
print(f"no accuracy step {plain:.1f} s; with it, every format kept {anyb:.1f} s (difference {anyb - plain:+.1f} s; "
      f"the step itself {step:.1f} s); 1-point bound {bound:.1f} s; again from the caches {again:.1f} s")
PY
sed -n '/accuracy per format/,/^$/p' "$OUT/bound.txt"
