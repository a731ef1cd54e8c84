#!/usr/bin/python3
"""Synthesis calibration grid for the tauvta RTL generator.

Generates configurations and RTL with `tauvta rtl`, synthesizes modules with yosys
(synth_xilinx) and writes one CSV per FPGA family with the mapped cell counts, the resource
columns derived from them, the logic depth and every design.json cost feature of the module.

The CSVs in tools/synth/data/ were made with (from the repository root, one yosys at a time):

    cp build/tauvta /tmp/synth-tauvta-snap
    /usr/bin/python3 tools/synth/synth_grid.py --tauvta /tmp/synth-tauvta-snap --family xc7
    /usr/bin/python3 tools/synth/synth_grid.py --tauvta /tmp/synth-tauvta-snap --family xcup

(generator md5 7c1cb5a32501, recorded per row in the tauvta_md5 column; about 30 + 25 minutes
of one core). Rerun after any change of the generated RTL: delete the CSVs (or their
gemm/alu/compute rows; tauvta_sram.v rarely changes).

The script is resumable: a point whose id is already in the family's CSV is skipped, so an
interrupted run continues where it stopped (delete the CSV to start over). Points whose synthesis
fails or exceeds --timeout are logged in data/failed_<family>.txt and retried on the next run.

What is synthesized (see README.md): for each point, one module of the generated RTL
  gemm     tauvta_gemm_core  (tauvta_gemm_core.v alone)
  alu      tauvta_alu        (tauvta_alu.v alone)
  sram     tauvta_sram       (tauvta_sram.v with chparam -set W .. -set A ..)
  compute  tauvta_compute    (all four files); the row also carries the same configuration's
           gemm core, ALU and buffers synthesized alone (sub_* columns) and the control logic
           ctrl_* = compute - gemm - alu - sum(buffers).
with the equivalent of
  read_verilog FILES; [chparam -set W .. -set A .. tauvta_sram;]
  synth_xilinx -family FAMILY -top MODULE -noiopad -flatten [-nodsp]; tee -o stat.txt stat; ltp
(-nodsp where products are bound to LUTs: yosys 0.23 ignores the generator's use_dsp = "no").
synth_xilinx's begin step (reading cells_sim.v and cells_xtra.v, then hierarchy) is done from a
library pre-parsed once into RTLIL, then `synth_xilinx ... -run prepare:`; this halves the time
of small points. ABC's result can differ from a plain run by a few LUTs (0.05% seen on a 3700-LUT
core) because the netlist order differs.
"""
import argparse
import csv
import hashlib
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
FAMILIES = ("xc7", "xcup")

# design.json's netlist feature names, in the C++ NetlistFeature enum order
# (src/rtl/netlist_features.h); generate() checks that design.json has exactly these. Every row
# carries all of them as f_ columns: the features of its module for its family.
FEATURES = ["one", "dsp_products", "lut_pp_bits", "lut_pp_depth_bits", "add2_bits", "csa_bits",
            "csa_depth_bits", "csa_luts", "delay_srl", "operand_ff", "product_reg_ff", "tree_reg_ff", "acc_ff",
            "out_lane_bits", "delay_ff", "alu_lane_bits", "alu_shift_bits", "alu_mul_dsp",
            "alu_pass_bits", "alu_single_pass_bits", "alu_multi_pass_lane_bits",
            "alu_operand_bits", "bus_bits", "elem_bits", "narrow_lane_mux_bits",
            "wide_gather_bits", "addr_bits", "host_bits", "queue_ptr_bits"]

# Cell -> resource accounting. LUT-based memories and shift registers count as the LUTs they
# occupy, the way Vivado's utilization report counts "LUT as Memory" inside "CLB LUTs":
# RAM32M/RAM64M: 4 LUTs (one quad-port SLICEM column of 4), RAM32M16/RAM64M8/RAM32X16DR8: 8,
# RAM32X1D/RAM64X1D: 2, RAM128X1D: 4, RAM256X1D: 8, RAM32X1S/RAM64X1S: 1, RAM128X1S: 2,
# RAM256X1S: 4, RAM512X1S: 8, SRL16E/SRLC32E/SRLC16E: 1; INV (an inverter yosys leaves
# unmerged; Vivado implements it in a LUT1): 1.
LUT_WEIGHTS = {"LUT1": 1, "LUT2": 1, "LUT3": 1, "LUT4": 1, "LUT5": 1, "LUT6": 1, "LUT6_2": 1,
               "RAM32M": 4, "RAM64M": 4, "RAM32M16": 8, "RAM64M8": 8, "RAM32X16DR8": 8,
               "RAM32X1D": 2, "RAM64X1D": 2, "RAM128X1D": 4, "RAM256X1D": 8,
               "RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2, "RAM256X1S": 4, "RAM512X1S": 8,
               "SRL16E": 1, "SRLC32E": 1, "SRLC16E": 1, "INV": 1}
LUTRAM_CELLS = {k for k in LUT_WEIGHTS if k.startswith("RAM")}
SRL_CELLS = {"SRL16E", "SRLC32E", "SRLC16E"}
GROUPS = {
    "FF": {"FDRE", "FDSE", "FDCE", "FDPE"},
    "DSP": {"DSP48E1", "DSP48E2"},
    "BRAM36": {"RAMB36E1", "RAMB36E2"},
    "BRAM18": {"RAMB18E1", "RAMB18E2"},
    "URAM": {"URAM288", "URAM288_BASE"},
    "CARRY": {"CARRY4", "CARRY8"},
    "MUXF": {"MUXF7", "MUXF8", "MUXF9"},
}
KNOWN_IGNORED = {"BUFG", "VCC", "GND"}

# ltp: `ltp -noff` after synth_xilinx does not stop at FDRE/FDSE (they are not yosys's internal
# flip-flop types), so on a mapped netlist it measures the longest chain of cells of any kind,
# from the clock buffer through flip-flops: ltp_raw. logic_levels is ltp -noff restricted to the
# combinational cells: flip-flops, SRLs, block RAMs, the clock buffer and DSP slices whose output
# side is registered (MREG or PREG set) are deselected, so they end and start paths; every LUT,
# CARRY4/8, MUXF7/8/9, LUTRAM read and unregistered DSP on the path counts one level.
LTP_CMDS = (
    "tee -q -o {d}/ltp_raw.txt ltp -noff; "
    "select -set seq t:FD* t:BUFG* t:SRL* t:RAMB* t:URAM* %u %u %u %u; "
    "select -set dspreg t:DSP48E* r:MREG!=0 r:PREG!=0 %u %i; "
    "tee -q -o {d}/ltp.txt ltp -noff @seq @dspreg %u %n; "
    "tee -q -o {d}/dspreg.txt select -count @dspreg")

RESOURCE_COLS = ["LUT", "LUT_logic", "LUT_mem", "FF", "DSP", "DSP_regout", "BRAM36", "BRAM18",
                 "URAM", "CARRY", "MUXF", "logic_levels", "ltp_raw", "synth_seconds", "synth_cpu_seconds"]
PARAM_COLS = ["batch", "block_in", "block_out", "inp_width", "wgt_width", "acc_width", "binding",
              "tree_levels", "products_in_dsp", "alu_vector", "alu_lanes_cfg", "alu_lanes",
              "alu_passes", "alu_mul", "sram_width", "sram_log_depth"]
SUB_COLS = ([f"sub_gemm_{r}" for r in ("LUT", "FF", "DSP")] +
            [f"sub_alu_{r}" for r in ("LUT", "FF", "DSP")] +
            [f"sub_sram_{r}" for r in ("LUT", "FF", "BRAM36", "BRAM18")] +
            ["ctrl_LUT", "ctrl_FF", "ctrl_DSP", "buffers"])
COLUMNS = (["id", "family", "module", "split"] + PARAM_COLS + RESOURCE_COLS +
           ["f_" + f for f in FEATURES] + SUB_COLS + ["tauvta_md5", "cells"])


def ilog2(n):
    k = 0
    while (1 << k) < n:
        k += 1
    assert 1 << k == n, n
    return k


# ---------------------------------------------------------------- points
def gemm_valid(b, bi, bo, iw, ww):
    # tauvta's whole-byte element rule (hw_config.cpp): inp, wgt and out elements >= 8 bits.
    return b * bi * iw >= 8 and bo * bi * ww >= 8 and b * bo * iw >= 8


def gemm_effective_dsp(iw, ww, binding):
    if binding == "lut":
        return False
    return iw >= 2 and ww >= 2 and iw + ww >= 9  # datapath_shape.cpp, kAuto


# Products built in LUTs cost yosys about 3 LUTs per inp*wgt bit and ~8 ms of CPU per bit (a
# 1x16x16 int8 LUT core, 16384 bits, takes 136 s and 47k LUTs on xc7): random points stay at or
# below 2048 bits (~20 s).
MAX_LUT_PRODUCT_BITS = 2048
# Random points have at most 128 products (1x16x16 int8 with DSPs, 256, is a fixed fit point:
# 13 s on xc7, 27 s on xcup).
MAX_PRODUCTS = 128


def gemm_points(family):
    space = []
    for b in (1, 2):
        for bi in (1, 2, 4, 8, 16, 32):
            for bo in (1, 2, 4, 8, 16):
                for iw, ww in ((8, 8), (4, 4), (2, 2), (1, 1), (16, 16), (8, 4), (4, 8)):
                    for acc in (32, 16):
                        for binding in ("auto", "lut"):
                            for tl in (0, 1, 2):
                                if not gemm_valid(b, bi, bo, iw, ww):
                                    continue
                                dsp = gemm_effective_dsp(iw, ww, binding)
                                if binding == "auto" and not dsp:
                                    continue  # identical RTL to binding lut
                                n = b * bi * bo
                                if n > MAX_PRODUCTS:
                                    continue
                                if not dsp and n * iw * ww > MAX_LUT_PRODUCT_BITS:
                                    continue
                                if bi <= 2 and tl != 2:
                                    continue  # one tree level at most: the option is moot
                                space.append(dict(batch=b, block_in=bi, block_out=bo,
                                                  inp_width=iw, wgt_width=ww, acc_width=acc,
                                                  binding=binding, tree_levels=tl))
    rng = random.Random(20240611)
    rng.shuffle(space)
    fit, hold = space[:50], space[62:62 + 30]
    if family == "xcup":
        # xcup synthesis takes about twice as long (yosys leaves the product registers and the
        # adders outside the DSP48E2s): the first 40 fit and 24 holdout points of the same lists.
        fit, hold = fit[:40], hold[:24]
    pts = [("fit", p) for p in fit] + [("holdout", p) for p in hold]
    # Fixed points (fit split): 1x16x16 int8 with DSPs and 1x16x2 int8 in LUTs (the same trees
    # per lane as 1x16x16, so the same logic depth), tree levels 0, 1, 2.
    have = {gemm_id(p) for _, p in pts}
    for bo, binding in ((16, "auto"), (2, "lut")):
        for tl in (0, 1, 2):
            p = dict(batch=1, block_in=16, block_out=bo, inp_width=8, wgt_width=8, acc_width=32,
                     binding=binding, tree_levels=tl)
            if gemm_id(p) not in have:
                pts.append(("fit", p))
    # VTA's tree pipelining (the default: one register before the last level, so the first
    # stage adds BLOCK_IN products as one multi-operand adder and the last adds two sums and the
    # accumulator): drawn from the same space with their own seed, so the points above keep
    # their split.
    have = {gemm_id(p) for _, p in pts}
    vta = []
    for p in space:
        levels = (p["block_in"] - 1).bit_length()
        q = dict(p, tree_levels=max(1, levels - 1))
        if p["tree_levels"] == 0 and p["block_in"] >= 8 and gemm_id(q) not in have:
            vta.append(q)
    vta = sorted({gemm_id(q): q for q in vta}.values(), key=gemm_id)
    random.Random(35).shuffle(vta)
    # VTA's own 1x16x16 int8 core, and its trees over LUT products.
    for bo, binding in ((16, "auto"), (2, "lut")):
        p = dict(batch=1, block_in=16, block_out=bo, inp_width=8, wgt_width=8, acc_width=32,
                 binding=binding, tree_levels=3)
        if gemm_id(p) not in have:
            pts.append(("fit", p))
            vta = [q for q in vta if gemm_id(q) != gemm_id(p)]
    n_fit, n_hold = (16, 6) if family == "xc7" else (8, 3)
    pts += [("fit", q) for q in vta[:n_fit]] + [("holdout", q) for q in vta[n_fit:n_fit + n_hold]]
    return [("gemm", split, p) for split, p in pts]


def gemm_id(p):
    return ("gemm_b{batch}_bi{block_in}_bo{block_out}_i{inp_width}w{wgt_width}_a{acc_width}_"
            "{binding}_t{tree_levels}".format(**p))


def alu_points(family):
    space = []
    for vec in (4, 16, 32, 64):
        for lanes in (0, 4, 8):
            if lanes >= vec:
                continue  # same hardware as lanes 0 (whole vector)
            for acc in (16, 32, 64):
                for mul in (False, True):
                    space.append(dict(alu_vector=vec, alu_lanes_cfg=lanes, acc_width=acc,
                                      alu_mul=mul))
    # Synthesis time caps. Built lanes * ACC <= 512: a whole-vector 64-lane int32 ALU with MUL
    # is 41k LUTs and 140 s on xc7. Multi-pass points VECTOR * ACC <= 512: the passes select
    # lanes with variable part-selects, which yosys builds as bit-granular shifters over the
    # whole vector (a 64-lane int32 vector through 4 lanes with MUL: 13k LUTs, 150 s).
    def cost_ok(p):
        built = min(p["alu_lanes_cfg"] or p["alu_vector"], p["alu_vector"])
        multipass = built < p["alu_vector"]
        return built * p["acc_width"] <= 512 and (
            not multipass or p["alu_vector"] * p["acc_width"] <= 512)
    space = [p for p in space if cost_ok(p)]
    rng = random.Random(7)
    rng.shuffle(space)
    fit, hold = space[:16], space[16:]
    if family == "xcup":
        fit, hold = fit[:12], hold[:6]  # time: the first 12 + 6 of the same lists
    pts = [("alu", "fit", p) for p in fit] + [("alu", "holdout", p) for p in hold]
    return pts


def alu_id(p):
    return "alu_v{alu_vector}_l{alu_lanes_cfg}_a{acc_width}_{m}".format(
        m="mul" if p["alu_mul"] else "nomul", **p)


def random_points(family, count=10):
    """The off-grid check: configs drawn at random (seed 2034) with shapes, width pairs and
    buffer geometries the grid never had, each synthesized as its GEMM core (VTA's tree
    pipelining, the default), its ALU and its five buffers. Split "random": never fitted."""
    rng = random.Random(2034)
    grid = {point_id(m, p) for fam in FAMILIES for m, _, p in
            gemm_points(fam) + alu_points(fam) + sram_points()}
    pts, seen = [], set()
    while len(seen) < count:
        b, bi, bo = rng.choice((1, 1, 2)), rng.choice((2, 4, 8, 16, 32)), rng.choice((1, 2, 4, 8, 16, 32))
        iw, ww = rng.choice((1, 2, 4, 8)), rng.choice((1, 2, 4, 8))
        acc = rng.choice((16, 32, 32))
        n = b * bi * bo
        dsp = gemm_effective_dsp(iw, ww, "auto")
        if not gemm_valid(b, bi, bo, iw, ww) or n > MAX_PRODUCTS or (
                not dsp and n * iw * ww > MAX_LUT_PRODUCT_BITS):
            continue
        levels = (bi - 1).bit_length()
        g = dict(batch=b, block_in=bi, block_out=bo, inp_width=iw, wgt_width=ww, acc_width=acc,
                 binding="auto", tree_levels=max(1, levels - 1))
        vec = b * bo
        lanes = rng.choice((0, 0, 2, 4)) if vec > 4 else 0
        a = dict(alu_vector=vec, alu_lanes_cfg=lanes if lanes < vec else 0, acc_width=acc,
                 alu_mul=rng.random() < 0.3)
        if vec * acc > 512 or gemm_id(g) in grid or gemm_id(g) in seen:
            continue
        seen.add(gemm_id(g))
        pts += [("gemm", "random", g)]
        if alu_id(a) not in grid:
            pts.append(("alu", "random", a))
        # The buffers: inp, wgt, acc (out is acc's depth at the output width) at random depths.
        for width, la in ((b * bi * iw, rng.randint(5, 11)), (bo * bi * ww, rng.randint(4, 10)),
                          (b * bo * acc, rng.randint(5, 11))):
            q = dict(sram_width=width, sram_log_depth=la)
            if sram_id(q) not in grid and width >= 8:
                pts.append(("sram", "random", q))
    seen_ids, out = set(), []
    for t in pts:
        if point_id(t[0], t[2]) not in seen_ids:
            seen_ids.add(point_id(t[0], t[2]))
            out.append(t)
    return out


SRAM_WIDTHS = (8, 32, 64, 128, 256, 512, 2048)
SRAM_LOG_DEPTHS = tuple(range(4, 14))


def sram_points():
    return [("sram", "map", dict(sram_width=w, sram_log_depth=a))
            for w in SRAM_WIDTHS for a in SRAM_LOG_DEPTHS]


def sram_id(p):
    return "sram_w{sram_width}_a{sram_log_depth}".format(**p)


# Small-to-medium whole compute modules: (batch, block_in, block_out, inp, wgt, acc, log buffer
# bytes for uop/inp/wgt/acc, alu lanes, alu mul, binding, tree levels).
COMPUTE_CONFIGS = [
    dict(batch=1, block_in=4, block_out=4, inp_width=8, wgt_width=8, acc_width=32,
         bufs=(12, 12, 13, 13), alu_lanes_cfg=0, alu_mul=False, binding="auto", tree_levels=2),
    dict(batch=1, block_in=8, block_out=8, inp_width=8, wgt_width=8, acc_width=32,
         bufs=(13, 13, 15, 14), alu_lanes_cfg=0, alu_mul=False, binding="auto", tree_levels=2),
    dict(batch=1, block_in=16, block_out=16, inp_width=8, wgt_width=8, acc_width=32,
         bufs=(15, 15, 18, 17), alu_lanes_cfg=0, alu_mul=False, binding="auto", tree_levels=2),
    dict(batch=2, block_in=8, block_out=4, inp_width=4, wgt_width=4, acc_width=16,
         bufs=(12, 12, 12, 13), alu_lanes_cfg=4, alu_mul=True, binding="auto", tree_levels=1),
    dict(batch=1, block_in=16, block_out=8, inp_width=8, wgt_width=8, acc_width=32,
         bufs=(14, 14, 16, 15), alu_lanes_cfg=4, alu_mul=False, binding="lut", tree_levels=0),
    dict(batch=1, block_in=8, block_out=16, inp_width=8, wgt_width=4, acc_width=32,
         bufs=(13, 13, 15, 15), alu_lanes_cfg=8, alu_mul=True, binding="auto", tree_levels=2),
]


def compute_points(family):
    # The first four (the LUT-bound 1x16x8 and the int8xint4 1x8x16 cost 2-4 minutes each);
    # on xcup not the 1x16x16 either (226 s on xc7).
    pick = (0, 1, 2, 3) if family == "xc7" else (0, 1, 3)
    return [("compute", "control", COMPUTE_CONFIGS[i]) for i in pick]


def compute_id(p):
    return ("compute_b{batch}_bi{block_in}_bo{block_out}_i{inp_width}w{wgt_width}_a{acc_width}_"
            "{binding}_t{tree_levels}_l{alu_lanes_cfg}_{m}_u{b[0]}i{b[1]}w{b[2]}a{b[3]}").format(
                m="mul" if p["alu_mul"] else "nomul", b=p["bufs"], **p)


def point_id(module, p):
    return {"gemm": gemm_id, "alu": alu_id, "sram": sram_id, "compute": compute_id}[module](p)


def all_points(modules, family):
    pts = []
    for m in modules:
        pts += {"gemm": lambda: gemm_points(family), "alu": lambda: alu_points(family), "sram": sram_points,
                "compute": lambda: compute_points(family),
                "random": lambda: random_points(family)}[m]()
    ids = [point_id(m, p) for m, _, p in pts]
    assert len(ids) == len(set(ids)), "duplicate point ids"
    for m in ("gemm", "alu"):
        if m not in modules:
            continue
        fit = {point_id(mm, p) for mm, s, p in pts if mm == m and s == "fit"}
        hold = {point_id(mm, p) for mm, s, p in pts if mm == m and s == "holdout"}
        assert not fit & hold
    return pts


# ---------------------------------------------------------------- configs and RTL
def config_json(batch, block_in, block_out, inp_width, wgt_width, acc_width, alu_lanes_cfg=0,
                alu_mul=False, bufs=None):
    lb, lbi, lbo = ilog2(batch), ilog2(block_in), ilog2(block_out)
    li, lw, la = ilog2(inp_width), ilog2(wgt_width), ilog2(acc_width)
    if bufs is None:
        # 16-element buffers: the gemm/alu modules do not depend on them.
        inp_b = (lb + lbi + li) - 3
        wgt_b = (lbo + lbi + lw) - 3
        acc_b = (lb + lbo + la) - 3
        bufs = (2 + 4, inp_b + 4, wgt_b + 4, acc_b + 4)
    return {
        "TARGET": "synth", "HW_VER": "0.0.2",
        "LOG_INP_WIDTH": li, "LOG_WGT_WIDTH": lw, "LOG_ACC_WIDTH": la,
        "LOG_BATCH": lb, "LOG_BLOCK_IN": lbi, "LOG_BLOCK_OUT": lbo,
        "LOG_UOP_BUFF_SIZE": bufs[0], "LOG_INP_BUFF_SIZE": bufs[1],
        "LOG_WGT_BUFF_SIZE": bufs[2], "LOG_ACC_BUFF_SIZE": bufs[3],
        "TIMING": {"ALU_LANES": alu_lanes_cfg, "ALU_MUL": bool(alu_mul)},
    }


def generate(tauvta, cfg, work, binding="auto", tree_levels=2, acc_ports=1):
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    # --device only resolves a DSP limit of "board"; the grid builds every product as bound.
    subprocess.run([tauvta, "rtl", path, "-o", work, "--binding", binding, "--tree-levels",
                    str(tree_levels), "--acc-ports", str(acc_ports), "--dsp-limit", "0",
                    "--device", "pynq-z1", "--force"], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(work, "design.json")) as f:
        design = json.load(f)
    for fam in FAMILIES:
        for module, feats in design["features"][fam].items():
            if list(feats) != FEATURES and set(feats) != set(FEATURES):
                sys.exit(f"design.json features of {fam} {module} {sorted(feats)} differ from "
                         f"FEATURES in {__file__}: update it to the NetlistFeature enum")
    return design


def features_of(design, family, module):
    return {"f_" + k: v for k, v in design["features"][family][module].items()}


# ---------------------------------------------------------------- yosys
def parse_stat(text):
    cells = {}
    in_cells = False
    for line in text.splitlines():
        if "Number of cells:" in line:
            in_cells = True
            cells = {}  # the last (top, flattened) module wins
            continue
        if in_cells:
            m = re.match(r"^\s+(\S+)\s+(\d+)\s*$", line)
            if m:
                cells[m.group(1)] = int(m.group(2))
            elif line.strip():
                in_cells = False
    return cells


def ltp_length(path):
    with open(path) as f:
        m = re.search(r"length=(\d+)", f.read())
    return int(m.group(1)) if m else 0


def resources(cells):
    r = {k: 0 for k in ("LUT", "LUT_logic", "LUT_mem", "FF", "DSP", "BRAM36", "BRAM18", "URAM",
                        "CARRY", "MUXF")}
    unknown = []
    for name, n in cells.items():
        if name in LUT_WEIGHTS:
            r["LUT"] += LUT_WEIGHTS[name] * n
            r["LUT_mem" if name in LUTRAM_CELLS or name in SRL_CELLS else "LUT_logic"] += (
                LUT_WEIGHTS[name] * n)
            continue
        for g, names in GROUPS.items():
            if name in names:
                r[g] += n
                break
        else:
            if name not in KNOWN_IGNORED:
                unknown.append(name)
    if unknown:
        print(f"  note: cells not counted in any resource: {unknown}", file=sys.stderr)
    return r


LIB_IL = None
TAUVTA_MD5 = ""


def load_library(work_root):
    """synth_xilinx's `begin` step reads cells_sim.v and cells_xtra.v (about 2 s of the ~4 s a
    small module takes); they are parsed once into an RTLIL file that each run reads instead."""
    global LIB_IL
    LIB_IL = os.path.join(work_root, "xilinx_cells.il")
    if not os.path.exists(LIB_IL):
        subprocess.run(["nice", "-n", "10", "yosys", "-q", "-p",
                        "read_verilog -lib -specify +/xilinx/cells_sim.v; "
                        "read_verilog -lib +/xilinx/cells_xtra.v; write_rtlil " + LIB_IL],
                       check=True)


def synth(family, files, top, work, chparam="", timeout=600, nodsp=False):
    """Runs yosys once; returns (resource dict, cells dict)."""
    d = os.path.join(work, f"y_{top}")
    os.makedirs(d, exist_ok=True)
    # = read_verilog FILES; chparam; synth_xilinx -family F -top T -noiopad -flatten, with the
    # begin step (library read + hierarchy) done by hand from the pre-parsed library.
    script = (f"read_rtlil {LIB_IL}; "
              f"read_verilog {' '.join(files)}; {chparam}"
              f"hierarchy -check -top {top}; "
              f"synth_xilinx -family {family} -top {top} -noiopad -flatten"
              f"{' -nodsp' if nodsp else ''} -run prepare:; "
              f"tee -q -o {d}/stat.txt stat; " + LTP_CMDS.format(d=d))
    t0 = time.time()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.path.join(d, "yosys.log"), "w") as log:
        subprocess.run(["nice", "-n", "10", "yosys", "-q", "-p", script], check=True,
                       stdout=log, stderr=subprocess.STDOUT, timeout=timeout)
    seconds = time.time() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    with open(os.path.join(d, "stat.txt")) as f:
        cells = parse_stat(f.read())
    r = resources(cells)
    r["logic_levels"] = ltp_length(os.path.join(d, "ltp.txt"))
    r["ltp_raw"] = ltp_length(os.path.join(d, "ltp_raw.txt"))
    with open(os.path.join(d, "dspreg.txt")) as f:
        m = re.search(r"(\d+) objects", f.read())
    r["DSP_regout"] = int(m.group(1)) if m else 0
    r["synth_seconds"] = round(seconds, 2)
    r["synth_cpu_seconds"] = round(cpu, 2)
    return r, cells


def cells_text(cells):
    return " ".join(f"{k}={v}" for k, v in sorted(cells.items()))


# ---------------------------------------------------------------- per-module runners
def run_gemm(args, family, p, work):
    cfg = config_json(p["batch"], p["block_in"], p["block_out"], p["inp_width"], p["wgt_width"],
                      p["acc_width"])
    design = generate(args.tauvta, cfg, work, p["binding"], p["tree_levels"])
    # yosys 0.23 ignores the generator's (* use_dsp = "no" *) on the product registers (it
    # only reads use_dsp = "simd"), so LUT-bound products are synthesized with -nodsp: the
    # core alone has no other multiplier, so this is exactly the binding.
    in_dsp = bool(design["gemm"]["products_in_dsp"])
    r, cells = synth(family, [os.path.join(work, "tauvta_gemm_core.v")], "tauvta_gemm_core", work,
                     timeout=args.timeout, nodsp=not in_dsp)
    row = dict(p, products_in_dsp=int(in_dsp))
    row.update(r)
    row.update(features_of(design, family, "gemm"))
    row["cells"] = cells_text(cells)
    return row


def alu_cfg(p):
    vec = p["alu_vector"]
    return config_json(1, 1, vec, 8, 8, p["acc_width"], p["alu_lanes_cfg"], p["alu_mul"])


def run_alu(args, family, p, work):
    design = generate(args.tauvta, alu_cfg(p), work)
    r, cells = synth(family, [os.path.join(work, "tauvta_alu.v")], "tauvta_alu", work,
                     timeout=args.timeout)
    row = dict(p, alu_lanes=design["alu"]["lanes"], alu_passes=design["alu"]["passes"],
               alu_mul=int(p["alu_mul"]))
    row.update(r)
    row.update(features_of(design, family, "alu"))
    row["cells"] = cells_text(cells)
    return row


def sram_files(args, work):
    # Any valid config gives the same tauvta_sram.v (a parameterized module).
    generate(args.tauvta, config_json(1, 16, 16, 8, 8, 32), work)
    return [os.path.join(work, "tauvta_sram.v")]


def run_sram(args, family, p, work):
    files = sram_files(args, work)
    r, cells = synth(family, files, "tauvta_sram", work,
                     chparam=f"chparam -set W {p['sram_width']} -set A {p['sram_log_depth']} "
                             "tauvta_sram; ", timeout=args.timeout)
    row = dict(p)
    row.update(r)
    row["cells"] = cells_text(cells)
    return row


def run_compute(args, family, p, work, done):
    cfg = config_json(p["batch"], p["block_in"], p["block_out"], p["inp_width"], p["wgt_width"],
                      p["acc_width"], p["alu_lanes_cfg"], p["alu_mul"], p["bufs"])
    design = generate(args.tauvta, cfg, work, p["binding"], p["tree_levels"])
    files = [os.path.join(work, f) for f in ("tauvta_sram.v", "tauvta_gemm_core.v",
                                              "tauvta_alu.v", "tauvta_compute.v")]
    # -nodsp where the binding forces LUTs on products yosys would put in DSPs (see run_gemm);
    # only valid where the ALU has no MUL.
    nodsp = p["binding"] == "lut" and gemm_effective_dsp(p["inp_width"], p["wgt_width"], "auto")
    assert not (nodsp and p["alu_mul"]), "a LUT-bound core beside an ALU MUL needs use_dsp"
    r, cells = synth(family, files, "tauvta_compute", work, timeout=args.timeout, nodsp=nodsp)
    g, _ = synth(family, [files[1]], "tauvta_gemm_core", work, timeout=args.timeout, nodsp=nodsp)
    a, _ = synth(family, [files[2]], "tauvta_alu", work, timeout=args.timeout)
    # Buffers: reuse this family's sram rows where the grid has the geometry.
    sub_sram = {"LUT": 0, "FF": 0, "BRAM36": 0, "BRAM18": 0}
    bufdesc = []
    for name, b in design["buffers"].items():
        w, la = b["width"], ilog2(b["depth"])
        key = sram_id(dict(sram_width=w, sram_log_depth=la))
        if key in done:
            s = {k: float(done[key][k]) for k in sub_sram}
        else:
            s, _ = synth(family, [files[0]], "tauvta_sram", os.path.join(work, key),
                         chparam=f"chparam -set W {w} -set A {la} tauvta_sram; ",
                         timeout=args.timeout)
        for k in sub_sram:
            sub_sram[k] += s[k] * b["copies"]
        bufdesc.append(f"{name}:{w}x{b['depth']}x{b['copies']}")
    row = dict({k: v for k, v in p.items() if k != "bufs"},
               products_in_dsp=int(design["gemm"]["products_in_dsp"]),
               alu_lanes=design["alu"]["lanes"], alu_passes=design["alu"]["passes"],
               alu_mul=int(p["alu_mul"]))
    row.update(r)
    row.update(features_of(design, family, "compute"))
    for k in ("LUT", "FF", "DSP"):
        row[f"sub_gemm_{k}"] = g[k]
        row[f"sub_alu_{k}"] = a[k]
    for k, v in sub_sram.items():
        row[f"sub_sram_{k}"] = v
    row["ctrl_LUT"] = r["LUT"] - g["LUT"] - a["LUT"] - sub_sram["LUT"]
    row["ctrl_FF"] = r["FF"] - g["FF"] - a["FF"] - sub_sram["FF"]
    row["ctrl_DSP"] = r["DSP"] - g["DSP"] - a["DSP"]
    row["buffers"] = " ".join(bufdesc)
    for k in ("synth_seconds", "synth_cpu_seconds"):
        row[k] = round(r[k] + g[k] + a[k], 2)
    row["cells"] = cells_text(cells)
    return row


# ---------------------------------------------------------------- the accelerator around the datapath
# The parts of tauvta_accelerator outside tauvta_compute, each synthesized alone (flattened, with
# the parameters the generated top gives it): fetch, load and compute_ctrl with their AXI read
# masters, store with its write master, the three command queues, the four token queues and the
# AXI4-Lite control slave. One config gives one row per part.
INFRA_PARTS = {  # part -> (module, instance names in tauvta_accelerator.v)
    "fetch": ("tauvta_fetch", ("fetch",)),
    "load": ("tauvta_load", ("load",)),
    "compute_ctrl": ("tauvta_compute_ctrl", ("compute_ctrl",)),
    "store": ("tauvta_store", ("store",)),
    "cmd_queues": ("tauvta_fifo", ("load_queue", "compute_queue", "store_queue")),
    "token_queues": ("tauvta_token_queue", ("l2g", "g2l", "g2s", "s2g")),
    "control": ("tauvta_control", ("control",)),
}
# Every file `tauvta rtl` writes except the datapath's and the top: the library modules the parts
# instantiate (src/rtl/verilog/, plus the generated instruction-field decoder).
INFRA_EXCLUDED = {"tauvta_compute.v", "tauvta_gemm_core.v", "tauvta_alu.v", "tauvta_sram.v",
                  "tauvta_accelerator.v"}


def infra_library(work):
    return sorted(f for f in os.listdir(work)
                  if f.startswith("tauvta_") and f.endswith(".v") and f not in INFRA_EXCLUDED)


def infra_config(rng):
    """A random valid-looking config: shape, element widths, buffer sizes and the TIMING keys
    the accelerator's parameters come from (bus width, burst length, outstanding requests,
    read acceptance, queue depths)."""
    lb, lbi, lbo = rng.choice((0, 0, 1)), rng.randint(0, 5), rng.randint(0, 5)
    li = rng.choice((0, 1, 2, 3, 3))
    lw = rng.choice((0, 1, 2, 3, 3))
    la = rng.choice((4, 5, 5))
    def elem_log_bytes(bits_log):
        return max(0, bits_log - 3)
    inp_e = elem_log_bytes(lb + lbi + li)
    wgt_e = elem_log_bytes(lbo + lbi + lw)
    acc_e = elem_log_bytes(lb + lbo + la)
    return {
        "TARGET": "synth", "HW_VER": "0.0.2",
        "LOG_INP_WIDTH": li, "LOG_WGT_WIDTH": lw, "LOG_ACC_WIDTH": la,
        "LOG_BATCH": lb, "LOG_BLOCK_IN": lbi, "LOG_BLOCK_OUT": lbo,
        "LOG_UOP_BUFF_SIZE": rng.randint(9, 14), "LOG_INP_BUFF_SIZE": inp_e + rng.randint(5, 11),
        "LOG_WGT_BUFF_SIZE": wgt_e + rng.randint(4, 9), "LOG_ACC_BUFF_SIZE": acc_e + rng.randint(5, 11),
        "TIMING": {"LOG_BUS_WIDTH": rng.choice((6, 6, 7, 7, 8, 9)),
                   "MAX_BURST_BEATS": rng.choice((4, 8, 16, 16, 32, 64, 256)),
                   "MASTER_OUTSTANDING": rng.choice((1, 2, 4, 8, 16, 32)),
                   "PORT_READ_ACCEPTANCE": rng.choice((1, 2, 4, 7, 16)),
                   "CMD_QUEUE_DEPTH": rng.choice((2, 4, 8, 8, 16, 64, 256)),
                   "TOKEN_QUEUE_DEPTH": rng.choice((2, 8, 8, 32, 512))},
    }


# The stock configs first (the presets' accelerator parameters), then random ones.
INFRA_FIXED = [
    {"TARGET": "synth", "HW_VER": "0.0.2", "LOG_INP_WIDTH": 3, "LOG_WGT_WIDTH": 3,
     "LOG_ACC_WIDTH": 5, "LOG_BATCH": 0, "LOG_BLOCK_IN": 4, "LOG_BLOCK_OUT": 4,
     "LOG_UOP_BUFF_SIZE": 15, "LOG_INP_BUFF_SIZE": 15, "LOG_WGT_BUFF_SIZE": 18,
     "LOG_ACC_BUFF_SIZE": 17, "TIMING": {}},
    {"TARGET": "synth", "HW_VER": "0.0.2", "LOG_INP_WIDTH": 3, "LOG_WGT_WIDTH": 3,
     "LOG_ACC_WIDTH": 5, "LOG_BATCH": 0, "LOG_BLOCK_IN": 4, "LOG_BLOCK_OUT": 4,
     "LOG_UOP_BUFF_SIZE": 15, "LOG_INP_BUFF_SIZE": 15, "LOG_WGT_BUFF_SIZE": 18,
     "LOG_ACC_BUFF_SIZE": 17, "TIMING": {"LOG_BUS_WIDTH": 7}},
]


def infra_id(cfg):
    t = cfg["TIMING"]
    return ("infra_b{LOG_BATCH}bi{LOG_BLOCK_IN}bo{LOG_BLOCK_OUT}_i{LOG_INP_WIDTH}w{LOG_WGT_WIDTH}"
            "a{LOG_ACC_WIDTH}_u{LOG_UOP_BUFF_SIZE}i{LOG_INP_BUFF_SIZE}w{LOG_WGT_BUFF_SIZE}"
            "a{LOG_ACC_BUFF_SIZE}").format(**cfg) + "_bus{}_bb{}_o{}_pr{}_q{}_t{}".format(
                t.get("LOG_BUS_WIDTH", 6), t.get("MAX_BURST_BEATS", 16),
                t.get("MASTER_OUTSTANDING", 16), t.get("PORT_READ_ACCEPTANCE", 7),
                t.get("CMD_QUEUE_DEPTH", 8), t.get("TOKEN_QUEUE_DEPTH", 8))


def infra_whole_bytes(cfg):
    return gemm_valid(1 << cfg["LOG_BATCH"], 1 << cfg["LOG_BLOCK_IN"], 1 << cfg["LOG_BLOCK_OUT"],
                      1 << cfg["LOG_INP_WIDTH"], 1 << cfg["LOG_WGT_WIDTH"])


def infra_points(family, count=None):
    # Random configs (seed 34), split fit/holdout, the same for both families (a config tauvta
    # refuses is synthesized as nothing and dropped); then more held-out ones (seed 3434), all
    # valid.
    rng = random.Random(34)
    pts = [("infra", "fit", c) for c in INFRA_FIXED]
    n_fit, n_hold = 8, 2
    for k in range(n_fit + n_hold):
        pts.append(("infra", "fit" if k < n_fit else "holdout", infra_config(rng)))
    rng = random.Random(3434)
    extra = 0
    while extra < 3:
        cfg = infra_config(rng)
        if infra_whole_bytes(cfg):
            pts.append(("infra", "holdout", cfg))
            extra += 1
    return pts


def instance_params(top_text, module, instance):
    """The parameter overrides the generated top gives `instance` of `module`."""
    m = re.search(re.escape(module) + r"\s*#\((.*?)\)\s*" + re.escape(instance) + r"\s*\(",
                  top_text, re.S)
    if not m:
        return {}
    return dict(re.findall(r"\.(\w+)\((\d+)\)", m.group(1)))


def run_infra(args, family, cfg, work, parts=None):
    """Synthesizes the parts of the accelerator outside the datapath (`parts`, default every one);
    returns one row per part."""
    design = generate(args.tauvta, cfg, work)
    with open(os.path.join(work, "tauvta_accelerator.v")) as f:
        top = f.read()
    files = [os.path.join(work, f) for f in infra_library(work)]
    rows = []
    for part, (module, instances) in INFRA_PARTS.items():
        if parts is not None and part not in parts:
            continue
        params = instance_params(top, module, instances[0])
        chparam = "".join(f"chparam -set {k} {v} {module}; " for k, v in params.items())
        r, cells = synth(family, files, module, os.path.join(work, part), chparam=chparam,
                         timeout=args.timeout)
        n = len(instances)
        for k in ("LUT", "LUT_logic", "LUT_mem", "FF", "DSP", "BRAM36", "BRAM18", "URAM",
                  "CARRY", "MUXF"):
            r[k] *= n
        row = dict(r, part=part, instances=n,
                   params=" ".join(f"{k}={v}" for k, v in params.items()),
                   config=json.dumps(cfg, sort_keys=True, separators=(",", ":")))
        row.update(features_of(design, family, part))
        row["cells"] = cells_text(cells)
        rows.append(row)
    return rows


INFRA_COLUMNS = (["id", "family", "module", "split", "instances", "params", "config"] +
                 RESOURCE_COLS + ["f_" + f for f in FEATURES] + ["tauvta_md5", "cells"])


def run_infra_family(args, family):
    """The infra grid of one family into data/infra_<family>.csv (resumable by config id; the
    f_ feature columns are filled by --refeature)."""
    pts = infra_points(family)
    if args.only:
        pts = [t for t in pts if re.search(args.only, infra_id(t[2]))]
    path = os.path.join(args.out, f"infra_{family}.csv")
    # A config is done when every part has its row (a part whose RTL changed is deleted and rerun
    # alone).
    have = {}
    for r in read_csv_rows(path):
        have.setdefault(r["id"], set()).add(r["module"])
    missing = {infra_id(t[2]): set(INFRA_PARTS) - have.get(infra_id(t[2]), set()) for t in pts}
    todo = [t for t in pts if missing[infra_id(t[2])]]
    print(f"{family} infra: {len(pts)} configs, {len(pts) - len(todo)} done, {len(todo)} to run",
          flush=True)
    header = INFRA_COLUMNS
    if os.path.exists(path):
        with open(path) as f:
            header = next(csv.reader(l for l in f if not l.startswith("#")))
    new_file = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        if new_file:
            f.write("# Generated by tools/synth/synth_grid.py --modules infra; one row per part of "
                    "tauvta_accelerator outside the datapath per config.\n")
        w = csv.DictWriter(f, fieldnames=header, extrasaction="ignore")
        if new_file:
            w.writeheader()
        t0 = time.time()
        for i, (_, split, cfg) in enumerate(todo):
            pid = infra_id(cfg)
            work = tempfile.mkdtemp(prefix=f"{family}-{pid[:40]}-", dir=args.work)
            try:
                rows = run_infra(args, family, cfg, work, missing[pid])
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
                print(f"  FAILED {family} {pid}: {e}", flush=True)
                with open(os.path.join(args.out, f"failed_{family}.txt"), "a") as ff:
                    ff.write(f"{family} {pid}: {type(e).__name__}: {e} (work dir {work})\n")
                continue
            for row in rows:
                row.update(id=pid, family=family, module=row.pop("part"), split=split,
                           tauvta_md5=TAUVTA_MD5)
                w.writerow({c: row.get(c, "") for c in header})
            f.flush()
            print(f"[{i + 1}/{len(todo)} {time.time() - t0:6.0f}s] {family} {pid}: " + " ".join(
                f"{r['module']}={r['LUT']}/{r['FF']}" for r in rows), flush=True)
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)


def row_design(args, row, work, cache):
    """design.json of the config (and options) a grid row was synthesized from."""
    m = row["module"]
    opts = ("auto", 2)
    if m in INFRA_PARTS:
        cfg = json.loads(row["config"])
    elif m == "gemm":
        cfg = config_json(*(int(row[k]) for k in ("batch", "block_in", "block_out", "inp_width",
                                                    "wgt_width", "acc_width")))
        opts = (row["binding"], int(row["tree_levels"]))
    elif m == "alu":
        cfg = alu_cfg(dict(alu_vector=int(row["alu_vector"]),
                           alu_lanes_cfg=int(row["alu_lanes_cfg"]),
                           acc_width=int(row["acc_width"]), alu_mul=row["alu_mul"] == "1"))
    elif m == "compute":
        p = next(p for p in COMPUTE_CONFIGS if compute_id(p) == row["id"])
        cfg = config_json(p["batch"], p["block_in"], p["block_out"], p["inp_width"],
                          p["wgt_width"], p["acc_width"], p["alu_lanes_cfg"], p["alu_mul"],
                          p["bufs"])
        opts = (p["binding"], p["tree_levels"])
    else:
        return None
    key = json.dumps([cfg, opts], sort_keys=True)
    if key not in cache:
        cache[key] = generate(args.tauvta, cfg, work, *opts)
    return cache[key]


def refeature(args, path, columns):
    """Rewrites the f_ columns of every row of `path` from the design.json the current generator
    writes for the row's config (no synthesis): features change, cell counts do not."""
    if not os.path.exists(path):
        return
    with open(path, newline="") as f:
        lines = f.readlines()
    comments = [l for l in lines if l.startswith("#")]
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    cache = {}
    work = tempfile.mkdtemp(prefix="refeature-", dir=args.work)
    for r in rows:
        for k in [k for k in r if k.startswith("f_")]:
            del r[k]
        design = row_design(args, r, work, cache)
        if design is not None:
            r.update(features_of(design, r["family"], r["module"]))
    with open(path, "w", newline="") as f:
        f.writelines(comments)
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    shutil.rmtree(work, ignore_errors=True)
    print(f"refeatured {len(rows)} rows of {path} ({len(cache)} designs)")


def read_csv_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


# ---------------------------------------------------------------- main
def recount(path):
    if not os.path.exists(path):
        return
    with open(path, newline="") as f:
        lines = f.readlines()
    comments = [l for l in lines if l.startswith("#")]
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    for r in rows:
        cells = {k: int(v) for k, v in (c.split("=") for c in r["cells"].split())}
        res = resources(cells)
        for k, v in res.items():
            r[k] = v
    with open(path, "w", newline="") as f:
        f.writelines(comments)
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    print(f"recounted {len(rows)} rows of {path}")


def read_csv(path):
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        return {r["id"]: r for r in csv.DictReader(l for l in f if not l.startswith("#"))}


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tauvta", default="/tmp/synth-tauvta-snap",
                    help="tauvta binary (a copy, so a rebuild does not change it mid-run)")
    ap.add_argument("--family", choices=FAMILIES, action="append",
                    help="FPGA family (repeatable; default both, xc7 first)")
    ap.add_argument("--modules", default="sram,gemm,alu,compute",
                    help="comma-separated subset of sram,gemm,alu,compute (order of the run)")
    ap.add_argument("--only", default="", help="regex: run only point ids matching it")
    ap.add_argument("--list", action="store_true", help="list the points and exit")
    ap.add_argument("--recount", action="store_true",
                    help="recompute the resource columns of the CSVs from their cells column "
                         "(after a change of the cell accounting) and exit")
    ap.add_argument("--refeature", action="store_true",
                    help="rewrite the f_ feature columns of the CSVs from the design.json the "
                         "given tauvta writes for each row's config (after a change of the "
                         "features; no synthesis) and exit")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per yosys run")
    ap.add_argument("--out", default=DATA, help="output directory for grid_<family>.csv")
    ap.add_argument("--work", default="/tmp/tauvta-synth-work", help="scratch directory")
    ap.add_argument("--keep", action="store_true", help="keep the per-point work directories")
    args = ap.parse_args()
    families = args.family or list(FAMILIES)
    modules = [m for m in args.modules.split(",") if m]
    def family_points(family):
        pts = all_points([m for m in modules if m != "infra"], family)
        if args.only:
            pts = [t for t in pts if re.search(args.only, point_id(t[0], t[2]))]
        return pts
    if args.list:
        for family in families:
            if "infra" in modules:
                for _, split, cfg in infra_points(family):
                    print(f"{family:5s} {split:8s} {infra_id(cfg)}")
            pts = family_points(family) if [m for m in modules if m != "infra"] else []
            for m, s, p in pts:
                print(f"{family:5s} {s:8s} {point_id(m, p)}")
            print(f"{family}: {len(pts)} points")
        return
    if args.recount:
        for family in families:
            recount(os.path.join(args.out, f"grid_{family}.csv"))
        return
    if args.refeature:
        os.makedirs(args.work, exist_ok=True)
        for family in families:
            refeature(args, os.path.join(args.out, f"grid_{family}.csv"), COLUMNS)
            refeature(args, os.path.join(args.out, f"infra_{family}.csv"), INFRA_COLUMNS)
        return
    if not shutil.which("yosys"):
        sys.exit("yosys not found")
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    load_library(args.work)
    global TAUVTA_MD5
    with open(args.tauvta, "rb") as f:
        TAUVTA_MD5 = hashlib.md5(f.read()).hexdigest()[:12]
    print(f"tauvta {args.tauvta} md5 {TAUVTA_MD5}")
    if "infra" in modules:
        for family in families:
            run_infra_family(args, family)
        modules = [m for m in modules if m != "infra"]
        if not modules:
            return
    for family in families:
        pts = family_points(family)
        path = os.path.join(args.out, f"grid_{family}.csv")
        done = read_csv(path)
        todo = [t for t in pts if point_id(t[0], t[2]) not in done]
        print(f"{family}: {len(pts)} points, {len(pts) - len(todo)} already in {path}, "
              f"{len(todo)} to run", flush=True)
        new_file = not os.path.exists(path)
        with open(path, "a", newline="") as f:
            if new_file:
                f.write("# Generated by tools/synth/synth_grid.py (see its --help for the command);"
                        " one row per synthesized point.\n")
            w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="raise")
            if new_file:
                w.writeheader()
            t_start = time.time()
            for i, (module, split, p) in enumerate(todo):
                pid = point_id(module, p)
                work = tempfile.mkdtemp(prefix=f"{family}-{pid}-", dir=args.work)
                try:
                    if module == "gemm":
                        row = run_gemm(args, family, p, work)
                    elif module == "alu":
                        row = run_alu(args, family, p, work)
                    elif module == "sram":
                        row = run_sram(args, family, p, work)
                    else:
                        row = run_compute(args, family, p, work, done)
                except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
                    msg = f"{family} {pid}: {type(e).__name__}: {e}"
                    print("  FAILED " + msg, flush=True)
                    with open(os.path.join(args.out, f"failed_{family}.txt"), "a") as ff:
                        ff.write(msg + f" (work dir {work})\n")
                    continue
                row.update(id=pid, family=family, module=module, split=split,
                           tauvta_md5=TAUVTA_MD5)
                w.writerow({c: row.get(c, "") for c in COLUMNS})
                f.flush()
                done[pid] = {c: str(row.get(c, "")) for c in COLUMNS}
                el = time.time() - t_start
                print(f"[{i + 1}/{len(todo)} {el:6.0f}s] {family} {pid}: LUT={row['LUT']} "
                      f"FF={row['FF']} DSP={row['DSP']} BRAM36={row['BRAM36']} "
                      f"BRAM18={row['BRAM18']} levels={row['logic_levels']} "
                      f"({row['synth_seconds']}s)", flush=True)
                if not args.keep:
                    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
