#!/usr/bin/python3
"""Quantization-aware fine-tuning of VGG-7 / Fashion-MNIST for one of tauvta's datapaths.

Post-training binary points leave W4A4 about 4 points below float and W2A2 at chance
(docs/precision.md, "Headroom of post-training choices"): the rounding inside the network and
the narrow logits are not something a choice of binary points can undo. This tool trains the
float weights *through* tauvta's integer scheme, so the network the accelerator runs is the one
the loss saw:

  * the forward pass is tauvta's arithmetic exactly (tools/ptq_headroom/ptq.py documents it):
    input rounded to nearest-even at its format and saturated; weights per output channel at the
    binary point the 'mse' rule picks from them (re-picked every --refit steps), round-half-even,
    saturated; biases at f_in + f_w; requantization (acc + 2^(s-1)) >> s with the clip to
    [0, qmax] after a ReLU (the whole signed range for the logits); max-pool on integers;
  * activation formats are fixed before training: the calibrated ('mse', 512 training images)
    formats of the float model, or those given with --formats-from;
  * gradients pass the roundings straight through and stop where a clip saturates, except at the
    logits, where they pass the clip too (a wrong class held at the top of the range would tie).

It writes, in --out-dir, an ONNX model whose weights and biases already lie on their grids (so
tauvta's per-channel 'max' weight rule reproduces the same integers exactly), the activation
formats as `LAYER=Qx.y` lines for `tauvta precision set`, and a JSON with the settings and the
accuracy of the integer emulation (ptq.QModel) on the held-out images [2000, 10000).
bench/precision_qat.sh compiles the result and measures it on the bit-exact simulator.

    /usr/bin/python3 tools/qat/train_qat.py --bits 4 --epochs 2 --out-dir build/qat_w4a4
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ptq_headroom"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "models"))
import ptq  # noqa: E402
from ptq import LAYERS, lin  # noqa: E402
from model_defs import VGG7  # noqa: E402
from export_util import export_onnx  # noqa: E402

# ONNX node names of the layers (torch's exporter names them after the module path), in LAYERS order.
NODE_NAMES = ["/features/features.0/Conv", "/features/features.2/Conv", "/features/features.5/Conv",
              "/features/features.7/Conv", "/features/features.10/Conv", "/features/features.12/Conv",
              "/classifier/classifier.1/Gemm", "/classifier/classifier.3/Gemm"]


def ste(exact, surrogate):
    """`exact` forward, gradient of `surrogate`."""
    return surrogate + (exact - surrogate).detach()


def fq_weight(w, fw, bits):
    """Per-output-channel fixed point, round half to even, saturated (tauvta's weight rounding)."""
    scale = (2.0 ** fw.float()).view(-1, *([1] * (w.dim() - 1)))
    lo, hi = -2.0 ** (bits - 1), 2.0 ** (bits - 1) - 1
    q = torch.clamp(torch.round(w * scale), lo, hi) / scale
    return ste(q, w)


def fq_bias(b, frac):
    scale = 2.0 ** frac.float()
    return ste(torch.round(b * scale) / scale, b)


def fq_act(x, f, lo, hi, clip_gradient=True):
    """Requantization of a real pre-activation to frac f: floor(x*2^f + 1/2), clipped to [lo, hi].
    Without clip_gradient the gradient passes the clip too: used for the logits, where a wrong
    class stuck at the top of the range must still be pushed down (or it ties with the right one,
    and a tie goes to the lower class index)."""
    s = 2.0 ** f
    surrogate = torch.clamp(x * s, lo, hi) if clip_gradient else x * s
    return ste(torch.clamp(torch.floor(x * s + 0.5), lo, hi), surrogate) / s


class QATNet(torch.nn.Module):
    def __init__(self, W, abits, wbits, fmt):
        super().__init__()
        self.abits, self.wbits, self.fmt = abits, wbits, list(fmt)
        self.w = torch.nn.ParameterList([torch.nn.Parameter(w.clone()) for w, _ in W])
        self.b = torch.nn.ParameterList([torch.nn.Parameter(b.clone()) for _, b in W])
        self.refit()

    def refit(self):
        """Weight binary points by tauvta's per-channel 'mse' rule on the current weights."""
        self.fw = [torch.tensor(ptq.weight_fracs_hist(w.detach(), self.wbits)) for w in self.w]

    def grid_params(self):
        """Weights and biases on their grids (float tensors), as exported."""
        out = []
        for i, (w, b) in enumerate(zip(self.w, self.b)):
            with torch.no_grad():
                out.append((fq_weight(w, self.fw[i], self.wbits).clone(),
                            fq_bias(b, self.fw[i] + self.fmt[i]).clone()))
        return out

    def forward(self, x):
        qlo, qhi = -2.0 ** (self.abits - 1), 2.0 ** (self.abits - 1) - 1
        x = ptq.q_rne(x, self.fmt[0], self.abits).float() * 2.0 ** -self.fmt[0]
        for i, (name, kind, relu, pool) in enumerate(LAYERS):
            w = fq_weight(self.w[i], self.fw[i], self.wbits)
            b = fq_bias(self.b[i], self.fw[i] + self.fmt[i])
            x = fq_act(lin(kind, x, w, b), self.fmt[i + 1], 0.0 if relu else qlo, qhi,
                       clip_gradient=i + 1 < len(LAYERS))
            if pool:
                x = F.max_pool2d(x, 2)
        return x


def integer_accuracy(W, fw, abits, wbits, fmt, x, y):
    """Accuracy (and top-logit ties) of ptq's integer-exact emulation with these grid weights."""
    m = ptq.QModel(W, abits, wbits, fmt, fw=[f.tolist() for f in fw])
    return ptq.evaluate(m.logits(x), y)


def read_formats(path, bits):
    """`LAYER=Qx.y` lines (as this tool writes them) -> frac list in LAYERS order (input first)."""
    fr = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, q = line.split("=")
            x, yfrac = q[1:].split(".")
            if 1 + int(x) + int(yfrac) != bits:
                raise SystemExit(f"{path}: {line}: 1 + x + y must be {bits}")
            fr[name] = int(yfrac)
    return [fr["input"]] + [fr[n] for n in NODE_NAMES]


def write_formats(path, fmt, bits, header):
    with open(path, "w") as f:
        f.write(f"# {header}\n")
        for name, frac in zip(["input"] + NODE_NAMES, fmt):
            f.write(f"{name}=Q{bits - 1 - frac}.{frac}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bits", type=int, required=True, help="activation and weight width (W4A4: 4)")
    ap.add_argument("--wbits", type=int, help="weight width if it differs from --bits")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--refit", type=int, default=100, help="re-pick the weight binary points every N steps")
    ap.add_argument("--formats-from", help="activation formats file (LAYER=Qx.y lines) instead of calibrating")
    ap.add_argument("--train-images", type=int, default=60000, help="train on images [0, N) (quick runs)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--force", action="store_true", help="replace existing output files")
    args = ap.parse_args()
    abits, wbits = args.bits, args.wbits or args.bits
    tag = f"w{wbits}a{abits}"
    names = {k: os.path.join(args.out_dir, f"vgg7_fmnist_{tag}_qat{k}") for k in [".onnx", ".formats", ".json"]}
    existing = [p for p in names.values() if os.path.exists(p)]
    if existing and not args.force:
        raise SystemExit(f"refusing to overwrite {', '.join(existing)} (use --force)")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t0 = time.time()
    log = lambda *a: print(f"[{time.time() - t0:6.0f}s]", *a, flush=True)
    xtr, ytr, xte, yte = ptq.load_data()
    xtr, ytr = xtr[:args.train_images], ytr[:args.train_images]
    xh, yh = xte[2000:], yte[2000:]  # held-out split of the C++ measurements; never used to choose
    W = ptq.load_weights()
    if args.formats_from:
        fmt = read_formats(args.formats_from, abits)
    else:
        fmt = ptq.act_formats(ptq.calib_hists(W, xtr[:512]), abits)
    log(f"{tag}: activation formats (frac bits, input first) {fmt}")
    net = QATNet(W, abits, wbits, fmt)
    base = integer_accuracy(net.grid_params(), net.fw, abits, wbits, fmt, xh, yh)
    log(f"before training: integer-exact held-out accuracy {base[0]:.4f} (top ties {base[1]:.3f})")

    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    steps_per_epoch = (len(xtr) + args.batch_size - 1) // args.batch_size
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs * steps_per_epoch)
    gen = torch.Generator().manual_seed(args.seed)
    history, step = [], 0
    acc, ties = base  # of the grid weights as they stand, updated after every epoch
    for epoch in range(args.epochs):
        perm = torch.randperm(len(xtr), generator=gen)
        loss_sum, correct, seen = 0.0, 0, 0
        for k in range(0, len(xtr), args.batch_size):
            if step % args.refit == 0:
                net.refit()
            idx = perm[k:k + args.batch_size]
            logits = net(xtr[idx])
            loss = F.cross_entropy(logits, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            loss_sum += loss.item() * len(idx)
            correct += (logits.argmax(1) == ytr[idx]).sum().item()
            seen += len(idx)
            if step % 50 == 0:
                log(f"epoch {epoch + 1}/{args.epochs} step {step % steps_per_epoch or steps_per_epoch}/"
                    f"{steps_per_epoch}: loss {loss_sum / seen:.4f}, train acc {correct / seen:.4f}")
        net.refit()
        acc, ties = integer_accuracy(net.grid_params(), net.fw, abits, wbits, fmt, xh, yh)
        history.append({"epoch": epoch + 1, "train_loss": round(loss_sum / seen, 4),
                        "train_acc": round(correct / seen, 4), "heldout_integer_acc": round(acc, 4),
                        "heldout_ties": round(ties, 4)})
        log(f"epoch {epoch + 1}: integer-exact held-out accuracy {acc:.4f} (top ties {ties:.3f})")

    grid = net.grid_params()  # the weights the last evaluation measured (no step since)
    model = VGG7(softmax=True)
    layers = [model.features[0], model.features[2], model.features[5], model.features[7],
              model.features[10], model.features[12], model.classifier[1], model.classifier[3]]
    with torch.no_grad():
        for layer, (w, b) in zip(layers, grid):
            layer.weight.copy_(w)
            layer.bias.copy_(b)
    os.makedirs(args.out_dir, exist_ok=True)
    export_onnx(model, xte[:1], names[".onnx"])
    write_formats(names[".formats"], fmt, abits,
                  f"activation formats of {os.path.basename(names['.onnx'])} (tauvta precision set LAYER=Qx.y)")
    info = {
        "model": os.path.basename(names[".onnx"]), "from": "models/vgg7_fmnist.onnx",
        "act_bits": abits, "wgt_bits": wbits, "act_formats_frac": fmt,
        "act_formats_from": args.formats_from or "calibrated, mse, training images [0, 512)",
        "weight_formats": "per output channel, tauvta's mse rule, re-picked every "
                          f"{args.refit} steps; exported on the grid (use --weight-stat max --per-channel)",
        "weight_fracs": [f.tolist() for f in net.fw],
        "heldout_images": "test [2000, 10000)",
        "heldout_integer_acc_before": round(base[0], 4), "heldout_integer_acc": round(acc, 4),
        "heldout_ties": round(ties, 4), "history": history,
        "train_images": len(xtr), "epochs": args.epochs, "lr": args.lr, "batch_size": args.batch_size, "seed": args.seed,
        "train_seconds": round(time.time() - t0), "torch": torch.__version__, "numpy": np.__version__,
        "command": " ".join(["/usr/bin/python3", "tools/qat/train_qat.py"] +
                            [a for a in sys.argv[1:] if a != "--force"]),
    }
    with open(names[".json"], "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    log(f"integer-exact held-out accuracy {acc:.4f}; wrote {', '.join(names.values())}")


if __name__ == "__main__":
    main()
