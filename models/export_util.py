"""ONNX export and .npy writing shared by make_models.py and train_vgg7.py."""
import warnings

import numpy as np
import onnx
import torch


def export_onnx(model, sample, path, dynamic_batch=False, opset=13):
    """Exports `model` (in eval mode) with one input "input" and one output "output".

    TrainingMode.PRESERVE on an eval-mode model keeps BatchNormalization nodes (inference form)
    instead of letting the exporter fold them into the convolutions, so the importer's own
    batch-norm folding is exercised. Constant folding stays on.
    """
    model.eval()
    dynamic_axes = {"input": {0: "batch"}, "output": {0: "batch"}} if dynamic_batch else None
    with warnings.catch_warnings():
        # The exporter warns about constant folding with PRESERVE even for an eval-mode model.
        warnings.filterwarnings("ignore", message="It is recommended that constant folding be turned off")
        torch.onnx.export(model, sample, path, opset_version=opset, input_names=["input"],
                          output_names=["output"], dynamic_axes=dynamic_axes, do_constant_folding=True,
                          training=torch.onnx.TrainingMode.PRESERVE)
    onnx.checker.check_model(onnx.load(path))


def save_npy(path, array):
    np.save(path, np.ascontiguousarray(array, dtype=np.float32))
