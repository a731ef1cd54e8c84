#!/usr/bin/python3
"""Fine-tunes a model with power-of-two fake quantization and exports it as ONNX QDQ.

The model is any torchvision-style nn.Module (--arch MODULE:CALLABLE, e.g. model_defs:VGG7 or
torchvision.models:resnet18), its weights loaded from an ONNX file's initializers (torch's export
names them after the state_dict) or a state_dict (.pt). tools/qat/pow2_qdq.py rewrites it (input,
ReLU outputs and logits quantized at --bits, Conv/Linear weights per channel at --wbits),
calibrates the activation binary points on 512 training images, fine-tunes --steps steps, and
exports QuantizeLinear -> Clip -> DequantizeLinear. It also writes a .json with how the model was
made and the fake-quantized model's top-1 on the chosen test images (what tauvta's integer
accuracy is compared with: bench/qdq_accuracy.sh).

    /usr/bin/python3 tools/qat/qdq_finetune.py --init models/vgg7_fmnist_w4a4_qat.onnx --bits 4 \
        --steps 300 --out models/vgg7_fmnist_w4a4_qdq.onnx
"""
import argparse
import importlib
import json
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "models"))
sys.path.insert(0, os.path.join(HERE, "..", "ptq_headroom"))
import pow2_qdq  # noqa: E402


def load_weights(model, path):
    if path.endswith(".onnx"):
        inits = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in onnx.load(path).graph.initializer}
        state = model.state_dict()
        missing = [k for k in state if k not in inits]
        if missing:
            raise SystemExit(f"{path}: no initializer for {', '.join(missing[:5])}")
        model.load_state_dict({k: inits[k] for k in state})
    else:
        model.load_state_dict(torch.load(path))


def read_formats(path):
    """frac bits of the `LAYER=Qx.y` lines of `path`, in order."""
    fr = []
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                fr.append(int(line.split("=")[1].split(".")[1]))
    return fr


@torch.no_grad()
def accuracy(qmodel, x, y, batch=500):
    qmodel.eval()
    correct = 0
    for k in range(0, len(x), batch):
        correct += (qmodel(x[k:k + batch]).argmax(1) == y[k:k + batch]).sum().item()
    return correct / len(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", default="model_defs:VGG7", help="MODULE:CALLABLE building the float model")
    ap.add_argument("--arch-kwargs", default='{"softmax": false}', help="JSON keyword arguments of CALLABLE")
    ap.add_argument("--init", required=True, help="weights: an .onnx (initializers) or a state_dict .pt")
    ap.add_argument("--bits", type=int, required=True, help="activation width")
    ap.add_argument("--wbits", type=int, help="weight width (default --bits)")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--refit", type=int, default=100, help="re-pick weight binary points every N steps")
    ap.add_argument("--test-images", default="0:1000", help="test split A:B the .json reports accuracy on")
    ap.add_argument("--formats-from", help="activation formats (LAYER=Qx.y lines, e.g. a tauvta .formats file), one "
                    "per quantizer in forward order (input first, logits last), instead of calibrating")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True, help="output .onnx (a .json is written beside it)")
    args = ap.parse_args()
    wbits = args.wbits or args.bits
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t0 = time.time()

    import ptq  # Fashion-MNIST loading (pixels / 255, NCHW)
    xtr, ytr, xte, yte = ptq.load_data()
    mod, fn = args.arch.split(":")
    model = getattr(importlib.import_module(mod), fn)(**json.loads(args.arch_kwargs))
    load_weights(model, args.init)
    q = pow2_qdq.quantize_model(model, args.bits, wbits)
    q.eval()
    if args.formats_from:
        pow2_qdq.set_act_formats(q, read_formats(args.formats_from))
    else:
        pow2_qdq.calibrate(q, [xtr[k:k + 128] for k in range(0, 512, 128)])
    pow2_qdq.trace_inputs(q, xtr[:2])
    a, b = (int(v) for v in args.test_images.split(":"))
    before = accuracy(q, xte[a:b], yte[a:b])
    print(f"calibrated: formats {pow2_qdq.act_formats(q)}, fake-quant top-1 {before:.4f}", flush=True)

    opt = torch.optim.Adam(q.parameters(), lr=args.lr)
    gen = torch.Generator().manual_seed(args.seed)
    for step in range(args.steps):
        if step % args.refit == 0:
            pow2_qdq.refit_weights(q)
        q.train()
        idx = torch.randint(0, len(xtr), (args.batch_size,), generator=gen)
        loss = F.cross_entropy(q(xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (step + 1) % 50 == 0:
            print(f"step {step + 1}/{args.steps}: loss {loss.item():.4f} [{time.time() - t0:.0f}s]", flush=True)
    pow2_qdq.refit_weights(q)
    after = accuracy(q, xte[a:b], yte[a:b])
    print(f"fine-tuned: fake-quant top-1 {after:.4f}", flush=True)

    q.eval()
    pow2_qdq.snap_biases(q)
    assert accuracy(q, xte[a:b], yte[a:b]) == after
    torch.onnx.export(q, xte[:1], args.out, opset_version=13, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}}, do_constant_folding=True)
    onnx.checker.check_model(onnx.load(args.out))
    info = {
        "model": os.path.basename(args.out), "arch": args.arch, "arch_kwargs": json.loads(args.arch_kwargs),
        "init": args.init, "act_bits": args.bits, "wgt_bits": wbits,
        "act_formats_frac": pow2_qdq.act_formats(q),
        "act_formats_from": args.formats_from or "calibrated: MSE rule, training images [0, 512)",
        "quantizers": "input and logits signed; after each ReLU [0, 2^(bits-1)-1]; weights per output channel, "
                      "MSE rule, half to even; input half to even; layer outputs half up (the accelerator's "
                      "requantization); biases on the grid f_in + f_w (exported plus a quarter step: ties round up under QuantizeLinear too); exported QuantizeLinear -> Clip -> "
                      "DequantizeLinear, scale 2^-f, zero point 0",
        "steps": args.steps, "lr": args.lr, "batch_size": args.batch_size, "refit": args.refit, "seed": args.seed,
        "test_images": args.test_images, "fake_quant_top1_before": before, "fake_quant_top1": after,
        "seconds": round(time.time() - t0), "torch": torch.__version__, "numpy": np.__version__,
        "command": " ".join(["/usr/bin/python3", "tools/qat/qdq_finetune.py"] + sys.argv[1:]),
    }
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
