#!/usr/bin/env python3
"""The bit-exact simulator against PyTorch fp32 on the same machine, in the same run.

  * ResNet-18 (224x224, batch 1) on the accelerator (tauvta.Network.run: every layer simulated
    bit for bit, CPU layers and transfers included) against torchvision's ResNet-18 forward in
    fp32, both on one thread, in interleaved rounds (the machine is shared: the ratio of the two
    medians is the figure). The accelerator's outputs are checked equal to the integer reference
    once.
  * VGG-7 top-1 accuracy over Fashion-MNIST's 10,000 test images through the accelerator
    (`tauvta run MODEL --images --labels`, one simulated board per core; with and without the
    per-image integer-reference check) against the same images through PyTorch fp32 on the same
    cores, batches of 100: images per second, and their ratio.

The PyTorch modules have the models' architectures (torchvision's ResNet-18, models/model_defs.py's
VGG-7) with their own initial weights: the cost of a forward pass does not depend on the values.

    PYTHONPATH=build/python /usr/bin/python3 bench/functional_speed.py [--rounds 7] [--images 10000]
        [--skip-vgg7] [--json out.json]
"""
import argparse
import gzip
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "build" / "python"))
sys.path.insert(0, str(REPO / "models"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import tauvta  # noqa: E402

FMNIST = pathlib.Path("/usr/share/datasets/fashion-mnist")


def resnet18(rounds):
    import torchvision

    model = REPO / "build" / "models" / "resnet18.onnx"
    sample = REPO / "build" / "models" / "resnet18_input.npy"
    if not model.exists():
        sys.exit(f"{model} is missing: run scripts/make-models first")
    x = np.load(sample)
    net = tauvta.compile(str(model), config=tauvta.HwConfig(), calibrate=str(sample))
    outputs, _ = net.run(x)
    reference = net.run_int(x)
    exact = all(np.array_equal(outputs[k], reference[k]) for k in reference)

    torch.set_num_threads(1)
    tm = torchvision.models.resnet18().eval()
    tx = torch.from_numpy(x.astype(np.float32))
    ours, theirs = [], []
    with torch.no_grad():
        tm(tx)  # warm-up
        for r in range(rounds):
            t0 = time.perf_counter()
            net.run(x)
            ours.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            tm(tx)
            theirs.append(time.perf_counter() - t0)
            print(f"  round {r + 1}/{rounds}: accelerator {ours[-1] * 1e3:.1f} ms, "
                  f"PyTorch fp32 {theirs[-1] * 1e3:.1f} ms", file=sys.stderr)
    a, b = statistics.median(ours), statistics.median(theirs)
    return {"bit_exact": exact, "accelerator_ms": a * 1e3, "pytorch_fp32_ms": b * 1e3, "ratio": a / b,
            "accelerator_best_ms": min(ours) * 1e3, "pytorch_fp32_best_ms": min(theirs) * 1e3, "rounds": rounds}


def read_idx_images(path, limit):
    with gzip.open(path) as f:
        data = f.read()
    n = min(int.from_bytes(data[4:8], "big"), limit)
    return np.frombuffer(data, np.uint8, count=n * 28 * 28, offset=16).reshape(n, 1, 28, 28).astype(np.float32) / 255


def vgg7(images, tauvta_cli):
    from model_defs import VGG7

    imgs, labels = FMNIST / "t10k-images-idx3-ubyte.gz", FMNIST / "t10k-labels-idx1-ubyte.gz"
    train = FMNIST / "train-images-idx3-ubyte.gz"
    out = {}
    with tempfile.TemporaryDirectory() as d:
        artifact = pathlib.Path(d) / "vgg7.tauvta"
        subprocess.run([tauvta_cli, "compile", str(REPO / "models" / "vgg7_fmnist.onnx"), "--calibrate", str(train),
                        "-o", str(artifact)], check=True, capture_output=True)
        for label, extra in (("checked", []), ("unchecked", ["--no-check"])):
            report = pathlib.Path(d) / f"{label}.json"
            subprocess.run([tauvta_cli, "run", str(artifact), "--images", str(imgs), "--labels", str(labels),
                            "--limit", str(images), "-q", "--report", str(report)] + extra,
                           check=True, capture_output=True)
            acc = json.loads(report.read_text())["accuracy"]
            out[f"accelerator_{label}"] = {"images_per_second": acc["images"] / acc["seconds"],
                                           "top1": acc["accelerator"], "boards": acc.get("boards")}
    torch.set_num_threads(os.cpu_count())
    x = read_idx_images(imgs, images)
    tm = VGG7().eval()
    with torch.no_grad():
        tm(torch.from_numpy(x[:100]))  # warm-up
        t0 = time.perf_counter()
        for i in range(0, len(x), 100):
            tm(torch.from_numpy(x[i:i + 100]))
        seconds = time.perf_counter() - t0
    out["pytorch_fp32"] = {"images_per_second": len(x) / seconds, "threads": torch.get_num_threads()}
    for label in ("checked", "unchecked"):
        out[f"ratio_{label}"] = out[f"accelerator_{label}"]["images_per_second"] / out["pytorch_fp32"]["images_per_second"]
    out["images"] = int(len(x))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--images", type=int, default=10000)
    ap.add_argument("--skip-vgg7", action="store_true")
    ap.add_argument("--tauvta", default=str(REPO / "build" / "tauvta"))
    ap.add_argument("--json")
    args = ap.parse_args()
    result = {"resnet18": resnet18(args.rounds)}
    r = result["resnet18"]
    print(f"ResNet-18, one thread: accelerator (bit-exact {'yes' if r['bit_exact'] else 'NO'}) "
          f"{r['accelerator_ms']:.1f} ms, PyTorch fp32 {r['pytorch_fp32_ms']:.1f} ms (medians of {r['rounds']}): "
          f"ratio {r['ratio']:.2f}")
    if not args.skip_vgg7:
        result["vgg7"] = v = vgg7(args.images, args.tauvta)
        print(f"VGG-7 over {v['images']} Fashion-MNIST images, {os.cpu_count()} cores: PyTorch fp32 "
              f"{v['pytorch_fp32']['images_per_second']:.0f} images/s; accelerator "
              f"{v['accelerator_checked']['images_per_second']:.0f} images/s with the integer-reference check "
              f"(ratio {v['ratio_checked']:.2f}), {v['accelerator_unchecked']['images_per_second']:.0f} without "
              f"(ratio {v['ratio_unchecked']:.2f}); top-1 {v['accelerator_checked']['top1']:.4f}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if r["bit_exact"] else 1


if __name__ == "__main__":
    sys.exit(main())
