#!/usr/bin/env python3
"""Upper bound on the conv/dense GOPS of ANY bit-exact lowering of a network, from a `tauvta run
--report` JSON (the workloads, MACs and hardware config it records).

The compiler's `ceiling_gops` is the compute floor of the instructions it emitted. This bound is
looser on purpose: it grants every lowering trick there could be and keeps only what the hardware
cannot avoid, so a target above it cannot be reached by tuning or by a better compiler:

  * GEMM: the layer's useful MACs at full lanes, MACS / (BATCH x BLOCK_IN x BLOCK_OUT) micro-ops
    (a perfect packing of every channel, conv1's 147 included) at GEMM_II;
  * per output vector (BATCH x BLOCK_OUT accumulators): one micro-op that starts it from zero (a
    GEMM reset, GEMM_II; an ALU op or an ACC load costs more), and the requantization's SHR, MIN
    and MAX on the tensor ALU (3 x ALU_II): the store keeps the low bits, so the shift and the
    clip to the output range are the ALU's job. Bias, rounding and fused residual adds are
    counted free;
  * the weights read from DRAM once over the AXI bus, when that takes longer than the compute.

Usage: any_lowering_bound.py REPORT.json [--json OUT]
"""
import argparse
import json
import math
import re
import sys

WORKLOAD = re.compile(
    r"^(?P<op>conv2d|conv2d_transpose|dense) (?P<shape>[0-9x]+) -> (?P<oc>\d+)"
    r"(?: k(?P<kh>\d+)x(?P<kw>\d+) s(?P<sh>\d+)x(?P<sw>\d+) p(?P<pt>\d+),(?P<pl>\d+),(?P<pb>\d+),(?P<pr>\d+)"
    r" d(?P<dh>\d+)x(?P<dw>\d+) g(?P<g>\d+))?")


def layer_bound(layer, cfg):
    m = WORKLOAD.match(layer["workload"])
    if not m:
        raise SystemExit(f"layer '{layer['name']}': cannot read workload '{layer['workload']}'")
    t = cfg["TIMING"]
    batch, block = 1 << cfg["LOG_BATCH"], 1 << cfg["LOG_BLOCK"]
    dims = [int(v) for v in m["shape"].split("x")]
    oc = int(m["oc"])
    if m["op"] == "dense":
        n, ic = dims
        out_pixels, weights = 1, ic * oc
    else:
        if m["op"] != "conv2d":
            return None  # transposed convolutions: not in the networks this bound is for
        n, ic, h, w = dims
        kh, kw, sh, sw = int(m["kh"]), int(m["kw"]), int(m["sh"]), int(m["sw"])
        pt, pl, pb, pr, dh, dw, g = (int(m[k]) for k in ("pt", "pl", "pb", "pr", "dh", "dw", "g"))
        oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
        ow = (w + pl + pr - dw * (kw - 1) - 1) // sw + 1
        out_pixels, weights = oh * ow, oc * (ic // g) * kh * kw
    macs = layer["macs"]
    vectors = math.ceil(n / batch) * math.ceil(oc / block) * out_pixels
    gemm = macs / (batch * block * block) * t["GEMM_II"]
    epilogue = vectors * (t["GEMM_II"] + 3 * t["ALU_II"])
    bus_bytes = (1 << t["LOG_BUS_WIDTH"]) // 8
    weight_cycles = weights * (1 << cfg["LOG_WGT_WIDTH"]) / 8 / bus_bytes
    cycles = max(gemm + epilogue, weight_cycles)
    return {"name": layer["name"], "workload": layer["workload"], "macs": macs, "output_vectors": vectors,
            "gemm_cycles": gemm, "epilogue_cycles": epilogue, "weight_load_cycles": weight_cycles,
            "bound_cycles": cycles, "cycles": layer["cycles"], "ceiling_gops": layer.get("ceiling_gops"),
            "gops": layer["gops"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("report")
    ap.add_argument("--json", help="write the per-layer bounds and the total here")
    a = ap.parse_args()
    try:
        with open(a.report) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{a.report}: {e}")
    cfg = r["config"]
    clock_hz = cfg["TIMING"]["CLOCK_MHZ"] * 1e6
    gops = lambda macs, cycles: 2 * macs / cycles * clock_hz / 1e9
    rows = []
    for layer in r["layers"]:
        if layer.get("placement") == "vta" and re.match(r"^(conv2d|dense)", layer.get("op", "")):
            b = layer_bound(layer, cfg)
            if b:
                rows.append(b)
    print(f"{'layer':34} {'MACs':>11} {'vectors':>8} {'GOPS':>7} {'ceiling':>8} {'bound':>7}")
    for b in rows:
        print(f"{b['name'][:34]:34} {b['macs']:>11} {b['output_vectors']:>8} {b['gops']:>7.2f} "
              f"{b['ceiling_gops'] or 0:>8.2f} {gops(b['macs'], b['bound_cycles']):>7.2f}")
    macs = sum(b["macs"] for b in rows)
    total = {"macs": macs, "gops": gops(macs, sum(b["cycles"] for b in rows)),
             "ceiling_gops": r["total"].get("conv_ceiling_gops"),
             "bound_gops": gops(macs, sum(b["bound_cycles"] for b in rows))}
    print(f"conv/dense: {total['gops']:.2f} GOPS as compiled, {total['ceiling_gops']:.2f} ceiling of its instructions, "
          f"{total['bound_gops']:.2f} bound of any exact lowering (peak {cfg.get('PEAK_GOPS', 0)})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"config": cfg, "layers": rows, "total": total}, f, indent=1)


if __name__ == "__main__":
    main()
