#!/usr/bin/python3
"""PyTorch's fake-quantized accuracy vs tauvta's integer accuracy of QDQ models, on the same images.

For each model (as tools/qat/qdq_finetune.py exports it) the PyTorch model is rebuilt from the
file: the architecture (--arch) rewritten by tools/qat/pow2_qdq.py, its float weights and biases
from the initializers, the activation binary points from the QuantizeLinear scales on activations
(in node order: input, ReLU outputs, logits) and the weight binary points from those on weights.
It is evaluated in float32 (as it trains) and float64 (exact: float32 convolutions may round an
accumulator that sits exactly on a rounding tie). tauvta runs `accuracy MODEL --int --config CFG`
on the first --limit test images, the same ones.

    /usr/bin/python3 bench/qdq_accuracy.py build/tauvta models/vgg7_fmnist_w4a4_qdq.onnx:configs/pynq_w4a4.json \
        models/vgg7_fmnist_w2a2_qdq.onnx:configs/pynq_w2a2.json --limit 10000
"""
import argparse
import importlib
import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "qat"))
sys.path.insert(0, os.path.join(ROOT, "tools", "ptq_headroom"))
sys.path.insert(0, os.path.join(ROOT, "models"))
import pow2_qdq  # noqa: E402

D = "/usr/share/datasets/fashion-mnist"


def torch_model(path, arch, kwargs):
    m = onnx.load(path)
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    consts = dict(inits)
    for n in m.graph.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    act, wgt = [], {}
    for n in m.graph.node:
        if n.op_type == "QuantizeLinear":
            f = np.round(-np.log2(consts[n.input[1]])).astype(int).reshape(-1)
            if n.input[0] in inits:
                wgt[n.input[0]] = f
            else:
                act.append(int(f[0]))
    mod, fn = arch.split(":")
    model = getattr(importlib.import_module(mod), fn)(**kwargs)
    q = pow2_qdq.quantize_model(model, 8, 8)  # ranges are set below from the file's Clips
    state = {k: torch.from_numpy(v.copy()) for k, v in inits.items()}
    q.load_state_dict({k: state[k] for k in q.state_dict() if k in state}, strict=False)
    pow2_qdq.set_act_formats(q, act)
    for name, layer in q.named_modules():
        if isinstance(layer, (pow2_qdq.QConv2d, pow2_qdq.QLinear)):
            layer.wfrac.copy_(torch.from_numpy(wgt[name + ".weight"]))
            layer.bias_on_grid = False  # the file's biases are on the grid already
    _set_ranges(q, m, consts)
    return q


def _set_ranges(q, m, consts):
    """qmin/qmax of every quantizer from the Clip after its QuantizeLinear (in node order)."""
    clip_of = {n.input[0]: n for n in m.graph.node if n.op_type == "Clip"}
    inits = {i.name for i in m.graph.initializer}
    act_ranges, wgt_ranges = [], {}
    for n in m.graph.node:
        if n.op_type == "QuantizeLinear":
            c = clip_of[n.output[0]]
            r = (int(consts[c.input[1]]), int(consts[c.input[2]]))
            if n.input[0] in inits:
                wgt_ranges[n.input[0]] = r
            else:
                act_ranges.append(r)
    acts = [a for a in q.modules() if isinstance(a, pow2_qdq.ActQuant)]
    for a, (lo, hi) in zip(acts, act_ranges):
        a.qmin, a.qmax = lo, hi
    for name, layer in q.named_modules():
        if isinstance(layer, (pow2_qdq.QConv2d, pow2_qdq.QLinear)):
            layer.wq = wgt_ranges[name + ".weight"]


@torch.no_grad()
def torch_accuracy(q, x, y, dtype):
    q = q.to(dtype).eval()
    correct = 0
    for k in range(0, len(x), 500):
        correct += (q(x[k:k + 500].to(dtype)).argmax(1) == y[k:k + 500]).sum().item()
    return correct / len(x)


def tauvta_accuracy(tauvta, model, config, limit):
    out = subprocess.run([tauvta, "accuracy", model, "--int", "--config", config, "--images",
                          f"{D}/t10k-images-idx3-ubyte.gz", "--labels", f"{D}/t10k-labels-idx1-ubyte.gz",
                          "--limit", str(limit), "-q"], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"top-1 accuracy ([0-9.]+)", out).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tauvta")
    ap.add_argument("models", nargs="+", help="MODEL.onnx:CONFIG.json")
    ap.add_argument("--limit", type=int, default=10000, help="test images [0, N)")
    ap.add_argument("--arch", default="model_defs:VGG7")
    ap.add_argument("--arch-kwargs", default='{"softmax": false}')
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    torch.set_num_threads(1)
    import ptq
    _, _, xte, yte = ptq.load_data()
    x, y = xte[:args.limit], yte[:args.limit]
    rows = []
    print(f"| model | images | PyTorch fake-quant (float32) | (float64) | tauvta integer | gap vs float64 |")
    print("|---|---|---|---|---|---|")
    for spec in args.models:
        model, config = spec.split(":")
        q = torch_model(model, args.arch, json.loads(args.arch_kwargs))
        a32 = torch_accuracy(q, x, y, torch.float32)
        a64 = torch_accuracy(q, x, y, torch.float64)
        t = tauvta_accuracy(args.tauvta, model, config, args.limit)
        rows.append({"model": model, "config": config, "images": args.limit, "torch_float32": a32,
                     "torch_float64": a64, "tauvta_int": t})
        print(f"| {os.path.basename(model)} | {args.limit} | {a32:.4f} | {a64:.4f} | {t:.4f} | "
              f"{100 * (t - a64):+.2f} pts |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
