"""tauvta from Python: a VTA-compatible tensor accelerator toolkit.

    import numpy as np, tauvta
    net = tauvta.compile("models/vgg7_fmnist.onnx", config=tauvta.HwConfig(),
                         calibrate="/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")
    outputs, report = net.run({"input": np.load("models/vgg7_fmnist_input.npy")})
    report["total"]["cycles"], net.time()["total"]["gops"]

Every call returns plain Python data (dicts, lists, NumPy arrays): the JSON report the matching
`tauvta` command writes. Errors raise tauvta.Error with the command line's one-line message.
Long calls release the GIL; tune, compile and precision_tune take a progress(line) callback.
"""

from ._tauvta import (  # noqa: F401  (the extension built by CMake into this package)
    Error,
    HwConfig,
    Network,
    __version__,
    compile,
    dse,
    load,
    op,
    op_log,
    precision_set,
    precision_show,
    precision_tune,
    resources,
    tune,
)

__all__ = [
    "Error", "HwConfig", "Network", "compile", "load", "op", "op_log", "tune", "precision_show",
    "precision_set", "precision_tune", "dse", "resources", "__version__",
]
