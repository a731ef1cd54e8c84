#!/usr/bin/python3
"""End to end: the committed QDQ W4A4 VGG-7 (tools/qat/qdq_finetune.py) imported by tauvta gives,
on a few Fashion-MNIST test images, integer outputs equal to an exact integer emulation written
from docs/quantization.md (tools/qat/qdq_emulate.py, mode "int"), the float reference equals
ONNX's fake-quantized semantics (mode "fake"), and the two references agree exactly.

    /usr/bin/python3 tests/quant/qdq_model_check.py build/tauvta
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "qat"))
sys.path.insert(0, os.path.join(ROOT, "tools", "ptq_headroom"))
import qdq_emulate  # noqa: E402
import ptq  # noqa: E402

MODEL = os.path.join(ROOT, "models", "vgg7_fmnist_w4a4_qdq.onnx")
CONFIG = os.path.join(ROOT, "configs", "pynq_w4a4.json")


def tauvta_outputs(tauvta, x, mode, out_dir):
    path = os.path.join(out_dir, "x.npy")
    np.save(path, x)
    args = [tauvta, "run", MODEL, "--input", f"input={path}", "--output-dir", out_dir, "--force"]
    args += ["--int", "--config", CONFIG] if mode == "int" else ["--float"]
    subprocess.run(args, check=True, capture_output=True)
    return np.load(os.path.join(out_dir, "output.npy")).astype(np.float64)


def main():
    tauvta = sys.argv[1]
    torch.set_num_threads(1)
    _, _, xte, _ = ptq.load_data()
    x = xte[:16].numpy()
    e = qdq_emulate.Emulator(MODEL)
    outs = {}
    with tempfile.TemporaryDirectory() as d:
        for mode in ("int", "fake"):
            want = e.logits(torch.from_numpy(x), mode).numpy()
            got = tauvta_outputs(tauvta, x, mode, d)
            if mode == "fake":  # float32 arithmetic: equal up to float rounding of the logits
                ok = np.allclose(got, want, atol=1e-5)
            else:
                ok = np.array_equal(got, want)
            print(f"{mode}: {'equal' if ok else 'DIFFERENT'} on {len(x)} images "
                  f"(logit levels {np.unique(want).size})")
            if not ok:
                print("tauvta:\n", got[:4], "\nemulation:\n", want[:4])
                sys.exit(1)
            outs[mode] = got
    # The exported biases carry a quarter of the accumulator's step (tools/qat/pow2_qdq.py,
    # snap_biases), so the file's half-to-even semantics equals the datapath's half up exactly.
    if not np.array_equal(outs["int"], outs["fake"]):
        print("the float reference differs from the integer reference")
        sys.exit(1)
    print("float reference == integer reference")


if __name__ == "__main__":
    main()
