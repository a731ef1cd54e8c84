#!/usr/bin/python3
"""Model zoo: torchvision classifiers (random weights) through tauvta's float, int and accelerator paths.

Exports each model at every --opsets to OUT/NAME_opN.onnx with NAME_input.npy and NAME_output.npy
(torch's eval-mode output), runs `tauvta run` --float, --int and on the simulated accelerator, and
prints one row per model x opset. A row passes when the float output's cosine against torch is
>= 0.9999 and the accelerator's output.npy is byte-identical to --int's. docs/zoo.md has the rest.
"""
import argparse
import csv
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import warnings
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch
import torch.nn as nn
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from export_util import export_onnx, save_npy  # noqa: E402
from make_models import calibrate_batch_norm  # noqa: E402

FULL = ["resnet18", "resnet34", "resnet50", "resnext50_32x4d", "wide_resnet50_2", "densenet121",
        "regnet_y_400mf", "efficientnet_b0", "inception_v3", "squeezenet1_0", "alexnet", "vgg11_bn",
        "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "shufflenet_v2_x0_5",
        "shufflenet_v2_x1_0", "mnasnet1_0", "googlenet", "convnext_tiny", "swin_t", "vit_b_16"]
SUITES = {"full": FULL, "ci": ["mobilenet_v3_small", "shufflenet_v2_x0_5", "tiny_vit"]}
MIN_COSINE = 0.9999
LOCK = threading.Lock()


class EncoderBlock(nn.Module):
    """Pre-norm transformer block: LN -> MHA -> residual, LN -> MLP (GELU) -> residual."""

    def __init__(self, dim=32, heads=4, hidden=64):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        y = self.norm1(x)
        x = x + self.attn(y, y, y, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class TinyViT(nn.Module):
    """A ViT-like classifier for 3x32x32 inputs: 4x4 patches to dim 32, class token, 2 blocks, 10 classes."""

    def __init__(self, dim=32, depth=2, classes=10):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 4, stride=4)
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, 1 + 8 * 8, dim) * 0.02)
        self.blocks = nn.Sequential(*[EncoderBlock(dim) for _ in range(depth)])
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.head(self.norm(self.blocks(x))[:, 0])


def log(msg):
    """One progress line on stderr."""
    with LOCK:  # rows may run in threads (--jobs)
        print(f"zoo: {msg}", file=sys.stderr, flush=True)


def seed_of(name, salt=""):
    """A fixed seed derived from the model name (same weights on every run with the same torch)."""
    return zlib.crc32((name + salt).encode()) & 0x7FFFFFFF


def build_model(name):
    """The model with random weights and its input shape (C, H, W)."""
    if name == "tiny_vit":
        return TinyViT(), (3, 32, 32)
    kwargs = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
    model = getattr(torchvision.models, name)(weights=None, **kwargs)
    # Classifier heads that torchvision initializes to zero (ViT's) would make every output 0 and
    # the cosine against torch meaningless: give them random weights like every other layer.
    for m in model.modules():
        if isinstance(m, nn.Linear) and not m.weight.detach().any():
            nn.init.normal_(m.weight, std=0.02)
    return model, (3, 224, 224)


def atomic(path, write):
    """Calls write(tmp) on a temporary name in path's directory, then renames it to path."""
    tmp = os.path.join(os.path.dirname(path), f".tmp-{os.getpid()}-{os.path.basename(path)}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_json(path, obj):
    """Writes obj as indented JSON to path atomically."""
    def write(tmp):
        with open(tmp, "w") as f:
            json.dump(obj, f, indent=2)
            f.write("\n")
    atomic(path, write)


def first_line(exc):
    """The first non-empty line of an exception's message, with its type."""
    lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def reference(name, bn_stats="calibrated"):
    """The seeded model (eval mode), its sample input and torch's output. Batch-norm statistics
    are accumulated over random batches ("calibrated"), or left as torchvision initializes them
    ("init": mean 0, variance 1; activations then vanish or grow layer by layer, which is what a
    user exporting an untrained torchvision model gets)."""
    torch.manual_seed(seed_of(name))
    gen = torch.Generator().manual_seed(seed_of(name, "/input"))
    model, chw = build_model(name)
    if bn_stats == "calibrated":
        calibrate_batch_norm(torch, model, "randn", chw, gen)
    model.eval()
    x = torch.randn((1,) + chw, generator=gen)
    with torch.no_grad():
        return model, x, model(x)


def export_model(name, opsets, out_dir, force, bn_stats="calibrated"):
    """Exports NAME at each opset (files present are kept unless force); returns its metadata."""
    meta_path, stem = os.path.join(out_dir, name + ".json"), os.path.join(out_dir, name)
    if bn_stats != "calibrated" and name == "tiny_vit":
        bn_stats = "calibrated"  # no batch norm
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) and not force else {}
    todo = [op for op in opsets if force or not os.path.exists(f"{stem}_op{op}.onnx")]
    io = {f"{stem}_input.npy": 1, f"{stem}_output.npy": 2}
    if not todo and "params" in meta and all(map(os.path.exists, io)):
        log(f"{name}: exports present, skipped")
        return meta
    t0, errors = time.time(), meta.setdefault("export_errors", {})
    meta.pop("build_error", None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer and exporter chatter
            made = reference(name, bn_stats)
            meta.update(params=sum(p.numel() for p in made[0].parameters()), seed=seed_of(name), bn_stats=bn_stats,
                        input_seed=seed_of(name, "/input"), input_shape=list(made[1].shape))
            for path, i in io.items():
                if force or not os.path.exists(path):
                    atomic(path, lambda tmp: save_npy(tmp, made[i].numpy()))
            for op in todo:
                try:
                    atomic(f"{stem}_op{op}.onnx", lambda tmp: export_onnx(made[0], made[1], tmp, opset=op))
                    errors.pop(str(op), None)
                except Exception as e:  # an export failure is a result, not a crash
                    errors[str(op)] = first_line(e)
    except Exception as e:
        meta["build_error"] = first_line(e)
    write_json(meta_path, meta)
    status = meta.get("build_error") or errors or "ok"
    log(f"{name}: exported opsets {','.join(map(str, todo))} in {time.time() - t0:.1f} s: {status}")
    return meta


def error_line(stderr, rc):
    """The first error line of a failed run's stderr (else its last line, else how it ended)."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip() and not l.startswith("warning:")]
    errors = [l for l in lines if l.startswith("tauvta: error")] + [l for l in lines if "error" in l.lower()]
    return (errors or lines[-1:] or [f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}"])[0]


def short(line):
    """An error line for the table: no 'tauvta: error: MODEL.onnx: ' prefix or '(supported: ...)' list."""
    line = line.replace("tauvta: error: ", "", 1)
    line = (line.split(".onnx: ", 1)[1] if ".onnx: " in line else line).split(" (supported:")[0]
    m = re.match(r"node '([^']*)' \([^)]*\): (.*)", line)
    return f"{m.group(2)} [node {m.group(1)}]" if m else line


def run_tauvta(cmd, out_dir):
    """Runs one tauvta command into a fresh out_dir; returns rc, seconds, error line and warnings."""
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    t0, p = time.time(), subprocess.run(cmd, capture_output=True, text=True)
    res = {"command": shlex.join(cmd), "rc": p.returncode, "seconds": round(time.time() - t0, 3),
           "warnings": [l for l in p.stderr.splitlines() if l.startswith("warning:")]}
    if p.returncode != 0:
        res["error"] = error_line(p.stderr, p.returncode)
    return res


def compare_float(got_path, want_path):
    """Cosine similarity (float64) and max abs error of tauvta's float output against torch's."""
    got, want = np.load(got_path).astype(np.float64), np.load(want_path).astype(np.float64)
    if got.shape != want.shape:
        raise ValueError(f"shape {list(got.shape)} != torch's {list(want.shape)}")
    a, b = got.ravel(), want.ravel()
    denom = np.linalg.norm(a) * np.linalg.norm(b)
    cos = float(a @ b / denom) if denom > 0 else float(np.array_equal(a, b))
    return cos, float(np.max(np.abs(a - b)))


def identical_npy(a_path, b_path):
    """True when two .npy files are byte-identical and hold equal arrays of the same dtype."""
    with open(a_path, "rb") as fa, open(b_path, "rb") as fb:
        same_bytes = fa.read() == fb.read()
    a, b = np.load(a_path), np.load(b_path)
    return same_bytes and a.dtype == b.dtype and np.array_equal(a, b)


def report_summary(path):
    """Placement counts, GOPS, cycles, simulated time and compile time from report.json's 'total'."""
    with open(path) as f:
        total = json.load(f).get("total", {})
    out = {k: total.get(k) for k in ("vta_layers", "cpu_layers", "gops", "cycles")}
    sim, out["compile_s"] = total.get("seconds_at_clock"), total.get("compile_seconds")
    out["sim_ms"] = None if sim is None else sim * 1e3
    return out


def run_row(name, opset, meta, args):
    """Runs one exported model through the three paths and judges it; returns the row."""
    stem = os.path.join(args.out_dir, name)
    model, d = f"{stem}_op{opset}.onnx", f"{stem}_op{opset}"
    row = {"model": name, "opset": opset, "params_m": meta.get("params", 0) / 1e6, "paths": {},
           "acc_eq_int": None, "warnings": [], "reasons": []}
    err = meta.get("build_error") or meta.get("export_errors", {}).get(str(opset))
    if err:
        row["reasons"].append(f"export: {err}")
        return finish(row)
    base = [args.tauvta, "run", model, "--input", f"{stem}_input.npy", "--force", "-q"]
    cfg = ["--config", args.config] if args.config else []
    cmds = {"float": base + ["--float", "--output-dir", f"{d}/float"],
            "int": base + ["--int", "--output-dir", f"{d}/int"] + cfg,
            "acc": base + ["--output-dir", f"{d}/acc", "--report", f"{d}/acc/report.json"] + cfg}
    for path in ["float", "int"] + ([] if args.skip_accel else ["acc"]):
        res = row["paths"][path] = run_tauvta(cmds[path], f"{d}/{path}")
        log(f"{name} op{opset} {path}: {res['seconds']:.1f} s, {short(res.get('error', 'ok'))}")
        if "error" in res:
            row["reasons"].append(f"{path}: {short(res['error'])}")
    row["warnings"] = sorted({w for r in row["paths"].values() for w in r["warnings"]})
    try:
        check_outputs(row, stem, d)
    except (OSError, ValueError) as e:  # an output or the report missing or unreadable
        row["reasons"].append(f"outputs: {first_line(e)}")
    return finish(row)


def check_outputs(row, stem, d):
    """Float output against torch's, the accelerator report, and accelerator output against --int's."""
    if "error" not in row["paths"]["float"]:
        row["cosine"], row["max_abs_err"] = compare_float(f"{d}/float/output.npy", f"{stem}_output.npy")
        if not row["cosine"] >= MIN_COSINE:
            row["reasons"].append(f"float: cosine {row['cosine']:.6f} < {MIN_COSINE}")
    if "error" not in row["paths"].get("acc", {"error": "skipped"}):
        row.update(report_summary(f"{d}/acc/report.json"))
        if "error" not in row["paths"]["int"]:
            row["acc_eq_int"] = identical_npy(f"{d}/acc/output.npy", f"{d}/int/output.npy")
            if not row["acc_eq_int"]:
                row["reasons"].append("acc: output differs from --int")
    if "error" not in row["paths"]["int"]:
        # How close quantization stays to float (informative: random weights, synthetic calibration).
        row["int_cosine"] = compare_float(f"{d}/int/output.npy", f"{stem}_output.npy")[0]


def finish(row):
    """Sets the row's status from its failure reasons and logs it."""
    row["status"] = "ok" if not row["reasons"] else "fail: " + row["reasons"][0]
    log(f"{row['model']} op{row['opset']}: {row['status']}")
    return row


COLUMNS = [  # header, width, cell
    ("model", 18, lambda r: r["model"]), ("opset", 5, lambda r: r["opset"]),
    ("params M", 8, lambda r: f"{r['params_m']:.2f}"), ("float cos", 9, lambda r: fmt(r.get("cosine"), "{:.6f}")),
    ("max abs err", 11, lambda r: fmt(r.get("max_abs_err"), "{:.3g}")), ("int", 4, lambda r: path_status(r, "int")),
    ("int cos", 8, lambda r: fmt(r.get("int_cosine"), "{:.4f}")),
    ("acc==int", 8, lambda r: {True: "yes", False: "no"}.get(r["acc_eq_int"], "—")),
    ("acc/cpu", 7, lambda r: "—" if r.get("vta_layers") is None else f"{r['vta_layers']}/{r['cpu_layers']}"),
    ("GOPS", 6, lambda r: fmt(r.get("gops"), "{:.2f}")), ("sim ms", 8, lambda r: fmt(r.get("sim_ms"), "{:.2f}")),
    ("compile s", 9, lambda r: fmt(r.get("compile_s"), "{:.2f}")), ("warn", 4, lambda r: len(r["warnings"])),
    ("status", 0, lambda r: r["status"])]


def fmt(value, spec):
    """A number formatted with spec, or a dash when missing."""
    return "—" if value is None else spec.format(value)


def path_status(row, path):
    """ok / fail for a path that ran, a dash for one that did not."""
    res = row["paths"].get(path)
    return "—" if res is None else ("fail" if "error" in res else "ok")


def table(rows):
    """The readable table: one line per model x opset (status cut at 90 characters)."""
    lines = ["  ".join(f"{h:<{w}}" for h, w, _ in COLUMNS)]
    for r in rows:
        cells = [str(f(r)) for _, _, f in COLUMNS]
        cells[-1] = cells[-1][:90]
        lines.append("  ".join(f"{c:<{w}}" for c, (_, w, _) in zip(cells, COLUMNS)))
    return "\n".join(lines)


def write_outputs(rows, args):
    """Writes every row (with its commands and the versions used) as JSON, and the table as CSV."""
    doc = {"criteria": {"min_float_cosine": MIN_COSINE, "acc_byte_identical_to_int": not args.skip_accel},
           "versions": {"torch": torch.__version__, "torchvision": torchvision.__version__,
                        "numpy": np.__version__, "python": sys.version.split()[0]},
           "argv": sys.argv, "tauvta": args.tauvta, "config": args.config, "opsets": args.opsets,
           "skip_accel": args.skip_accel, "bn_stats": args.bn_stats, "rows": rows}
    write_json(args.json, doc)
    fields = ["model", "opset", "params_m", "cosine", "max_abs_err", "int", "int_cosine", "acc", "acc_eq_int",
              "vta_layers", "cpu_layers", "gops", "cycles", "sim_ms", "compile_s", "warnings", "status"]
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({**r, "int": path_status(r, "int"), "acc": path_status(r, "acc"),
                        "warnings": len(r["warnings"])})


def parse_args():
    """Command-line options; fills in the model list and default output paths."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sel = ap.add_mutually_exclusive_group()
    sel.add_argument("--models", help="comma-separated torchvision model names (or tiny_vit)")
    sel.add_argument("--suite", choices=sorted(SUITES), default="full", help="model list (default full)")
    ap.add_argument("--opsets", default="13,17", help="comma-separated ONNX opsets (default 13,17)")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "build", "zoo"), help="default build/zoo")
    ap.add_argument("--tauvta", default=os.path.join(ROOT, "build", "tauvta"), help="default build/tauvta")
    ap.add_argument("--config", help="hardware config JSON for --int and the accelerator")
    ap.add_argument("--force", action="store_true", help="re-export models already present")
    ap.add_argument("--jobs", type=int, default=1, help="model x opset rows run in parallel")
    ap.add_argument("--skip-accel", action="store_true", help="no accelerator run (float and int only)")
    ap.add_argument("--bn-stats", choices=["calibrated", "init"], default="calibrated",
                    help="batch-norm statistics: accumulated over random batches (default) or torchvision's "
                         "initial mean 0 / variance 1 (use another --out-dir: exports are cached by name)")
    ap.add_argument("--json", help="default OUT/zoo.json")
    ap.add_argument("--csv", help="default OUT/zoo.csv")
    args = ap.parse_args()
    args.names = [m for m in (args.models or "").split(",") if m] or SUITES[args.suite]
    for m in args.names:
        if m != "tiny_vit" and not callable(getattr(torchvision.models, m, None)):
            ap.error(f"unknown model '{m}'")
    if not os.access(args.tauvta, os.X_OK):
        ap.error(f"no tauvta binary at {args.tauvta}")
    args.opsets = [int(o) for o in args.opsets.split(",") if o]
    args.json = args.json or os.path.join(args.out_dir, "zoo.json")
    args.csv = args.csv or os.path.join(args.out_dir, "zoo.csv")
    return args


def main():
    """Exports what is missing, runs every model x opset, prints the table; 1 when a row failed."""
    args = parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    metas = {m: export_model(m, args.opsets, args.out_dir, args.force, args.bn_stats) for m in args.names}
    jobs = [(m, op) for m in args.names for op in args.opsets]
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        rows = list(pool.map(lambda j: run_row(j[0], j[1], metas[j[0]], args), jobs))
    print(table(rows), flush=True)
    write_outputs(rows, args)
    failed = sum(r["status"] != "ok" for r in rows)
    log(f"{len(rows) - failed}/{len(rows)} rows passed; wrote {args.json} and {args.csv}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
