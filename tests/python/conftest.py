"""Shared fixtures: the repository, the built CLI and the built Python package (build/python)."""
import os
import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("TAUVTA_BUILD_DIR", REPO / "build"))
sys.path.insert(0, str(BUILD / "python"))

FMNIST = pathlib.Path("/usr/share/datasets/fashion-mnist")
TRAIN_IMAGES = FMNIST / "train-images-idx3-ubyte.gz"
TEST_IMAGES = FMNIST / "t10k-images-idx3-ubyte.gz"
TEST_LABELS = FMNIST / "t10k-labels-idx1-ubyte.gz"
VGG7 = REPO / "models" / "vgg7_fmnist.onnx"
VGG7_INPUT = REPO / "models" / "vgg7_fmnist_input.npy"


@pytest.fixture(scope="session")
def tauvta_bin():
    return os.environ.get("TAUVTA_BIN", str(BUILD / "tauvta"))
