#!/usr/bin/python3
"""Fits the tauvta resource model to the synthesis grid.

Reads tools/synth/data/grid_xc7.csv and grid_xcup.csv (made by synth_grid.py) and, for each
family, module (gemm, alu) and resource (LUT, FF, DSP), fits a non-negative linear model

    resource = sum_k c_k * feature_k        (c_k >= 0)

over the module's design.json cost features (only the features that vary over the module's
points, plus `one`) on the fit split, by non-negative least squares on relative residuals (each
row weighted by 1/max(resource, 16)). Reports the relative errors on the fit and holdout splits,
the control logic (compute - gemm - alu - buffers) as a constant, and writes

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
MODULES = {"gemm": "kGemm", "alu": "kAlu"}
RESOURCES = {"LUT": "kLut", "FF": "kFf", "DSP": "kDsp"}
# design.json feature names, in the C++ CostFeature enum order.
FEATURES = ["one", "dsp_products", "lut_product_bits", "product_reg_bits", "tree_adder_bits",
            "tree_reg_bits", "acc_lane_bits", "acc_delay_bits", "alu_lane_bits", "alu_mul_lanes",
            "alu_pass_bits", "operand_reg_bits", "alu_operand_bits"]


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


def fit_one(rows, resource):
    fit = [r for r in rows if r["split"] == "fit"]
    X = np.array([[num(r["f_" + f]) for f in FEATURES] for r in fit])
    y = np.array([num(r[resource]) for r in fit])
    used = [k for k, f in enumerate(FEATURES) if f == "one" or np.ptp(X[:, k]) > 0]
    if resource == "DSP":
        # A module without multipliers has no DSP: no constant term.
        used = [k for k in used if FEATURES[k] != "one"]
    wts = 1.0 / np.maximum(y, MIN_RELATIVE)
    A = X[:, used] * wts[:, None]
    # Scale columns so the active-set tolerances are comparable.
    scale = np.maximum(np.abs(A).max(axis=0), 1e-12)
    c_used = nnls(A / scale, y * wts) / scale
    c = np.zeros(len(FEATURES))
    c[used] = c_used
    if resource == "DSP" and np.allclose(y, np.round(y)):
        # DSP counts are integers per product/lane: snap near-integer coefficients.
        snapped = np.where(np.abs(c - np.round(c)) < 0.02, np.round(c), c)
        if np.abs(X @ snapped - y).max() <= np.abs(X @ c - y).max() + 1e-9:
            c = snapped
    return c, used


# ---------------------------------------------------------------- proposed features
# Candidate extra features (not in the C++ enum): what yosys 0.23 actually builds, counted from
# the same shape. Reported in a separate table so the lead can decide; resource_fit.inc uses
# only the enum's features.
def _tri(iw, ww, pw):
    """Partial-product bits of an iw x ww product truncated to its low pw bits."""
    return sum(1 for i in range(iw) for j in range(ww) if i + j < pw)


def gemm_proposed(r, family):
    """The gemm core's cells as yosys 0.23 builds them, counted from the shape (the RTL of
    gemm_core_rtl.cpp: operand registers, product registers, tree, accumulate)."""
    b, bi, bo = int(r["batch"]), int(r["block_in"]), int(r["block_out"])
    iw, ww, aw = int(r["inp_width"]), int(r["wgt_width"]), int(r["acc_width"])
    per, in_dsp = int(r["tree_levels"]), r["products_in_dsp"] == "1"
    lanes, products = b * bo, b * bi * bo
    pw, ow = min(iw + ww, aw), iw
    levels = (bi - 1).bit_length()
    regs = 0 if per == 0 or levels == 0 else (levels - 1) // per
    stages_before_acc = 1 + regs
    # xc7: yosys packs into each DSP48E1 the operand registers (AREG/BREG, duplicated per DSP),
    # the product register (MREG), one first-level tree adder as the post-adder (P = M + C),
    # that adder's register when level 1 is registered (PREG), and for BLOCK_IN 1 the
    # accumulate add with acc_q[0] (CREG). xcup (DSP48E2): none of this.
    absorb = in_dsp and family == "xc7"
    d = {f: float(r["f_" + f]) for f in FEATURES}
    d["lut_pp_bits"] = 0 if in_dsp else products * _tri(iw, ww, pw)
    d["lut_product_out_bits"] = 0 if in_dsp else products * pw
    d["operand_ff"] = 0 if absorb else b * bi * iw + bo * bi * ww
    d["product_reg_ff"] = 0 if absorb else products * pw
    n, w, cur, cur_bits, stages, tree_ff = bi, pw, 0, 0, [], 0
    for level in range(1, levels + 1):
        pairs, nxt = n // 2, (n + 1) // 2
        w = min(w + 1, aw)
        reg = per > 0 and level % per == 0 and level < levels
        in_post_adder = absorb and level == 1
        if not in_post_adder:
            cur += pairs
            cur_bits += pairs * w
        if reg:
            tree_ff += nxt * w - (pairs * w if in_post_adder else 0)
            stages.append((cur, w, cur_bits))
            cur, cur_bits = 0, 0
        n = nxt
    acc_in_dsp = absorb and bi == 1
    if not acc_in_dsp:
        cur += 1
        cur_bits += aw
    stages.append((cur, aw, cur_bits))
    # Adders left in the fabric, each as wide as its stage's result (alumacc merges the adds of
    # one pipeline stage into one multi-operand $macc, computed at the result width).
    d["fabric_add_bits"] = lanes * sum(a * wd for a, wd, _ in stages)
    # Extra operands of multi-operand stages (carry-save compressors).
    d["macc_extra_bits"] = lanes * sum(max(0, a - 1) * wd for a, wd, _ in stages)
    # Adder bits (each add at its own level's width) in multi-operand stages.
    d["macc_adder_bits"] = lanes * sum(bits for a, _, bits in stages if a >= 2)
    d["plain_adder_bits"] = lanes * sum(bits for a, _, bits in stages if a < 2)
    d["tree_reg_ff"] = lanes * tree_ff
    d["acc_ff"] = lanes * aw  # acc_next
    d["out_lane_bits"] = lanes * ow  # sum_q: only the OUT bits out_next reads survive
    # The accumulator operand passes acc_r, acc_q[0..S-1]: S + 1 registers. xilinx_srl turns a
    # chain of >= 3 into one SRL16E per bit; else flip-flops (acc_q[0] in CREG, see above).
    chain = stages_before_acc + 1
    d["delay_ff"] = (lanes * aw * (chain - (1 if acc_in_dsp else 0))) if chain < 3 else 0
    d["delay_srl"] = lanes * aw if chain >= 3 else 0
    return d


def alu_proposed(r, family):
    aw, passes = int(r["acc_width"]), int(r["alu_passes"])
    lanes = float(r["f_alu_lane_bits"]) / aw
    mul_lanes = lanes if r["alu_mul"] == "1" else 0
    # mul2dsp splits an ACC x ACC product truncated to ACC bits into 17-bit signed chunks and
    # drops every partial product at or above bit ACC: k = ceil(ACC/17) chunks a side, and
    # k(k+1)/2 DSPs (ACC 16: 1, 32: 3, 64: 10), on xc7 (25x18) and xcup (27x18) alike.
    k = -(-aw // 17)
    d = {f: float(r["f_" + f]) for f in FEATURES}
    d["alu_mul_dsp"] = mul_lanes * k * (k + 1) // 2
    # The shifter: ceil(log2 ACC) mux levels per lane bit.
    d["alu_shift_bits"] = lanes * aw * (aw - 1).bit_length()
    # A single-pass ALU registers its operands and five results per lane (pipelined); a
    # multi-pass one holds the vectors and muxes them through the lanes.
    d["alu_single_pass_bits"] = lanes * aw if passes == 1 else 0
    d["alu_multi_pass_lane_bits"] = lanes * aw if passes > 1 else 0
    return d


# The C++ NetlistFeature enum (src/fpga/netlist_features.h), in order: resource_fit.inc's
# coefficient columns. gemm_proposed and alu_proposed count these terms the way
# fpga::gemm_netlist_features / alu_netlist_features do (tests/fpga/synthesis_calibration_test.cpp
# checks the C++ side against the synthesized points).
NETLIST = ["one", "dsp_products", "lut_pp_bits", "lut_product_out_bits", "fabric_add_bits",
           "macc_extra_bits", "delay_srl", "operand_ff", "product_reg_ff", "tree_reg_ff", "acc_ff",
           "out_lane_bits", "delay_ff", "alu_lane_bits", "alu_shift_bits", "alu_mul_dsp",
           "alu_pass_bits", "alu_single_pass_bits", "alu_multi_pass_lane_bits", "alu_operand_bits"]

PROPOSED = {
    "gemm": (gemm_proposed, {
        "LUT": ["one", "lut_pp_bits", "lut_product_out_bits", "fabric_add_bits",
                "macc_extra_bits", "delay_srl"],
        "FF": ["one", "operand_ff", "product_reg_ff", "tree_reg_ff", "acc_ff", "out_lane_bits",
               "delay_ff"],
        "DSP": ["dsp_products"],
    }),
    "alu": (alu_proposed, {
        "LUT": ["one", "alu_lane_bits", "alu_shift_bits", "alu_mul_dsp", "alu_pass_bits"],
        "FF": ["one", "alu_single_pass_bits", "alu_multi_pass_lane_bits", "alu_pass_bits",
               "alu_operand_bits", "alu_mul_dsp"],
        "DSP": ["alu_mul_dsp"],
    }),
}


def fit_named(rows, resource, names, feats):
    fit = [r for r in rows if r["split"] == "fit"]
    X = np.array([[feats(r)[n] for n in names] for r in fit])
    y = np.array([num(r[resource]) for r in fit])
    used = [k for k in range(len(names)) if names[k] == "one" or np.ptp(X[:, k]) > 0]
    wts = 1.0 / np.maximum(y, MIN_RELATIVE)
    A = X[:, used] * wts[:, None]
    scale = np.maximum(np.abs(A).max(axis=0), 1e-12)
    c = np.zeros(len(names))
    c[used] = nnls(A / scale, y * wts) / scale
    return c


def predict(rows, c):
    X = np.array([[num(r["f_" + f]) for f in FEATURES] for r in rows])
    return X @ c


def fmt_err(e):
    return f"{100 * np.median(e):6.1f}% {100 * e.max():6.1f}%" if len(e) else "     -       -"


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

    inc = ["// Generated by tools/synth/fit_resources.py from tools/synth/data/grid_*.csv; "
           "do not edit."]
    all_hold = []
    sram_lines = []
    missing = False
    proposed_hold = []
    for fam, fam_enum in FAMILIES.items():
        path = os.path.join(args.data, f"grid_{fam}.csv")
        if not os.path.exists(path):
            print(f"{path}: missing (run synth_grid.py --family {fam}); nothing written")
            missing = True
            continue
        rows = read(path)
        say(f"=== {fam} ({os.path.relpath(path, ROOT)}) ===")
        for mod, mod_enum in MODULES.items():
            mrows = [r for r in rows if r["module"] == mod]
            hold = [r for r in mrows if r["split"] == "holdout"]
            fitr = [r for r in mrows if r["split"] == "fit"]
            extra = [r for r in mrows if r["split"] not in ("fit", "holdout")]
            if not fitr:
                print(f"{fam} {mod}: no fit points yet; nothing written")
                missing = True
                continue
            say(f"\n{mod}: {len(fitr)} fit, {len(hold)} holdout, {len(extra)} other points")
            say(f"  {'resource':8s} {'fit median/max':>16s} {'holdout median/max':>18s}  model")
            for res, res_enum in RESOURCES.items():
                c, used = fit_one(mrows, res)
                e_fit = rel_err(predict(fitr, c), np.array([num(r[res]) for r in fitr]))
                y_h = np.array([num(r[res]) for r in hold])
                e_hold = rel_err(predict(hold, c), y_h)
                terms = " + ".join(f"{c[k]:.4g}*{FEATURES[k]}" for k in range(len(FEATURES))
                                   if c[k] != 0) or "0"
                say(f"  {res:8s} {fmt_err(e_fit):>16s} {fmt_err(e_hold):>18s}  {terms}")
                if res != "DSP":
                    all_hold.append((fam, mod, res, e_hold))
                # Worst holdout points, for the report.
                if len(hold):
                    ph = predict(hold, c)
                    err = np.abs(ph - y_h) / np.maximum(y_h, 1)
                    worst = np.argsort(-err)[:3]
                    say("           worst holdout: " + "; ".join(
                        f"{hold[i]['id']} {y_h[i]:.0f} vs {ph[i]:.0f}" for i in worst))
                for r in extra:
                    p = predict([r], c)[0]
                    say(f"           {r['split']} {r['id']}: {num(r[res]):.0f} vs {p:.0f} "
                        f"({100 * (p - num(r[res])) / max(num(r[res]), 1):+.1f}%)")
            if mod == "gemm":
                dsp_rows = [r for r in mrows]
                exact = all(num(r["DSP"]) == num(r["f_dsp_products"]) for r in dsp_rows)
                say(f"  DSP == dsp_products on every {mod} point: {exact}")
        # Proposed extra features.
        say(f"\nnetlist features ({fam}; the model: resource_fit.inc):")
        say(f"  {'module':6s} {'res':4s} {'fit median/max':>16s} {'holdout median/max':>18s}  model")
        for mod, (fn, sets) in PROPOSED.items():
            mrows = [r for r in rows if r["module"] == mod]
            fitr = [r for r in mrows if r["split"] == "fit"]
            hold = [r for r in mrows if r["split"] == "holdout"]
            if not fitr:
                continue
            feats = lambda r, fn=fn: fn(r, fam)
            for res, names in sets.items():
                c = fit_named(mrows, res, names, feats)
                pred = lambda rs: np.array([[feats(r)[n] for n in names] for r in rs]) @ c
                e_fit = rel_err(pred(fitr), np.array([num(r[res]) for r in fitr]))
                e_hold = rel_err(pred(hold), np.array([num(r[res]) for r in hold])) if hold \
                    else np.zeros(0)
                terms = " + ".join(f"{c[k]:.4g}*{names[k]}" for k in range(len(names))
                                   if c[k] != 0) or "0"
                say(f"  {mod:6s} {res:4s} {fmt_err(e_fit):>16s} {fmt_err(e_hold):>18s}  {terms}")
                if res != "DSP":
                    proposed_hold.append(e_hold)
                coef = [0.0] * len(NETLIST)
                for k, n in enumerate(names):
                    coef[NETLIST.index(n)] = float(c[k])
                mod_enum = MODULES[mod]
                res_enum = RESOURCES[res]
                inc.append("{" + f"Family::{fam_enum}, FitModule::{mod_enum}, Resource::{res_enum}"
                           + ", {" + ", ".join(f"{v:.6g}" for v in coef) + "}},")
        # Control logic.
        comp = [r for r in rows if r["module"] == "compute"]
        say(f"\ncontrol (compute - gemm - alu - buffers), {len(comp)} compute points:")
        for r in comp:
            say(f"  {r['id']}: LUT {num(r['ctrl_LUT']):.0f} FF {num(r['ctrl_FF']):.0f} "
                f"DSP {num(r['ctrl_DSP']):.0f}  (compute LUT {num(r['LUT']):.0f} FF "
                f"{num(r['FF']):.0f} BRAM36 {num(r['BRAM36']):.0f} BRAM18 "
                f"{num(r['BRAM18']):.0f}; {r['buffers']})")
        if len(comp) >= 3:
            # Proposed: control scales with the accumulator vector (a_hold, the acc/out write
            # muxes) and the host port (the read-back mux).
            def ctrl_feats(r):
                info = dict(x.split(":", 1) for x in r["buffers"].split())
                acc_bits = int(info["acc"].split("x")[0])
                out_bits = int(info["out"].split("x")[0])
                host = max(int(v.split("x")[0]) for v in info.values())
                return {"one": 1.0, "acc_out_vector_bits": acc_bits + out_bits,
                        "host_bits": float(host)}
            names = ["one", "acc_out_vector_bits", "host_bits"]
            X = np.array([[ctrl_feats(r)[n] for n in names] for r in comp])
            for res in ("LUT", "FF"):
                y = np.array([num(r[f"ctrl_{res}"]) for r in comp])
                c = nnls(X / X.max(axis=0), y) / X.max(axis=0)
                e = np.abs(X @ c - y) / np.maximum(y, 1)
                say(f"  proposed {res}: " + " + ".join(
                    f"{c[k]:.4g}*{names[k]}" for k in range(len(names)) if c[k]) +
                    f" (max error {100 * e.max():.1f}% over {len(comp)} points, in-sample)")
        ctrl = {}
        for res in RESOURCES:
            vals = np.array([num(r[f"ctrl_{res}"]) for r in comp]) if comp else np.zeros(1)
            ctrl[res] = max(0.0, float(vals.mean())) if res != "DSP" else 0.0
            if comp and res != "DSP":
                say(f"  {res}: mean {vals.mean():.0f}, min {vals.min():.0f}, max {vals.max():.0f}")
        for res, res_enum in RESOURCES.items():
            c = [0.0] * len(NETLIST)
            c[0] = round(ctrl[res])
            inc.append("{" + f"Family::{fam_enum}, FitModule::kControl, Resource::{res_enum}"
                       + ", {" + ", ".join(f"{v:.6g}" for v in c) + "}},")
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
                f"{'' if ok else ' MISMATCH'}  [{r['cells']}]")
        sram_lines.append(f"  sram_model.py agrees on {agree} of {len(srows)} points")
        say(f"sram: sram_model.py reproduces BRAM36/BRAM18/LUT-RAM of {agree} of {len(srows)} "
            f"points")
        say("")
    if all_hold:
        e = np.concatenate([x[3] for x in all_hold])
        say(f"overall holdout |relative error| over LUT and FF of gemm and alu, both families: "
            f"median {100 * np.median(e):.1f}%, 90th percentile {100 * np.percentile(e, 90):.1f}%, "
            f"max {100 * e.max():.1f}% ({len(e)} point-resources)")
    if proposed_hold:
        e = np.concatenate(proposed_hold)
        say(f"netlist features (the model): median {100 * np.median(e):.1f}%, 90th percentile "
            f"{100 * np.percentile(e, 90):.1f}%, max {100 * e.max():.1f}%")
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
