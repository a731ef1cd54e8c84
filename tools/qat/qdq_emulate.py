#!/usr/bin/python3
"""Runs a power-of-two QDQ model (as tools/qat/qdq_finetune.py exports it) two ways, in float64:

  * mode "fake": ONNX's semantics (what tauvta's float reference runs): the file's biases as
    they are, QuantizeLinear rounding half to even;
  * mode "int": tauvta's integer datapath written from docs/quantization.md: biases rounded
    (half to even) to the product's binary point f_in + f_w, requantization of the exact
    accumulator by (acc + 2^(s-1)) >> s (round half up), then the clip.

Operators: QuantizeLinear -> Clip -> DequantizeLinear (on the input, activations and weights),
Conv, Gemm (transB=1), Relu, MaxPool, Flatten. `logits(path, x, mode)` gives the dequantized
outputs; as a script it prints both accuracies on Fashion-MNIST test images [A, B).

    /usr/bin/python3 tools/qat/qdq_emulate.py models/vgg7_fmnist_w4a4_qdq.onnx --images 0:1000
"""
import argparse
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper


def _attrs(n):
    return {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}


def _pow2_frac(scale):
    f = -np.log2(scale)
    if not np.all(f == np.round(f)):
        raise SystemExit(f"scale {scale} is not a power of two")
    return np.round(f).astype(np.int64)


def _round_half_up(v):
    return torch.floor(v + 0.5)


class Emulator:
    def __init__(self, path):
        m = onnx.load(path)
        self.nodes = list(m.graph.node)
        self.consts = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
        for n in self.nodes:
            if n.op_type == "Constant":
                self.consts[n.output[0]] = numpy_helper.to_array(_attrs(n)["value"])
        self.input = m.graph.input[0].name
        self.output = m.graph.output[0].name

    def logits(self, x, mode):
        assert mode in ("fake", "int")
        # value -> (float64 tensor, frac or None); "pending" accumulators keep their exact value
        vals = {self.input: (torch.as_tensor(x, dtype=torch.float64), None)}
        ql, clip = {}, {}
        for n in self.nodes:
            op, a = n.op_type, _attrs(n)
            ins = list(n.input)
            if op == "Constant":
                continue
            if op == "QuantizeLinear":
                ql[n.output[0]] = (ins[0], self.consts[ins[1]], a.get("axis", 1))
            elif op == "Clip":
                clip[n.output[0]] = (ins[0], int(self.consts[ins[1]]), int(self.consts[ins[2]]))
            elif op == "DequantizeLinear":
                src, lo, hi = clip[ins[0]]
                xin, scale, axis = ql[src]
                f = _pow2_frac(scale)
                if xin in self.consts:  # a weight: its integers and per-channel fracs
                    w = torch.tensor(np.array(self.consts[xin]), dtype=torch.float64)
                    s = torch.as_tensor(2.0 ** f.reshape(-1), dtype=torch.float64).view(-1, *[1] * (w.dim() - 1))
                    q = torch.clamp(torch.round(w * s), lo, hi)
                    vals[n.output[0]] = (q / s, torch.as_tensor(f.reshape(-1)))
                    continue
                v, pending = vals[xin]
                f = int(f)
                if mode == "int" and pending is not None:  # requantization of an accumulator
                    q = _round_half_up(v * 2.0 ** f)
                else:  # ONNX QuantizeLinear (and tauvta's Quantize of the input): half to even
                    q = torch.round(v * 2.0 ** f)
                vals[n.output[0]] = (torch.clamp(q, lo, hi) * 2.0 ** -f, None)
                self.fracs = getattr(self, "fracs", {})
                self.fracs[n.output[0]] = f
            elif op in ("Conv", "Gemm"):
                x_, _ = vals[ins[0]]
                w, fw = vals[ins[1]]
                b = torch.as_tensor(self.consts[ins[2]], dtype=torch.float64)
                if mode == "int":
                    f_in = self.fracs[ins[0]] if ins[0] in self.fracs else self._frac_through(ins[0])
                    bf = (f_in + fw).to(torch.float64)
                    b = torch.round(b * 2.0 ** bf) * 2.0 ** -bf
                if op == "Conv":
                    y = F.conv2d(x_, w, b, stride=a.get("strides", [1, 1]), padding=a.get("pads", [0, 0, 0, 0])[:2])
                else:
                    assert a.get("transB", 0) == 1
                    y = x_ @ w.T + b
                vals[n.output[0]] = (y, True)
            elif op == "Relu":
                v, pending = vals[ins[0]]
                vals[n.output[0]] = (torch.clamp_min(v, 0), pending)
            elif op == "MaxPool":
                v, _ = vals[ins[0]]
                vals[n.output[0]] = (F.max_pool2d(v, a["kernel_shape"], a.get("strides")), None)
                self.alias = getattr(self, "alias", {})
                self.alias[n.output[0]] = ins[0]
            elif op == "Flatten":
                v, _ = vals[ins[0]]
                vals[n.output[0]] = (torch.flatten(v, a.get("axis", 1)), None)
                self.alias = getattr(self, "alias", {})
                self.alias[n.output[0]] = ins[0]
            else:
                raise SystemExit(f"{n.name}: operator {op} is not emulated")
        self.values = vals
        return vals[self.output][0]

    def _frac_through(self, v):
        while v not in self.fracs:
            v = self.alias[v]
        return self.fracs[v]


def accuracy(logits, labels):
    return float((logits.argmax(1) == labels).double().mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--images", default="0:1000", help="Fashion-MNIST test images A:B")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ptq_headroom"))
    import ptq
    torch.set_num_threads(1)
    _, _, xte, yte = ptq.load_data()
    a, b = (int(v) for v in args.images.split(":"))
    e = Emulator(args.model)
    for mode in ("fake", "int"):
        print(f"{mode}: top-1 {accuracy(e.logits(xte[a:b], mode), yte[a:b]):.4f}")


if __name__ == "__main__":
    main()
