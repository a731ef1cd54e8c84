#!/usr/bin/python3
"""What yosys 0.23's synth_xilinx makes of a multi-operand sum and of a LUT product, alone.

The GEMM core's LUTs are sums: the partial products of a LUT multiplier, and the adds of one
pipeline stage of the reduction tree (with the accumulate in the last). yosys builds every sum of
more than two operands as one carry-save compressor and a final carry chain (alumacc, maccmap),
then ABC maps the compressor. This synthesizes, per family, 4 lanes of

    y = x_0 + ... + x_{n-1}    (n signed operands of w_in bits, sign-extended to the result)
    p = a * b                  (signed, truncated to min(a + b, acc) bits; 8 lanes, -nodsp)

and prints the LUTs per lane and per operand bit, the measurements behind the netlist features
(README.md, "The netlist features"). From the repository root, one yosys at a time:

    /usr/bin/python3 tools/synth/compressor_study.py xc7
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synth_grid as sg  # noqa: E402


def sum_module(n, wi, w, lanes):
    terms = " + ".join(
        f"{{{{{w - wi}{{xr[(g*{n}+{k})*{wi}+{wi - 1}]}}}}, xr[(g*{n}+{k})*{wi} +: {wi}]}}"
        if w > wi else f"xr[(g*{n}+{k})*{wi} +: {wi}]" for k in range(n))
    return (f"module m(input clk, input [{lanes * n * wi - 1}:0] x, output reg [{lanes * w - 1}:0] y);\n"
            f" genvar g;\n reg [{lanes * n * wi - 1}:0] xr; always @(posedge clk) xr <= x;\n"
            f" generate for (g = 0; g < {lanes}; g = g + 1) begin: l\n"
            f"  always @(posedge clk) y[g*{w} +: {w}] <= {terms};\n end endgenerate\nendmodule\n")


def product_module(iw, ww, pw, lanes):
    return (f"module m(input clk, input [{lanes * iw - 1}:0] a, input [{lanes * ww - 1}:0] b,"
            f" output reg [{lanes * pw - 1}:0] y);\n genvar g;\n"
            f" reg [{lanes * iw - 1}:0] ar; reg [{lanes * ww - 1}:0] br;\n"
            f" always @(posedge clk) begin ar <= a; br <= b; end\n"
            f" generate for (g = 0; g < {lanes}; g = g + 1) begin: l\n"
            f"  reg signed [{pw - 1}:0] p;\n"
            f"  always @(posedge clk) p <= $signed(ar[g*{iw} +: {iw}]) * $signed(br[g*{ww} +: {ww}]);\n"
            f"  always @(posedge clk) y[g*{pw} +: {pw}] <= p;\n end endgenerate\nendmodule\n")


def run(family, text, nodsp=False):
    d = tempfile.mkdtemp(prefix=f"compressor-{family}-", dir=WORK)
    with open(os.path.join(d, "m.v"), "w") as f:
        f.write(text)
    r, _ = sg.synth(family, [os.path.join(d, "m.v")], "m", d, nodsp=nodsp)
    return r


WORK = "/tmp/tauvta-synth-work"

if __name__ == "__main__":
    family = sys.argv[1] if len(sys.argv) > 1 else "xc7"
    os.makedirs(WORK, exist_ok=True)
    sg.load_library(WORK)
    print(f"{family}: sums of n operands of w_in bits (4 lanes), LUTs per lane and per operand bit")
    for n in (2, 3, 4, 6, 8, 12, 16, 32):
        cells = []
        for wi in (4, 8, 16):
            for w in (min(32, wi + (n - 1).bit_length()), 32):
                lut = run(family, sum_module(n, wi, w, 4))["LUT"] / 4
                cells.append(f"w_in {wi:2d} -> {w:2d}: {lut:7.1f} ({lut / (n * wi):.2f})")
        print(f"  n {n:2d}: " + "; ".join(cells), flush=True)
    print(f"{family}: LUT products (8 lanes), LUTs per product")
    for iw, ww, acc in ((1, 1, 32), (2, 2, 32), (4, 4, 32), (8, 4, 32), (8, 8, 32), (2, 8, 32),
                        (16, 16, 32), (16, 16, 16)):
        pw = min(iw + ww, acc)
        lut = run(family, product_module(iw, ww, pw, 8), nodsp=True)["LUT"] / 8
        print(f"  {iw:2d} x {ww:2d} -> {pw:2d} bits: {lut:6.1f}", flush=True)
