#!/usr/bin/python3
"""yosys 0.23's memory mapping for tauvta_sram (one write port, one registered read port with
its own address, read-first), as a function of the family, the width W and log2 depth A.

This restates, for this one memory shape, what `memory_libmap` does inside synth_xilinx
(passes/memory/memory_libmap.cc, libraries techlibs/xilinx/brams_xc4v.txt, lutrams_xc5v.txt
for xc7 and lutrams_xcu.txt for xcup): every candidate geometry gets a cost and the cheapest
wins, flip-flops included. fit_resources.py checks it against every sram point of the grid.

Cost of a candidate with unit width uw, unit depth 2^ab and unit cost c (widthscale ws):
    D      = 2^A
    mult_a = ceil(D / 2^ab)                    units stacked in depth
    eb     = 9 if the RAM has 9-bit bytes (BRAM) and uw >= 9, else uw
    swz    = ceil(W / eb) * eb                 word padded to whole bytes
    repl   = ceil(mult_a * swz / uw)           cells
    cost   = (c - ws) * repl + ws * mult_a * W / uw
           + 0.5 * (mult_a - 1) * W            read mux
           + 0.5 * mult_a  (only if mult_a > 1) write demux
           + 2                                 separate read port (emulation score 1)
FF fallback: cost W * D (logic_cost_ram 1.0), compared after truncation to an integer;
a candidate must be strictly cheaper than the best so far (library order: LUTRAM first).
"""
import math

# (name, cost, widthscale, [(abits, [widths by base-width index])], byte, cell, luts per cell)
# BRAM modes, brams_xc4v.txt with HAS_SIZE_36 (xc7, xcu, xcup): the SDP variant (widths up to
# 36 for HALF = RAMB18, 72 for FULL = RAMB36) always beats TDP for this memory; CASCADE (two
# RAMB36, 64K deep, widths 1-9) only matters above 2^15 words.
BRAM = [
    ("RAMB18", 129, 0, 14, [1, 2, 4, 9, 18, 36], 9),
    ("RAMB36", 257, 0, 15, [1, 2, 4, 9, 18, 36, 72], 9),
    ("RAMB36x2_CASCADE", 513, 0, 16, [1, 2, 4, 9], 9),
]
# LUT RAMs usable with a write port and a separate asynchronous read port (the registered read
# is emulated with W flip-flops): (name, cost, widthscale, abits, width, cell name, LUTs/cell).
LUTRAM = {
    "xc7": [  # lutrams_xc5v.txt
        ("DP", 8, 8, 5, 4, "RAM32X1D", 2),
        ("DP", 8, 8, 6, 2, "RAM64X1D", 2),
        ("DP", 8, 8, 7, 1, "RAM128X1D", 4),
        ("QP", 7, 7, 5, 2, "RAM32M", 4),
        ("QP", 7, 7, 6, 1, "RAM64M", 4),
        ("SDP", 8, 7, 5, 6, "RAM32M", 4),
        ("SDP", 8, 7, 6, 3, "RAM64M", 4),
    ],
    "xcup": [  # lutrams_xcu.txt
        ("DP", 16, 16, 5, 8, "RAM32X1D", 2),
        ("DP", 16, 16, 6, 4, "RAM64X1D", 2),
        ("DP", 16, 16, 7, 2, "RAM128X1D", 4),
        ("DP", 16, 16, 8, 1, "RAM256X1D", 8),
        ("QP", 16, 16, 5, 4, "RAM32M", 4),
        ("QP", 16, 16, 6, 2, "RAM64M", 4),
        ("OP", 16, 16, 5, 2, "RAM32M16", 8),
        ("OP", 16, 16, 6, 1, "RAM64M8", 8),
        ("SDP", 16, 16, 5, 14, "RAM32M16", 8),
        ("SDP", 16, 16, 6, 7, "RAM64M8", 8),
    ],
}
EMU = 2.0  # FACTOR_EMU * 1 point for a read port not shared with the write port


def _cost(W, A, cost, ws, abits, uw, byte):
    D = 1 << A
    mult_a = -(-D // (1 << abits))
    eb = byte if (byte and uw >= byte) else uw
    swz = -(-W // eb) * eb
    repl = -(-(mult_a * swz) // uw)
    c = (cost - ws) * repl + ws * mult_a * W / uw
    c += 0.5 * (mult_a - 1) * W
    if mult_a > 1:
        c += 0.5 * mult_a
    return c + EMU, repl, mult_a


def yosys_map(family, W, A):
    """Returns dict(kind, cell, cells, mult_a, cost): kind is 'ff', 'lutram' or 'bram'."""
    best = {"kind": "ff", "cell": "FDRE", "cells": W << A, "mult_a": 1,
            "cost": float(int(W * (1 << A)))}
    cands = []
    for name, cost, ws, abits, uw, cell, luts in LUTRAM[family]:
        c, repl, mult_a = _cost(W, A, cost, ws, abits, uw, 0)
        cands.append(dict(kind="lutram", cell=cell, cells=repl, mult_a=mult_a, cost=c,
                          luts=repl * luts, geometry=f"{name} {1 << abits}x{uw}"))
    for name, cost, ws, abits, widths, byte in BRAM:
        # memory_libmap keeps the cheapest base width of each mode (ties: the narrower).
        best_mode = None
        for i, uw in enumerate(widths):
            c, repl, mult_a = _cost(W, A, cost, ws, abits - i, uw, byte)
            if best_mode is None or c < int(best_mode["cost"]):
                best_mode = dict(kind="bram", cell=name, cells=repl, mult_a=mult_a, cost=c,
                                 geometry=f"{1 << (abits - i)}x{uw}")
        cands.append(best_mode)
    # One candidate per resource kind survives (prune_post_geom), then the cheapest overall.
    for kind in ("lutram", "bram"):
        group = [c for c in cands if c["kind"] == kind]
        keep = group[0]
        for c in group[1:]:
            if c["cost"] < keep["cost"]:
                keep = c
        # memory_libmap compares against the flip-flop cost truncated to an integer.
        bound = int(best["cost"]) if best["kind"] == "ff" else best["cost"]
        if keep["cost"] < bound:
            best = keep
    return best


def predicted_cells(family, W, A):
    """BRAM36, BRAM18 and LUTRAM LUTs yosys should produce (read-mux LUTs not included)."""
    m = yosys_map(family, W, A)
    out = {"BRAM36": 0, "BRAM18": 0, "LUT_mem": 0, "FF_mem": 0, "kind": m["kind"],
           "geometry": m.get("geometry", "")}
    if m["kind"] == "bram":
        if m["cell"] == "RAMB18":
            out["BRAM18"] = m["cells"]
        elif m["cell"] == "RAMB36":
            out["BRAM36"] = m["cells"]
        else:
            out["BRAM36"] = 2 * m["cells"]
    elif m["kind"] == "lutram":
        out["LUT_mem"] = m["luts"]
        out["FF_mem"] = W  # the emulated read register
    else:
        out["FF_mem"] = W << A
    return out


if __name__ == "__main__":
    import sys
    fam = sys.argv[1] if len(sys.argv) > 1 else "xc7"
    for W in (8, 32, 64, 128, 256, 512, 2048):
        for A in range(4, 17):
            print(fam, W, A, yosys_map(fam, W, A))
