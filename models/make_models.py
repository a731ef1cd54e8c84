#!/usr/bin/python3
"""Exports the test models to ONNX, each with a sample input and torch's output for it.

    /usr/bin/python3 models/make_models.py [--out-dir build/models] [--models a,b,...]
                                           [--dynamic-batch] [--force]

Models (random initialization: nothing can be downloaded; fixed seeds, so reruns give the same
weights with the same torch):
  resnet18         torchvision ResNet-18, input [1,3,224,224], output [1,1000]
  mobilenetv2      torchvision MobileNetV2, input [1,3,224,224], output [1,1000]
  dcgan_generator  the classic DCGAN generator (nz=100, ngf=64), input [1,100,1,1], output [1,3,64,64]
  vgg7             VGG-7 of the OTune paper, 28x28 grey input, untrained (the trained one is
                   models/vgg7_fmnist.onnx, made by train_vgg7.py), input [1,1,28,28], output [1,10]

For each model NAME it writes NAME.onnx (opset 13, input "input", output "output"),
NAME_input.npy, NAME_output.npy (torch's output, model.eval()) and NAME.json (what was made and
how). A model whose four files exist is skipped unless --force. With --dynamic-batch the batch
dimension is symbolic, files are named NAME_dynbatch*, and the sample input has batch 2.

Batch-norm layers get realistic statistics before export: their running mean and variance are
accumulated over a few random batches in training mode (otherwise they would stay 0 and 1 and
batch-norm folding would be trivially exact). The exporter keeps BatchNormalization nodes.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = ["resnet18", "mobilenetv2", "dcgan_generator", "vgg7"]
SEEDS = {"resnet18": 1, "mobilenetv2": 2, "dcgan_generator": 3, "vgg7": 4}


def build(name, torch, torchvision):
    sys.path.insert(0, HERE)
    from model_defs import DCGANGenerator, VGG7
    if name == "resnet18":
        return torchvision.models.resnet18(weights=None), (3, 224, 224), "randn"
    if name == "mobilenetv2":
        return torchvision.models.mobilenet_v2(weights=None), (3, 224, 224), "randn"
    if name == "dcgan_generator":
        return DCGANGenerator(nz=100, ngf=64, nc=3), (100, 1, 1), "randn"
    if name == "vgg7":
        return VGG7(softmax=True), (1, 28, 28), "rand"
    raise SystemExit(f"unknown model '{name}' (known: {', '.join(MODELS)})")


def sample(torch, kind, shape, gen):
    return torch.randn(shape, generator=gen) if kind == "randn" else torch.rand(shape, generator=gen)


def calibrate_batch_norm(torch, model, kind, chw, gen, batches=4, batch=8):
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return 0
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative average over the calibration batches
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(sample(torch, kind, (batch,) + chw, gen))
    for m in bns:
        m.momentum = 0.1
    return len(bns)


def make(name, out_dir, dynamic_batch, torch, torchvision, np):
    from export_util import export_onnx, save_npy
    import onnx
    stem = name + ("_dynbatch" if dynamic_batch else "")
    t0 = time.time()
    torch.manual_seed(SEEDS[name])
    gen = torch.Generator().manual_seed(1000 + SEEDS[name])
    model, chw, kind = build(name, torch, torchvision)
    n_bn = calibrate_batch_norm(torch, model, kind, chw, gen)
    model.eval()
    x = sample(torch, kind, ((2 if dynamic_batch else 1),) + chw, gen)
    with torch.no_grad():
        y = model(x)

    # Write under temporary names and rename at the end, so an interrupted run leaves nothing
    # that a later run would mistake for a finished model.
    final = {k: os.path.join(out_dir, stem + k) for k in [".onnx", "_input.npy", "_output.npy", ".json"]}
    tmp = {k: os.path.join(out_dir, f".tmp-{os.getpid()}-{stem}{k}") for k in final}
    export_onnx(model, x, tmp[".onnx"], dynamic_batch=dynamic_batch)
    save_npy(tmp["_input.npy"], x.numpy())
    save_npy(tmp["_output.npy"], y.numpy())
    ops = {}
    for node in onnx.load(tmp[".onnx"]).graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    info = {
        "model": stem + ".onnx",
        "params": sum(p.numel() for p in model.parameters()),
        "onnx_bytes": os.path.getsize(tmp[".onnx"]),
        "input_shape": list(x.shape), "output_shape": list(y.shape),
        "operators": dict(sorted(ops.items())),
        "weights": f"random init, torch.manual_seed({SEEDS[name]})",
        "batch_norm_layers_calibrated": n_bn,
        "input": f"torch.{kind} with generator seed {1000 + SEEDS[name]}",
        "opset": 13, "dynamic_batch": dynamic_batch,
        "torch": torch.__version__, "torchvision": torchvision.__version__, "numpy": np.__version__,
    }
    with open(tmp[".json"], "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    for k in final:
        os.replace(tmp[k], final[k])
    print(f"{stem}: {info['params']} parameters, {info['onnx_bytes'] / 1e6:.1f} MB, "
          f"{time.time() - t0:.1f} s -> {final['.onnx']}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "build", "models"))
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of " + ",".join(MODELS))
    ap.add_argument("--dynamic-batch", action="store_true", help="symbolic batch dimension")
    ap.add_argument("--force", action="store_true", help="regenerate models that already exist")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    names = [m for m in args.models.split(",") if m]
    for m in names:
        if m not in MODELS:
            raise SystemExit(f"unknown model '{m}' (known: {', '.join(MODELS)})")
    suffix = "_dynbatch" if args.dynamic_batch else ""
    todo = [m for m in names if args.force or not all(
        os.path.exists(os.path.join(args.out_dir, m + suffix + k))
        for k in [".onnx", "_input.npy", "_output.npy", ".json"])]
    for m in names:
        if m not in todo:
            print(f"{m + suffix}: present in {args.out_dir}, skipped")
    if not todo:
        return
    os.makedirs(args.out_dir, exist_ok=True)

    import numpy as np  # torch takes seconds to import: only when there is work
    import torch
    import torchvision
    torch.set_num_threads(args.threads)
    sys.path.insert(0, HERE)
    for m in todo:
        make(m, args.out_dir, args.dynamic_batch, torch, torchvision, np)


if __name__ == "__main__":
    main()
