"""`import tauvta`: configs, compile/run/time/references/artifacts, the tools, and errors, each
checked against the command line (same bytes, same figures, same one-line errors)."""
import json
import subprocess
import threading

import numpy as np
import pytest

import tauvta
from conftest import REPO, TEST_IMAGES, TEST_LABELS, TRAIN_IMAGES, VGG7, VGG7_INPUT


def cli(tauvta_bin, *args, check=True):
    r = subprocess.run([tauvta_bin, *map(str, args)], capture_output=True, text=True, cwd=REPO)
    if check and r.returncode != 0:
        raise AssertionError(f"tauvta {' '.join(map(str, args))} failed: {r.stderr}")
    return r


@pytest.fixture(scope="module")
def vgg7():
    return tauvta.compile(str(VGG7), calibrate=str(TRAIN_IMAGES), calib_samples=64)


# ---------------------------------------------------------------------------------------------
# HwConfig


def test_config_default_and_derived():
    c = tauvta.HwConfig()
    assert c.name == "1x16_i8w8a32_15_15_18_17"
    d = c.derived
    assert (d["batch"], d["block_in"], d["block_out"], d["inp_width"]) == (1, 16, 16, 8)
    assert d["macs_per_cycle"] == 256
    assert c.peak_gops == pytest.approx(2 * 256 * c.to_dict()["TIMING"]["CLOCK_MHZ"] / 1000)


def test_config_keywords_match_names_and_files(tmp_path):
    c = tauvta.HwConfig(LOG_BLOCK=5, log_inp_width=2, TIMING={"CLOCK_MHZ": 200})
    assert c.derived["block_in"] == 32 and c.derived["inp_width"] == 4
    assert c.to_dict()["TIMING"]["CLOCK_MHZ"] == 200
    assert tauvta.HwConfig.from_name("1x32_i4w8a32_15_15_18_17") == tauvta.HwConfig(LOG_BLOCK=5, LOG_INP_WIDTH=2)
    path = tmp_path / "c.json"
    c.save(str(path))
    assert tauvta.HwConfig.load(str(path)) == c
    assert tauvta.HwConfig.from_dict(json.loads(path.read_text())) == c
    with pytest.raises(tauvta.Error, match="exists"):
        c.save(str(path))
    c.save(str(path), force=True)


def test_config_sections_take_keys_in_any_case_and_derive_timing():
    # docs/python.md: keys are case-insensitive, in TIMING and IMPLEMENTATION too.
    c = tauvta.HwConfig(timing={"clock_mhz": 200}, implementation={"acc_read_ports": 2, "alu_mul": True})
    d = c.to_dict()
    assert d["TIMING"]["CLOCK_MHZ"] == 200
    assert d["IMPLEMENTATION"]["ACC_READ_PORTS"] == 2 and d["IMPLEMENTATION"]["ALU_MUL"] is True
    assert d["TIMING"]["ALU_II"] == 1  # two ACC read ports issue an ALU micro-op every cycle
    assert tauvta.HwConfig().to_dict()["IMPLEMENTATION"]["ALU_MUL"] is False  # VTA's own build
    # The implementation options reach resources() as they reach `hw resources`.
    lut = tauvta.resources(tauvta.HwConfig(), device="pynq-z1", binding="lut")["estimates"][0]
    dsp = tauvta.resources(tauvta.HwConfig(), device="pynq-z1")["estimates"][0]
    assert lut["options"]["binding"] == "lut" and lut["total"]["DSP"] < dsp["total"]["DSP"]
    assert dsp["feasible"] is True


def test_config_errors_name_the_field(tauvta_bin, tmp_path):
    with pytest.raises(tauvta.Error, match="LOG_INP_WIDTH"):
        tauvta.HwConfig(LOG_INP_WIDTH=9)
    with pytest.raises(tauvta.Error, match="NOT_A_KEY"):
        tauvta.HwConfig(NOT_A_KEY=1)
    # The same file, the same message as `tauvta config show`.
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**tauvta.HwConfig().to_dict(), "LOG_ACC_WIDTH": 99}))
    with pytest.raises(tauvta.Error) as e:
        tauvta.HwConfig.load(str(bad))
    r = cli(tauvta_bin, "config", "show", bad, check=False)
    assert r.returncode == 1
    assert r.stderr.strip() == f"tauvta: error: {e.value}"


# ---------------------------------------------------------------------------------------------
# Networks


def test_vgg7_outputs_equal_cli_byte_for_byte(vgg7, tauvta_bin, tmp_path):
    outputs, report = vgg7.run({"input": np.load(VGG7_INPUT)})
    cli(tauvta_bin, "run", VGG7, "--input", VGG7_INPUT, "--calibrate", TRAIN_IMAGES, "--calib-samples", 64,
        "--output-dir", tmp_path / "out", "--report", tmp_path / "r.json", "-q")
    assert set(outputs) == set(vgg7.outputs)
    for name, got in outputs.items():
        want = np.load(tmp_path / "out" / f"{name}.npy")
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
    cli_report = json.loads((tmp_path / "r.json").read_text())
    assert report["total"]["cycles"] == cli_report["total"]["cycles"]
    assert [l["cycles"] for l in report["layers"]] == [l["cycles"] for l in cli_report["layers"]]
    assert report["config"] == cli_report["config"] == vgg7.config.to_dict()


def test_references_and_timing(vgg7):
    x = np.load(VGG7_INPUT)
    outputs, report = vgg7.run(x)  # one array for a one-input model
    ints = vgg7.run_int({"input": x})
    for name in outputs:
        assert np.array_equal(outputs[name], ints[name])  # the accelerator is the integer reference
    floats = vgg7.run_float({"input": x})
    name = vgg7.outputs[0]
    assert floats[name].dtype == np.float32 and floats[name].shape == outputs[name].shape
    a, b = floats[name].ravel().astype(np.float64), outputs[name].ravel().astype(np.float64)
    assert a @ b / np.sqrt((a @ a) * (b @ b)) > 0.98  # int8 against float: close, not equal
    timed = vgg7.time()
    assert timed["total"]["timing_only"] is True
    assert timed["total"]["cycles"] == report["total"]["cycles"]


def test_run_on_the_rtl(vgg7):
    x = np.load(VGG7_INPUT)
    outputs, _ = vgg7.run(x)
    on_rtl, report = vgg7.run(x, rtl=True)  # every program on the generated accelerator, bit-exact
    for name in outputs:
        assert on_rtl[name].tobytes() == outputs[name].tobytes()
    layers = report["rtl"]["layers"]
    assert layers and all(l["rtl_cycles"] > 0 for l in layers)
    assert report["rtl"]["median_abs_error"] <= 0.02
    placement = vgg7.placement
    assert sum(p["placement"] == "vta" for p in placement) >= 5
    assert all("reason" in p for p in placement)


def test_outputs_cross_without_copy(vgg7):
    outputs, _ = vgg7.run(np.load(VGG7_INPUT))
    out = next(iter(outputs.values()))
    assert not out.flags.owndata and out.base is not None  # the array owns the tensor's buffer


def test_strided_and_other_dtype_inputs_are_accepted(vgg7):
    x = np.load(VGG7_INPUT)
    want, _ = vgg7.run(x)
    fortran = np.asfortranarray(x.astype(np.float64))  # another layout and dtype: cast like the CLI
    got, _ = vgg7.run(fortran)
    for name in want:
        assert got[name].tobytes() == want[name].tobytes()


def test_artifact_round_trip(vgg7, tauvta_bin, tmp_path):
    path = tmp_path / "vgg7.tauvta"
    vgg7.save(str(path))
    with pytest.raises(tauvta.Error, match="exists"):
        vgg7.save(str(path))
    loaded = tauvta.load(str(path))
    assert loaded.config == vgg7.config and loaded.batch == vgg7.batch
    x = np.load(VGG7_INPUT)
    a, _ = vgg7.run(x)
    b, _ = loaded.run(x)
    cli(tauvta_bin, "run", path, "--input", VGG7_INPUT, "--output-dir", tmp_path / "out", "-q")
    for name in a:
        assert a[name].tobytes() == b[name].tobytes()
        assert np.load(tmp_path / "out" / f"{name}.npy").tobytes() == a[name].tobytes()
    with pytest.raises(tauvta.Error, match="float graph"):
        loaded.run_float(x)
    with pytest.raises(tauvta.Error, match="compiled for config"):
        tauvta.load(str(path), config=tauvta.HwConfig(LOG_BLOCK=5))


def test_progress_callback_and_gil_released(tmp_path):
    lines = []
    net = tauvta.compile(str(VGG7), calibrate=str(TRAIN_IMAGES), calib_samples=32, progress=lines.append)
    assert any("calibrat" in l for l in lines)
    # While one thread times the network (without the GIL), another keeps running Python.
    ticks, done = [0], threading.Event()

    def spin():
        while not done.is_set():
            ticks[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    for _ in range(3):
        net.time()
    done.set()
    t.join()
    assert ticks[0] > 1000


# ---------------------------------------------------------------------------------------------
# Errors: the command line's message, as tauvta.Error


@pytest.mark.parametrize("args,call", [
    (["run", "missing.onnx", "--input", "x.npy"], lambda: tauvta.compile("missing.onnx")),
    (["run", "models/vgg7_fmnist.onnx", "--input", "x.npy", "--config", "no_such_config"],
     lambda: tauvta.compile(str(VGG7), config="no_such_config")),
    (["op", "conv2d", "--ci", "16", "--co", "16", "--height", "8", "--width", "8", "--kernel", "3",
      "--schedule", "tile_q=2"],
     lambda: tauvta.op("conv2d,ci=16,h=8,w=8,co=16,k=3,s=1,p=0", schedule="tile_q=2")),
])
def test_errors_match_cli(tauvta_bin, args, call):
    r = cli(tauvta_bin, *args, check=False)
    assert r.returncode == 1
    with pytest.raises(tauvta.Error) as e:
        call()
    assert r.stderr.strip() == f"tauvta: error: {e.value}"


def test_bad_inputs_are_errors(vgg7):
    with pytest.raises(tauvta.Error, match="no input 'nope'"):
        vgg7.run({"nope": np.zeros((1, 1, 28, 28), np.float32)})
    with pytest.raises(tauvta.Error, match="float16"):
        vgg7.run(np.zeros((1, 1, 28, 28), np.float16))
    with pytest.raises(tauvta.Error, match="input 'input' is not given"):
        vgg7.run({})


# ---------------------------------------------------------------------------------------------
# The tools return what their commands write


def test_op_equals_cli(tauvta_bin, tmp_path):
    spec = "conv2d,ci=32,h=14,w=14,co=32,k=3,s=1,p=1"
    got = tauvta.op(spec)
    cli(tauvta_bin, "op", "conv2d", "--ci", 32, "--height", 14, "--width", 14, "--co", 32, "--kernel", 3, "--pad", 1,
        "--report", tmp_path / "op.json")
    want = json.loads((tmp_path / "op.json").read_text())
    assert got["verified"] is True
    assert got["cycles"] == want["cycles"] and got["schedule"] == want["schedule"]


def test_op_log_and_resources():
    log = REPO / "tests" / "data" / "calibration" / "tophub_vta_v0.10_calibration.jsonl"
    r = tauvta.op_log(str(log))
    assert r["failed"] == 0 and len(r["records"]) > 10
    assert all("seconds_at_clock" in x for x in r["records"])
    res = tauvta.resources(tauvta.HwConfig(), device="all")
    assert {e["device"] for e in res["estimates"]} >= {"pynq-z1", "zcu104"}


def test_tune_workload_writes_log_and_matches_cli(tauvta_bin, tmp_path):
    spec = "conv2d,ci=32,h=14,w=14,co=32,k=3,s=1,p=1"
    seen = []
    got = tauvta.tune(workload=spec, log=str(tmp_path / "py.log"), trials=32, tuner="random", threads=1,
                      progress=seen.append)
    cli(tauvta_bin, "tune", "--workload", spec, "--log", tmp_path / "cli.log", "--trials", 32, "--tuner", "random",
        "--threads", 1, "--report", tmp_path / "t.json", "-q")
    want = json.loads((tmp_path / "t.json").read_text())
    assert seen
    assert got["tasks"][0]["best"]["measure"]["cycles"] == want["tasks"][0]["best"]["measure"]["cycles"]
    assert got["tasks"][0]["best_so_far"] == want["tasks"][0]["best_so_far"]
    assert len((tmp_path / "py.log").read_text().splitlines()) == 32


def test_precision_show_set(vgg7, tmp_path):
    path = tmp_path / "v.tauvta"
    vgg7.save(str(path))
    shown = tauvta.precision_show(str(path))
    slot = next(s for s in shown["slots"] if s["on"] == "vta")
    bits = slot["bits"]
    new = f"Q{bits - 1 - (slot['frac_bits'] - 1)}.{slot['frac_bits'] - 1}"
    changed = tauvta.precision_set(str(path), {slot["value"]: new}, output=str(tmp_path / "p.tauvta"))
    assert changed["changes"][slot["value"]]["to"] == new
    again = tauvta.precision_show(str(tmp_path / "p.tauvta"))
    assert next(s for s in again["slots"] if s["value"] == slot["value"])["format"] == new
    with pytest.raises(tauvta.Error, match="no layer or value 'nope'"):
        tauvta.precision_set(str(path), {"nope": "Q0.7"}, output=str(tmp_path / "q.tauvta"))


def test_dse_small_equals_cli(tauvta_bin, tmp_path):
    spec = "conv2d,ci=32,h=14,w=14,co=32,k=3,s=1,p=1"
    small = dict(overlays=4, sprint=2, initial=6, budget=8)
    lines = []
    s = tauvta.dse(workload=spec, out=str(tmp_path / "d"), precisions="8", strategy="tau", progress=lines.append, **small)
    assert s["precisions"][0]["precision"] == 8 and s["precisions"][0]["feasible"] > 0
    assert any("designs evaluated" in l for l in lines)
    cli(tauvta_bin, "dse", "--workload", spec, "--out", tmp_path / "c", "--precisions", 8, "--strategy", "tau",
        *[x for k, v in small.items() for x in (f"--{k}", v)], "-q")
    want = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert s["precisions"][0]["best"]["gops"] == want["precisions"][0]["best"]["gops"]
    assert s["precisions"][0]["convergence"] == want["precisions"][0]["convergence"]
    with pytest.raises(tauvta.Error, match="halving needs --budget"):
        tauvta.dse(workload=spec, out=str(tmp_path / "h"), precisions="8", strategy="halving", budget=0)
    assert (tmp_path / "d" / "summary.json").exists()
