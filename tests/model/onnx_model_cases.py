#!/usr/bin/env python3
"""Every ONNX model case Debian's libonnx-testdata ships (pytorch-converted, pytorch-operator,
simple) through `tauvta run MODEL --float`, as a user would run them: inputs from the cases'
input_N.pb files (a SequenceProto where the model declares a sequence), outputs compared with
output_N.pb within ONNX's backend-test tolerance (rtol 1e-3, atol 1e-7).

The cases tauvta refuses are pinned with the reason they must give (string tensors, the training
domain's Gradient); any other refusal, any mismatch, or a pinned case that starts to run fails.
Usage: onnx_model_cases.py TAUVTA [--data DIR]"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

# Refused on purpose, with what the error must say.
REFUSED = {
    "simple/test_gradient_of_add": "operator domain 'ai.onnx.preview.training'",
    "simple/test_gradient_of_add_and_mul": "operator domain 'ai.onnx.preview.training'",
    "simple/test_strnorm_model_monday_casesensintive_lower": "element type STRING is not supported",
    "simple/test_strnorm_model_monday_casesensintive_nochangecase": "element type STRING is not supported",
    "simple/test_strnorm_model_monday_casesensintive_upper": "element type STRING is not supported",
    "simple/test_strnorm_model_monday_empty_output": "element type STRING is not supported",
    "simple/test_strnorm_model_monday_insensintive_upper_twodim": "element type STRING is not supported",
    "simple/test_strnorm_model_nostopwords_nochangecase": "element type STRING is not supported",
}


def expected_outputs(path):
    try:
        return numpy_helper.to_array(onnx.load_tensor(path))
    except Exception:  # a SequenceProto: the bytes do not say which
        seq = onnx.SequenceProto()
        with open(path, "rb") as f:
            seq.ParseFromString(f.read())
        return [numpy_helper.to_array(t) for t in seq.tensor_values]


def file_name(value):
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in value)


def run_case(tauvta, case_dir):
    model = onnx.load(os.path.join(case_dir, "model.onnx"))
    initializers = {i.name for i in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    data = sorted(glob.glob(os.path.join(case_dir, "test_data_set_*")))[0]
    args = []
    for k, name in enumerate(inputs):
        args += ["--input", f"{name}={data}/input_{k}.pb"]
    with tempfile.TemporaryDirectory() as out:
        p = subprocess.run([tauvta, "run", os.path.join(case_dir, "model.onnx"), "--float", "--output-dir", out] + args,
                           capture_output=True, text=True)
        if p.returncode != 0:
            return "refused", (p.stdout + p.stderr).strip().splitlines()[-1]
        for k, value in enumerate(o.name for o in model.graph.output):
            want = expected_outputs(f"{data}/output_{k}.pb")
            if isinstance(want, list):
                got = [np.load(os.path.join(out, f"{file_name(value)}.{i}.npy")) for i in range(len(want))]
            else:
                got, want = [np.load(os.path.join(out, f"{file_name(value)}.npy"))], [want]
            for g, w in zip(got, want):
                try:
                    np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-7)
                except AssertionError as e:
                    return "differ", f"output {value}: {str(e).splitlines()[0:4]}"
    return "match", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tauvta")
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data")
    a = ap.parse_args()
    dirs = []
    for group in ("pytorch-converted", "pytorch-operator", "simple"):
        dirs += sorted(d for d in glob.glob(os.path.join(a.data, group, "*"))
                       if glob.glob(os.path.join(d, "test_data_set_*")))
    if not dirs:
        print(f"onnx_model_cases: no cases under {a.data}: install libonnx-testdata", file=sys.stderr)
        return 1
    counts, failures = {"match": 0, "differ": 0, "refused": 0}, []
    for d in dirs:
        case = "/".join(d.split("/")[-2:])
        result, detail = run_case(a.tauvta, d)
        counts[result] += 1
        if case in REFUSED:
            if result != "refused" or REFUSED[case] not in detail:
                failures.append(f"{case}: expected a refusal naming \"{REFUSED[case]}\", got {result}: {detail}")
        elif result != "match":
            failures.append(f"{case}: {result}: {detail}")
    print(f"onnx_model_cases: {len(dirs)} cases: {counts['match']} match, {counts['differ']} differ, "
          f"{counts['refused']} refused ({len(REFUSED)} on purpose)")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
