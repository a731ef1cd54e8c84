#!/usr/bin/python3
"""Trains VGG-7 (model_defs.VGG7, the OTune layer table with a 28x28 grey input) on
Fashion-MNIST and exports it to ONNX with its float test accuracy.

    /usr/bin/python3 models/train_vgg7.py [--epochs 3] [--seed 0] [--out-dir models] [--force]

Reads the IDX files of Debian's dataset-fashion-mnist (gzip, via numpy). Inputs are float32
NCHW [N, 1, 28, 28] with pixel / 255 (no mean or scale normalization); the exported model ends
in Softmax, so its output is [N, 10] class probabilities. Writes, in --out-dir:
  vgg7_fmnist.onnx         opset 13, batch 1, input "input", output "output"
  vgg7_fmnist_input.npy    a test image, preprocessed, [1, 1, 28, 28]: of the first 1000, the one
                           the model is least sure about (so the output is no near-one-hot vector)
  vgg7_fmnist_output.npy   torch's output for it, [1, 10]
  vgg7_fmnist.json         float test accuracy, epochs, seed, versions, training time
"""
import argparse
import gzip
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_defs import VGG7  # noqa: E402
from export_util import export_onnx, save_npy  # noqa: E402

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path, magic, ndims):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    got = int.from_bytes(raw[:4], "big")
    if got != magic:
        raise SystemExit(f"{path}: bad IDX magic 0x{got:08X}, expected 0x{magic:08X}")
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndims)]
    data = np.frombuffer(raw, np.uint8, offset=4 + 4 * ndims)
    if data.size != int(np.prod(dims)):
        raise SystemExit(f"{path}: {data.size} data bytes, shape {dims} needs {int(np.prod(dims))}")
    return data.reshape(dims)


def load(split):
    images = read_idx(f"{DATA}/{split}-images-idx3-ubyte.gz", 0x803, 3)
    labels = read_idx(f"{DATA}/{split}-labels-idx1-ubyte.gz", 0x801, 1)
    x = torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1)
    return x, torch.from_numpy(labels.astype(np.int64))


def accuracy(model, x, y):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), 1000):
            correct += (model.logits(x[i:i + 1000]).argmax(1) == y[i:i + 1000]).sum().item()
    return correct / len(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out-dir", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--force", action="store_true", help="replace existing output files")
    args = ap.parse_args()

    names = {k: os.path.join(args.out_dir, f"vgg7_fmnist{k}") for k in
             [".onnx", "_input.npy", "_output.npy", ".json"]}
    existing = [p for p in names.values() if os.path.exists(p)]
    if existing and not args.force:
        raise SystemExit(f"refusing to overwrite {', '.join(existing)} (use --force)")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    x_train, y_train = load("train")
    x_test, y_test = load("t10k")

    model = VGG7(softmax=True)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    steps_per_epoch = (len(x_train) + args.batch_size - 1) // args.batch_size
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs * steps_per_epoch)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(args.seed)
    t_start = time.time()
    for epoch in range(args.epochs):
        model.train()
        t0 = time.time()
        perm = torch.randperm(len(x_train), generator=gen)
        total, correct, loss_sum = 0, 0, 0.0
        for i in range(0, len(x_train), args.batch_size):
            idx = perm[i:i + args.batch_size]
            xb, yb = x_train[idx], y_train[idx]
            logits = model.logits(xb)
            loss = loss_fn(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            loss_sum += loss.item() * len(idx)
            correct += (logits.argmax(1) == yb).sum().item()
            total += len(idx)
        test_acc = accuracy(model, x_test, y_test)
        print(f"epoch {epoch + 1}/{args.epochs}: loss {loss_sum / total:.4f}, train acc {correct / total:.4f}, "
              f"test acc {test_acc:.4f}, {time.time() - t0:.0f} s", flush=True)
    train_seconds = time.time() - t_start

    model.eval()
    test_acc = accuracy(model, x_test, y_test)
    with torch.no_grad():
        pick = int(model(x_test[:1000]).max(1).values.argmin())
        sample = x_test[pick:pick + 1].clone()
        out = model(sample)
    os.makedirs(args.out_dir, exist_ok=True)
    export_onnx(model, sample, names[".onnx"], dynamic_batch=False)
    save_npy(names["_input.npy"], sample.numpy())
    save_npy(names["_output.npy"], out.numpy())
    info = {
        "model": "vgg7_fmnist.onnx",
        "architecture": "VGG-7 (OTune Table 1) with a 28x28x1 input: conv3x3 32,32 / pool / 64,64 / pool / "
                        "128,128 / pool / dense 128 / dense 10 / softmax",
        "dataset": "Fashion-MNIST (Debian dataset-fashion-mnist)",
        "preprocess": "float32 NCHW [N,1,28,28], pixel / 255",
        "input": "input", "output": "output (softmax probabilities, [N,10])",
        "float_test_accuracy": round(test_acc, 4),
        "test_images": len(x_test),
        "sample_input": f"test image {pick} (label {int(y_test[pick])})",
        "epochs": args.epochs, "seed": args.seed, "batch_size": args.batch_size,
        "optimizer": f"Adam lr {args.lr}, cosine annealing to 0", "threads": args.threads,
        "train_seconds": round(train_seconds),
        "torch": torch.__version__, "numpy": np.__version__,
        "command": " ".join(["/usr/bin/python3", "models/train_vgg7.py"] + [a for a in sys.argv[1:] if a != "--force"]),
    }
    with open(names[".json"], "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    print(f"float test accuracy {test_acc:.4f}; wrote {', '.join(names.values())}")


if __name__ == "__main__":
    main()
