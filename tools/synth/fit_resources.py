#!/usr/bin/python3
"""Fits the tauvta resource model to the synthesis grid.

Reads tools/synth/data/grid_<family>.csv (the datapath: gemm, alu, sram, compute rows) and
infra_<family>.csv (the accelerator around it: fetch, load, compute_ctrl, store, cmd_queues,
token_queues, control), both made by synth_grid.py, and for each family, module and resource
(LUT, FF, DSP) fits a non-negative linear model

    resource = sum_k c_k * feature_k        (c_k >= 0)

over the module's netlist features (the rows' f_ columns: design.json's "features", the C++
rtl::NetlistFeature set; MODELS below names the terms each module's resources are made of) on
the fit split, by non-negative least squares on relative residuals (each row weighted by
1/max(resource, 16)). Reports the relative errors on the fit, holdout and random (off-grid)
splits, the compute module's own logic (compute - gemm - alu - buffers) as a constant, and writes

    src/fpga/resource_fit.inc          C++ initializer rows for the model (generated; no edits)
    tools/synth/data/fit_report.txt    the tables printed here
    tools/synth/data/sram_mapping.txt  what yosys mapped every SRAM geometry to, per family

Run from anywhere:  /usr/bin/python3 tools/synth/fit_resources.py
"""
import argparse
import csv
import io
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sram_model  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(HERE, "data")
FAMILIES = {"xc7": "kXc7", "xcup": "kXcup"}
MODULES = {"gemm": "kGemm", "alu": "kAlu", "fetch": "kFetch", "load": "kLoad",
           "compute_ctrl": "kComputeCtrl", "store": "kStore", "cmd_queues": "kCmdQueues",
           "token_queues": "kTokenQueues", "control": "kControl"}
RESOURCES = {"LUT": "kLut", "FF": "kFf", "DSP": "kDsp"}
from synth_grid import FEATURES  # noqa: E402  (the NetlistFeature enum order)


def nnls(A, b, tol=1e-10, max_iter=None):
    """Lawson-Hanson active-set non-negative least squares: argmin ||Ax - b|| s.t. x >= 0."""
    m, n = A.shape
    max_iter = max_iter or 30 * n
    x = np.zeros(n)
    passive = np.zeros(n, dtype=bool)
    w = A.T @ (b - A @ x)
    it = 0
    while (~passive).any() and w[~passive].max() > tol * max(1.0, np.abs(w).max()):
        j = np.argmax(np.where(~passive, w, -np.inf))
        passive[j] = True
        while True:
            it += 1
            if it > max_iter:
                return x
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(A[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                x = z
                break
            neg = passive & (z <= 0)
            alpha = np.min(x[neg] / (x[neg] - z[neg]))
            x = x + alpha * (z - x)
            passive &= x > tol
            x[~passive] = 0
        w = A.T @ (b - A @ x)
    return x


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def num(v):
    return float(v) if v not in ("", None) else 0.0


# Relative errors only over points with at least this many of the resource: the LUTs of a
# BLOCK_IN 1 core whose accumulate yosys puts in the DSP48E1 are 0 or 1 (shown in the
# worst-point lists as absolute values instead).
MIN_RELATIVE = 16


def rel_err(pred, y):
    """|pred - y| / y over the points with y >= MIN_RELATIVE."""
    keep = y >= MIN_RELATIVE
    return np.abs(pred[keep] - y[keep]) / y[keep]


# The terms each module's resources are made of (tools/synth/README.md explains each): a
# resource is fitted over its own terms only, so a coefficient stays the cost of one thing.
_INFRA_LUT = ["one", "bus_bits", "elem_bits", "narrow_lane_mux_bits", "wide_gather_bits",
              "addr_bits", "host_bits", "queue_ptr_bits"]
_INFRA_FF = ["one", "bus_bits", "elem_bits", "wide_gather_bits", "addr_bits", "host_bits",
             "queue_ptr_bits"]
MODELS = {
    "gemm": {
        "LUT": ["one", "lut_pp_bits", "lut_pp_depth_bits", "add2_bits", "csa_bits",
                "csa_depth_bits", "csa_luts", "delay_srl"],
        "FF": ["one", "operand_ff", "product_reg_ff", "tree_reg_ff", "acc_ff", "out_lane_bits",
               "delay_ff"],
        "DSP": ["dsp_products"],
    },
    "alu": {
        "LUT": ["one", "alu_lane_bits", "alu_shift_bits", "alu_mul_dsp", "alu_pass_bits"],
        "FF": ["one", "alu_single_pass_bits", "alu_multi_pass_lane_bits", "alu_pass_bits",
               "alu_operand_bits", "alu_mul_dsp"],
        "DSP": ["alu_mul_dsp"],
    },
}
for _m in ("fetch", "load", "compute_ctrl", "store", "cmd_queues", "token_queues", "control"):
    MODELS[_m] = {"LUT": _INFRA_LUT, "FF": _INFRA_FF, "DSP": ["one"]}
# The store's packer writes an element into its lane of the beat with a load enable per lane (no
# lane multiplexer, so no narrow_lane_mux_bits; tauvta_pack.v): its logic follows the beat. The
# element and address terms are left out too: on xcup they only fitted the bimodal mapping
# (README.md, "The parts around the datapath").
MODELS["store"]["LUT"] = ["one", "bus_bits"]


# The parts' queue memories (tauvta_fifo) are priced by the memory-mapping rule
# (fpga::map_queue_memory), so their closed forms are fitted to the logic alone: LUTs without the
# LUT RAM cells and without the `width`-bit multiplexer in front of every queue's head (the word
# read, or the input passing an empty queue), flip-flops without the head register a block-RAM
# queue keeps (`width` bits).
QUEUE_WIDTH = {"fetch": lambda p: 128, "store": lambda p: int(p["EWO"]),
               "cmd_queues": lambda p: int(p["W"])}


def target(r, resource):
    v = num(r[resource])
    if r["module"] in QUEUE_WIDTH and resource in ("LUT", "FF"):
        params = dict(x.split("=") for x in r["params"].split())
        width = int(r.get("instances") or 1) * QUEUE_WIDTH[r["module"]](params)
        if resource == "LUT":
            return v - width - num(r["LUT_mem"])
        return v - (width if "RAMB" in r["cells"] else 0)
    return v


def fit_named(rows, resource, names):
    """NNLS of `resource` over the `names` features of the fit rows (only the features that vary
    over them, plus `one`); returns the coefficient of every name (0 for the unused)."""
    fit = [r for r in rows if r["split"] == "fit"]
    X = np.array([[num(r.get("f_" + n)) for n in names] for r in fit])
    y = np.array([target(r, resource) for r in fit])
    used = [k for k in range(len(names)) if (names[k] == "one" and resource != "DSP") or
            np.ptp(X[:, k]) > 0 or (names[k] == "one" and resource == "DSP" and y.max() > 0)]
    c = np.zeros(len(names))
    if not used:
        return c
    wts = 1.0 / np.maximum(y, MIN_RELATIVE)
    A = X[:, used] * wts[:, None]
    scale = np.maximum(np.abs(A).max(axis=0), 1e-12)
    c[used] = nnls(A / scale, y * wts) / scale
    if resource == "DSP" and np.allclose(y, np.round(y)):
        # DSP counts are integers per product/lane/engine: snap near-integer coefficients.
        snapped = np.where(np.abs(c - np.round(c)) < 0.02, np.round(c), c)
        if np.abs(X @ snapped - y).max() <= np.abs(X @ c - y).max() + 1e-9:
            c = snapped
    return c


def predict(rows, names, c):
    if not rows:
        return np.zeros(0)
    return np.array([[num(r.get("f_" + n)) for n in names] for r in rows]) @ c


def fmt_err(e):
    return f"{100 * np.median(e):6.1f}% {100 * e.max():6.1f}%" if len(e) else "     -       -"


def signed(p, y):
    return f"{y:.0f} vs {p:.0f} ({100 * (p - y) / max(y, 1):+.1f}%)"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--inc", default=os.path.join(ROOT, "src", "fpga", "resource_fit.inc"))
    ap.add_argument("--dry-run", action="store_true", help="print only, write nothing")
    args = ap.parse_args()
    out = io.StringIO()

    def say(s=""):
        print(s)
        out.write(s + "\n")

    inc = ["// Generated by tools/synth/fit_resources.py from tools/synth/data/*.csv; "
           "do not edit."]
    holdout_errors, random_errors = [], []
    sram_lines = []
    missing = False
    for fam, fam_enum in FAMILIES.items():
        paths = [os.path.join(args.data, f"{k}_{fam}.csv") for k in ("grid", "infra")]
        if not all(os.path.exists(p) for p in paths):
            print(f"{paths}: missing (run synth_grid.py --family {fam}); nothing written")
            missing = True
            continue
        rows = read(paths[0]) + read(paths[1])
        say(f"=== {fam} ({', '.join(os.path.relpath(p, ROOT) for p in paths)}) ===")
        say(f"  {'module':12s} {'res':4s} {'fit med/max':>15s} {'holdout med/max':>15s} "
            f"{'random med/max':>15s}  model")
        for mod, mod_enum in MODULES.items():
            mrows = [r for r in rows if r["module"] == mod]
            fitr = [r for r in mrows if r["split"] == "fit"]
            hold = [r for r in mrows if r["split"] == "holdout"]
            rand = [r for r in mrows if r["split"] == "random"]
            if not fitr:
                print(f"{fam} {mod}: no fit points yet; nothing written")
                missing = True
                continue
            for res, res_enum in RESOURCES.items():
                names = MODELS[mod][res]
                c = fit_named(mrows, res, names)
                errs = []
                for rs in (fitr, hold, rand):
                    y = np.array([target(r, res) for r in rs])
                    errs.append(rel_err(predict(rs, names, c), y) if rs else np.zeros(0))
                terms = " + ".join(f"{c[k]:.4g}*{names[k]}" for k in range(len(names))
                                   if c[k] != 0) or "0"
                say(f"  {mod:12s} {res:4s} {fmt_err(errs[0]):>15s} {fmt_err(errs[1]):>15s} "
                    f"{fmt_err(errs[2]):>15s}  {terms}")
                if res != "DSP":
                    holdout_errors.append(errs[1])
                    random_errors.append(errs[2])
                for label, rs in (("holdout", hold), ("random", rand)):
                    if not rs:
                        continue
                    p = predict(rs, names, c)
                    y = np.array([target(r, res) for r in rs])
                    worst = np.argsort(-np.abs(p - y) / np.maximum(y, 1))[:3]
                    say(f"    worst {label}: " + "; ".join(
                        f"{rs[i]['id']} {signed(p[i], y[i])}" for i in worst))
                coef = [0.0] * len(FEATURES)
                for k, n in enumerate(names):
                    coef[FEATURES.index(n)] = float(c[k])
                inc.append("{" + f"Family::{fam_enum}, FitModule::{mod_enum}, Resource::{res_enum}"
                           + ", {" + ", ".join(f"{v:.6g}" for v in coef) + "}},")
            if mod == "gemm":
                exact = all(num(r["DSP"]) == num(r["f_dsp_products"]) for r in mrows)
                say(f"  DSP == dsp_products on every gemm point: {exact}")
        # The random (off-grid) points one by one.
        rand = [r for r in rows if r["split"] == "random" and r["module"] in MODELS]
        if rand:
            say(f"\n  random (off-grid) points, model vs yosys:")
            for r in rand:
                cells = []
                for res in RESOURCES:
                    names = MODELS[r["module"]][res]
                    c = fit_named([x for x in rows if x["module"] == r["module"]], res, names)
                    p = predict([r], names, c)[0]
                    cells.append(f"{res} {signed(p, target(r, res))}")
                say(f"    {r['id']}: " + ", ".join(cells))
        # The compute module's own logic (loops, decode, hazard check, write-back).
        comp = [r for r in rows if r["module"] == "compute"]
        say(f"\ncompute (compute - gemm - alu - buffers), {len(comp)} compute points:")
        for r in comp:
            say(f"  {r['id']}: LUT {num(r['ctrl_LUT']):.0f} FF {num(r['ctrl_FF']):.0f} "
                f"DSP {num(r['ctrl_DSP']):.0f}  (compute LUT {num(r['LUT']):.0f} FF "
                f"{num(r['FF']):.0f} BRAM36 {num(r['BRAM36']):.0f} BRAM18 "
                f"{num(r['BRAM18']):.0f}; {r['buffers']})")
        for res, res_enum in RESOURCES.items():
            vals = np.array([num(r[f"ctrl_{res}"]) for r in comp]) if comp else np.zeros(1)
            v = max(0.0, float(vals.mean())) if res != "DSP" else 0.0
            if comp and res != "DSP":
                say(f"  {res}: mean {vals.mean():.0f}, min {vals.min():.0f}, max {vals.max():.0f}")
            coef = [0.0] * len(FEATURES)
            coef[FEATURES.index("one")] = round(v)
            inc.append("{" + f"Family::{fam_enum}, FitModule::kCompute, Resource::{res_enum}"
                       + ", {" + ", ".join(f"{x:.6g}" for x in coef) + "}},")
        # SRAM mapping table.
        srows = [r for r in rows if r["module"] == "sram"]
        sram_lines.append(f"{fam}: width x depth -> cells (LUT counts LUT RAM as Vivado does); "
                          "model = sram_model.py's prediction of the geometry")
        agree = 0
        for r in sorted(srows, key=lambda r: (int(r["sram_width"]), int(r["sram_log_depth"]))):
            w, a = int(r["sram_width"]), int(r["sram_log_depth"])
            p = sram_model.predicted_cells(fam, w, a)
            ok = (p["BRAM36"], p["BRAM18"], p["LUT_mem"]) == (
                int(num(r["BRAM36"])), int(num(r["BRAM18"])), int(num(r["LUT_mem"])))
            agree += ok
            sram_lines.append(
                f"  {w:5d} x {1 << a:5d} (2^{a:2d}): BRAM36 {num(r['BRAM36']):4.0f} BRAM18 "
                f"{num(r['BRAM18']):4.0f} URAM {num(r['URAM']):3.0f} LUT {num(r['LUT']):5.0f} "
                f"(mem {num(r['LUT_mem']):5.0f}) FF {num(r['FF']):5.0f} levels "
                f"{r['logic_levels']}  model {p['kind']} {p['geometry']}"
                f"{'' if ok else ' MISMATCH'}  [{r['split']}] [{r['cells']}]")
        sram_lines.append(f"  sram_model.py agrees on {agree} of {len(srows)} points")
        say(f"sram: sram_model.py reproduces BRAM36/BRAM18/LUT-RAM of {agree} of {len(srows)} "
            f"points")
        say("")
    for label, errs in (("holdout", holdout_errors), ("random", random_errors)):
        e = np.concatenate(errs) if errs else np.zeros(0)
        if len(e):
            say(f"{label} |relative error| over LUT and FF of every fitted module, both families: "
                f"median {100 * np.median(e):.1f}%, 90th percentile "
                f"{100 * np.percentile(e, 90):.1f}%, max {100 * e.max():.1f}% "
                f"({len(e)} point-resources)")
    if missing or args.dry_run:
        return
    os.makedirs(os.path.dirname(args.inc), exist_ok=True)
    with open(args.inc, "w") as f:
        f.write("\n".join(inc) + "\n")
    with open(os.path.join(args.data, "fit_report.txt"), "w") as f:
        f.write("# Generated by tools/synth/fit_resources.py; do not edit.\n" + out.getvalue())
    with open(os.path.join(args.data, "sram_mapping.txt"), "w") as f:
        f.write("# Generated by tools/synth/fit_resources.py from grid_*.csv; do not edit.\n")
        f.write("\n".join(sram_lines) + "\n")
    print(f"wrote {args.inc}")


if __name__ == "__main__":
    main()
