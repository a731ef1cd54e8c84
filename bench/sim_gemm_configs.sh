#!/usr/bin/env bash
# The functional core's simulated GOPS per wall-second on the 1024^3 GEMM for every preset, and
# each one's rate against pynq's measured in the same run (rounds alternate pynq and the preset,
# so a slow spell of the shared machine hits both; the median ratio over rounds is printed).
#   bash bench/sim_gemm_configs.sh [ROUNDS]   (default 3; needs build/bench/sim_gemm_bench)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bench=build/bench/sim_gemm_bench
rate() {  # CONFIG -> simulated GOPS per wall-second (best of 3 runs inside the bench)
  "$bench" --config "configs/$1.json" --repeats 3 | awk '/functional core: simulated GOPS per wall-s/ {print $NF}'
}
printf '%-14s %10s %10s %12s\n' preset GOPS/s pynq_GOPS/s 'x pynq (med)'
for c in pynq_w4a4 pynq_w2a2 pynq_w1a1 pynq_w16 pynq_b4_blk8; do
  ratios=() last_rate=0 last_pynq=0
  for ((r = 0; r < rounds; ++r)); do
    p=$(rate pynq)
    x=$(rate "$c")
    ratios+=("$(awk -v a="$x" -v b="$p" 'BEGIN {printf "%.4f", a / b}')")
    last_rate=$x last_pynq=$p
  done
  med=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  printf '%-14s %10s %10s %12s\n' "$c" "$last_rate" "$last_pynq" "$med"
done
