#!/usr/bin/python3
"""Writes the fuzz targets' seed corpora (fuzz/corpus/<target>/) from the repository's own valid
inputs: reference programs, configs, small ONNX models (built here and from Debian's
libonnx-testdata), compiled artifacts of them, tuning logs, formats files, tensors.

    /usr/bin/python3 fuzz/make_seeds.py --tauvta build/tauvta

Needs a built tauvta (for disassembly, assembly and compiling artifacts) and onnx/numpy. The
corpora are committed; run this again only to change them (docs/fuzzing.md).
"""
import argparse
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
REF = os.path.join(ROOT, "tests", "data", "vta-reference-programs")
NODE_TESTS = "/usr/share/libonnx-testdata/data/node"
# The sim target's config list (fuzz/sim_fuzz.cpp kConfigs), by name.
SIM_CONFIGS = ["1x16_i8w8a32_15_15_18_17", "4x8_i8w8a32_15_15_18_17", "1x16_i16w16a64_15_16_19_18",
               "1x16_i1w1a32_15_12_15_17", "1x16_i2w2a32_15_13_16_17", "1x16_i4w4a32_15_14_17_17",
               "2x8_i4w4a32_15_14_15_17", "1x16x32_i8w8a32_15_15_18_17"]


def out_dir(target):
    d = os.path.join(CORPUS, target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def write(target, name, data):
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, **kw)


def config_name(cfg):
    """VTA's config name of a vta_config.json dict (HwConfig::name())."""
    b_in = cfg.get("LOG_BLOCK_IN", cfg.get("LOG_BLOCK"))
    b_out = cfg.get("LOG_BLOCK_OUT", cfg.get("LOG_BLOCK"))
    block = f"{1 << b_in}" if b_in == b_out else f"{1 << b_in}x{1 << b_out}"
    return (f"{1 << cfg['LOG_BATCH']}x{block}_i{1 << cfg['LOG_INP_WIDTH']}w{1 << cfg['LOG_WGT_WIDTH']}"
            f"a{1 << cfg['LOG_ACC_WIDTH']}_{cfg['LOG_UOP_BUFF_SIZE']}_{cfg['LOG_INP_BUFF_SIZE']}_"
            f"{cfg['LOG_WGT_BUFF_SIZE']}_{cfg['LOG_ACC_BUFF_SIZE']}")


def elem_bytes(cfg, mem):
    batch, bi = 1 << cfg["LOG_BATCH"], 1 << cfg.get("LOG_BLOCK_IN", cfg.get("LOG_BLOCK"))
    bo = 1 << cfg.get("LOG_BLOCK_OUT", cfg.get("LOG_BLOCK"))
    inp, wgt, acc = 1 << cfg["LOG_INP_WIDTH"], 1 << cfg["LOG_WGT_WIDTH"], 1 << cfg["LOG_ACC_WIDTH"]
    return {"UOP": 4, "WGT": bo * bi * wgt // 8, "INP": batch * bi * inp // 8, "ACC": batch * bo * acc // 8,
            "OUT": batch * bo * inp // 8, "ACC_8BIT": batch * bo * inp // 8}[mem]


def relocated_program(tauvta, case_dir):
    """A reference program with its DRAM regions packed from address 0: (config, text, image)."""
    case = json.load(open(os.path.join(case_dir, "case.json")))
    cfg = case["config"]
    with tempfile.TemporaryDirectory() as tmp:
        cfg_path = os.path.join(tmp, "cfg.json")
        json.dump(cfg, open(cfg_path, "w"))
        text = run([tauvta, "disasm", os.path.join(case_dir, case["program"]), "--config", cfg_path],
                   text=True).stdout
        regions, image, at = [], b"", 0
        for m in case["mem"]:
            data = open(os.path.join(case_dir, m["file"]), "rb").read()
            regions.append((m["addr"], len(data), at))
            image += data + b"\0" * ((-len(data)) % 256)
            at = len(image)
        if case.get("dump"):  # the output region, if it lies outside every input region
            d = case["dump"]
            if not any(a <= d["addr"] < a + n for a, n, _ in regions):
                regions.append((d["addr"], d["bytes"], at))
                image += b"\0" * (d["bytes"] + (-d["bytes"]) % 256)
        lines = []
        for line in text.splitlines():
            words = line.split()
            if len(words) > 2 and words[1] in ("LOAD", "STORE"):
                size = elem_bytes(cfg, words[2])
                for i, w in enumerate(words):
                    if w.startswith("dram_base="):
                        addr = int(w.split("=")[1]) * size
                        for old, n, new in regions:
                            if old <= addr < old + max(n, 1):
                                words[i] = f"dram_base={(new + addr - old) // size}"
                line = " ".join(words)
            lines.append(line)
        asm = "\n".join(lines) + "\n"
        asm_path = os.path.join(tmp, "p.txt")
        open(asm_path, "w").write(asm)
        run([tauvta, "asm", asm_path, "-o", os.path.join(tmp, "p.bin"), "--config", cfg_path])
        program = open(os.path.join(tmp, "p.bin"), "rb").read()
    return cfg, asm, program, image


def sim_and_asm_seeds(tauvta):
    out_dir("sim")
    out_dir("asm")
    for cfg_dir in sorted(os.listdir(REF)):
        path = os.path.join(REF, cfg_dir)
        if not os.path.isdir(path):
            continue
        for case in sorted(os.listdir(path)):
            cfg, asm, program, image = relocated_program(tauvta, os.path.join(path, case))
            k = SIM_CONFIGS.index(config_name(cfg))
            n = len(program) // 16
            for flags, tag in ((0, "full"), (1, "timing"), (2, "hazards")):
                write("sim", f"{cfg_dir}_{case}_{tag}", bytes([flags | (k << 3), n]) + program + image)
            write("asm", f"{cfg_dir}_{case}.txt", ("#2\n" if k == 6 else "") + asm)
    write("asm", "default_program.txt", open(os.path.join(ROOT, "tests/hw/golden/default_program.txt")).read())
    write("asm", "uops.txt", "GEMM_UOP acc=3 inp=5 wgt=7\nALU_UOP dst=3 src=5\nFINISH deps=none\n")


def hw_config_seeds():
    out_dir("hw_config")
    for f in sorted(os.listdir(os.path.join(ROOT, "configs"))):
        shutil.copy(os.path.join(ROOT, "configs", f), os.path.join(CORPUS, "hw_config", f))
    for name in ("1x16_i8w8a32_15_15_18_17", "pynq_2x8_i4w4a32_15_14_15_17", "1x16x32_i8w8a32_15_15_18_17"):
        write("hw_config", f"name_{name}", name)
    write("hw_config", "timing.json", json.dumps({"LOG_BLOCK": 4, "TIMING": {
        "CLOCK_MHZ": 250, "DRAM_BANDWIDTH_GBPS": 4.5, "ALU_MUL": False, "DATAFLOW": True, "GEMM_II": 2}}))


def onnx_models():
    """Small models built here: (name, ModelProto)."""
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    models = []

    def model(name, nodes, inputs, outputs, inits, opset):
        g = helper.make_graph(nodes, name, inputs, outputs, [numpy_helper.from_array(v, k) for k, v in inits.items()])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_seeds")
        m.ir_version = 7
        models.append((name, m))

    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 1, 8, 8])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])
    model("cnn", [
        helper.make_node("Conv", ["input", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2], name="pool1"),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Flatten", ["r2"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["output"], transB=1, name="fc"),
    ], [x], [y], {"w1": f32(16, 1, 3, 3), "b1": f32(16), "w2": f32(16, 16, 3, 3), "b2": f32(16),
                  "w3": f32(10, 256), "b3": f32(10)}, 13)
    model("conv_bn_add", [
        helper.make_node("Conv", ["input", "w1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("BatchNormalization", ["c1", "s", "bb", "m", "v"], ["n1"], name="bn1"),
        helper.make_node("Relu", ["n1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
        helper.make_node("Add", ["c2", "r1"], ["a"], name="add"),
        helper.make_node("GlobalAveragePool", ["a"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "w3"], ["output"], transB=1, name="fc"),
    ], [x], [y], {"w1": f32(16, 1, 3, 3), "s": np.abs(f32(16)) + 0.5, "bb": f32(16), "m": f32(16),
                  "v": np.abs(f32(16)) + 0.5, "w2": f32(16, 16, 3, 3), "w3": f32(10, 16)}, 9)
    t = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4, 16])
    model("token_mlp", [
        helper.make_node("MatMul", ["input", "w1"], ["h"], name="fc1"),
        helper.make_node("Add", ["h", "b1"], ["hb"], name="bias1"),
        helper.make_node("Relu", ["hb"], ["r"], name="relu"),
        helper.make_node("MatMul", ["r", "w2"], ["o"], name="fc2"),
        helper.make_node("Softmax", ["o"], ["output"], axis=-1, name="softmax"),
    ], [t], [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 8])],
        {"w1": f32(16, 32), "b1": f32(32), "w2": f32(32, 8)}, 17)
    model("old_opset_bn", [
        helper.make_node("Conv", ["input", "w1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("BatchNormalization", ["c1", "s", "bb", "m", "v"], ["n1"], name="bn1"),
        helper.make_node("Relu", ["n1"], ["output"], name="relu1"),
    ], [x], [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 8, 8])],
        {"w1": f32(4, 1, 3, 3), "s": np.abs(f32(4)) + 0.5, "bb": f32(4), "m": f32(4), "v": np.abs(f32(4)) + 0.5}, 7)
    return models


NODE_SEEDS = ["test_conv_with_strides_padding", "test_maxpool_2d_default", "test_gemm_default_matrix_bias",
              "test_relu", "test_add_bcast", "test_reshape_reordered_all_dims", "test_concat_2d_axis_0",
              "test_averagepool_2d_pads", "test_globalaveragepool", "test_batchnorm_example",
              "test_transpose_default", "test_softmax_axis_1", "test_clip", "test_matmul_2d", "test_flatten_axis1",
              "test_slice", "test_squeeze", "test_unsqueeze_axis_0", "test_expand_dim_changed",
              "test_where_example", "test_resize_upsample_scales_nearest", "test_constantofshape_int_zeros",
              "test_gather_0", "test_reduce_mean_default_axes_keepdims_example", "test_split_equal_parts_1d",
              "test_leakyrelu", "test_prelu_broadcast", "test_conv_with_autopad_same", "test_convtranspose",
              "test_depthtospace_example", "test_layer_normalization_2d_axis0"]


def onnx_seeds(models):
    out_dir("onnx")
    for name, m in models:
        write("onnx", f"{name}.onnx", m.SerializeToString())
    for t in NODE_SEEDS:
        p = os.path.join(NODE_TESTS, t, "model.onnx")
        if os.path.exists(p):
            shutil.copy(p, os.path.join(CORPUS, "onnx", f"{t}.onnx"))


def artifact_seeds(tauvta, models):
    out_dir("artifact")
    out_dir("artifact_body")
    with tempfile.TemporaryDirectory() as tmp:
        for name, m in models:
            if name not in ("cnn", "conv_bn_add", "token_mlp"):
                continue
            src = os.path.join(tmp, f"{name}.onnx")
            onnx.save(m, src)
            for cfg in ("", "configs/pynq_w4a4.json"):
                dst = os.path.join(tmp, f"{name}.tauvta")
                args = [tauvta, "compile", src, "-o", dst, "--force"]
                if cfg:
                    args += ["--config", os.path.join(ROOT, cfg)]
                run(args)
                data = open(dst, "rb").read()
                tag = f"{name}{'_w4a4' if cfg else ''}"
                write("artifact", f"{tag}.tauvta", data)
                # artifact_body: u32 manifest length, manifest, blob (fuzz/artifact_body_fuzz.cpp)
                mlen = struct.unpack_from("<Q", data, 12)[0]
                manifest = data[20:20 + mlen]
                blen = struct.unpack_from("<Q", data, 20 + mlen)[0]
                blob = data[28 + mlen:28 + mlen + blen]
                write("artifact_body", f"{tag}.body", struct.pack("<I", mlen) + manifest + blob)


def tuning_log_seeds():
    out_dir("tuning_log")
    sample = open(os.path.join(ROOT, "tests/data/tuning/sample_vta.log")).read().splitlines(keepends=True)
    write("tuning_log", "sample_vta.log", "".join(sample))
    records = [l for l in sample if l.startswith("{")]
    for i, l in enumerate(records[:6]):
        write("tuning_log", f"record_{i}.jsonl", l)
    write("tuning_log", "torn_last_line.jsonl", "".join(records[:2]) + records[2][:40])
    tophub = open(os.path.join(ROOT, "tests/data/calibration/tophub_vta_v0.10_calibration.jsonl")).read().splitlines(True)
    write("tuning_log", "tophub_head.jsonl", "".join(tophub[:8]))


def precision_seeds(tauvta):
    out_dir("precision_formats")
    for f in sorted(os.listdir(os.path.join(ROOT, "models"))):
        if f.endswith(".formats"):
            shutil.copy(os.path.join(ROOT, "models", f), os.path.join(CORPUS, "precision_formats", f))
    write("precision_formats", "mixed.formats",
          "# by value, quantized value and node\ninput=4\n/features/features.0/Conv_output_0=Q3.4\n"
          "/features/features.2/Conv_output_0_q = q1.6  \r\n/classifier/classifier.3/Gemm=-2\n")
    out_dir("precision_checkpoint")
    # The header precision::checkpoint_header(HwConfig{}, start, {}) writes (fuzz/precision_checkpoint_fuzz.cpp).
    config = json.loads(run([tauvta, "config", "show", "--json"], text=True).stdout)
    header = {"mode": "otune", "threshold": 1e-4, "radius": 2, "min_gain": 0.0, "tune_split": [0, 2000],
              "config": config, "start": {"conv1": 3, "input": 4, "output": 5}}

    def evaluation(formats, acc, rates):
        layers = [{"value": v, "node": v, "op": "QConv", "format": f"Q{7 - f}.{f}", "format_max": 127 / 2 ** f,
                   "overflow_rate": rates.get(v, 0.0), "pre_cast_max": 100, "observed_max": 100 / 2 ** f}
                  for v, f in formats.items()]
        return {"frac_bits": formats, "formats": {v: f"Q{7 - f}.{f}" for v, f in formats.items()},
                "layers": layers, "begin": 0, "images": 2000, "correct": int(acc * 2000), "accuracy": acc,
                "seconds": 1.5}

    write("precision_checkpoint", "empty.json", json.dumps(dict(header, evaluations=[]), indent=1))
    write("precision_checkpoint", "two_steps.json", json.dumps(dict(header, evaluations=[
        evaluation({"conv1": 3, "input": 4, "output": 5}, 0.91, {"conv1": 0.01}),
        evaluation({"conv1": 2, "input": 4, "output": 5}, 0.92, {})]), indent=1))


def tensor_seeds():
    out_dir("npy")
    data = os.path.join(ROOT, "tests/io/data")
    for f in sorted(os.listdir(data)):
        if f.endswith(".npy"):
            shutil.copy(os.path.join(data, f), os.path.join(CORPUS, "npy", f))
    shutil.copy(os.path.join(ROOT, "models/vgg7_fmnist_output.npy"), os.path.join(CORPUS, "npy", "vgg7_output.npy"))
    out_dir("tensor_pb")
    n = 0
    for t in ("test_conv_with_strides_padding", "test_gather_0", "test_where_example", "test_constantofshape_int_zeros",
              "test_cast_FLOAT_to_DOUBLE", "test_and2d", "test_argmax_default_axis_example"):
        d = os.path.join(NODE_TESTS, t, "test_data_set_0")
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if os.path.getsize(os.path.join(d, f)) <= 4096:
                shutil.copy(os.path.join(d, f), os.path.join(CORPUS, "tensor_pb", f"{t}_{f}"))
                n += 1
    typed = numpy_helper.from_array(np.arange(6, dtype=np.int8).reshape(2, 3), "typed")
    typed.ClearField("raw_data")
    typed.int32_data.extend(range(6))
    write("tensor_pb", "typed_int8.pb", typed.SerializeToString())
    out_dir("idx")
    images = bytes(range(2 * 4 * 4))
    idx3 = struct.pack(">IIII", 0x803, 2, 4, 4) + images
    idx1 = struct.pack(">II", 0x801, 5) + bytes([0, 1, 2, 9, 3])
    write("idx", "images-idx3-ubyte", idx3)
    write("idx", "labels-idx1-ubyte", idx1)
    write("idx", "images-idx3-ubyte.gz", gzip.compress(idx3, mtime=0))
    write("idx", "labels-idx1-ubyte.gz", gzip.compress(idx1, mtime=0))
    write("idx", "G_images", b"G" + idx3)  # gzip-compressed by the target (fuzz/idx_fuzz.cpp)
    write("idx", "G_labels", b"G" + idx1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tauvta", default=os.path.join(ROOT, "build", "tauvta"))
    a = ap.parse_args()
    tauvta = os.path.abspath(a.tauvta)
    models = onnx_models()
    sim_and_asm_seeds(tauvta)
    hw_config_seeds()
    onnx_seeds(models)
    artifact_seeds(tauvta, models)
    tuning_log_seeds()
    precision_seeds(tauvta)
    tensor_seeds()
    total = 0
    for target in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, target))
        size = sum(os.path.getsize(os.path.join(CORPUS, target, f)) for f in files)
        total += size
        print(f"{target:22s} {len(files):3d} files {size:8d} bytes")
    print(f"{'total':22s}           {total:8d} bytes")


if __name__ == "__main__":
    sys.exit(main())
