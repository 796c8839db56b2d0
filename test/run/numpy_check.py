#!/usr/bin/env python3
"""Compares `raxc run` with numpy on TIR kernels, over inputs numpy makes.

Each case writes its inputs as .npy files, runs `raxc run FILE --entry F IN.npy... --save DIR`,
reads DIR/outputs.json and the .npy results, and compares them with numpy's computation of the
same function (float32: relative tolerance 1e-5 on each element, scaled by the size of the
reduction; integers: exact). Cases: examples/mlp_tir.rx (matmul with T.init, bias, ReLU,
softmax) and test/run/numpy/kernels.rx (row sums and maxima, a matmul over parallel/vectorized
loops, a strided offset sub-block view, floor/trunc division and modulo on negative numbers).

numpy is Debian's python3-numpy: run this with /usr/bin/python3 (ctest does).

    numpy_check.py --raxc build/raxc
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
KERNELS = os.path.join(HERE, "numpy", "kernels.rx")
MLP = os.path.join(ROOT, "examples", "mlp_tir.rx")


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mlp_case(rng):
    x = rng.standard_normal((5, 784)).astype(np.float32)
    w1 = (rng.standard_normal((784, 128)) * 0.05).astype(np.float32)
    b1 = rng.standard_normal(128).astype(np.float32)
    w2 = (rng.standard_normal((128, 10)) * 0.1).astype(np.float32)
    h = np.maximum(x @ w1 + b1, 0)
    return MLP, "main", [x, w1, b1, w2], [softmax(h @ w2)]


def stats_case(rng):
    x = rng.standard_normal((7, 33)).astype(np.float32)
    return KERNELS, "stats", [x], [x.sum(axis=1), x.max(axis=1)]


def matmul_case(rng):
    a = rng.standard_normal((9, 40)).astype(np.float32)
    b = rng.standard_normal((21, 40)).astype(np.float32)
    return KERNELS, "matmul", [a, b], [a @ b.T]


def tiles_case(rng):
    x = rng.standard_normal((16, 16)).astype(np.float32)
    return KERNELS, "tiles", [x], [x.reshape(4, 4, 4, 4).sum(axis=(1, 3))]


def divide_case(rng):
    a = rng.integers(-50, 50, size=64).astype(np.int32)
    b = rng.integers(1, 9, size=64).astype(np.int32) * rng.choice([-1, 1], size=64).astype(np.int32)
    trunc_q = (np.abs(a) // np.abs(b)) * np.sign(a) * np.sign(b)
    return KERNELS, "divide", [a, b], [a // b, a % b, trunc_q.astype(np.int32),
                                       (a - trunc_q * b).astype(np.int32)]


CASES = [mlp_case, stats_case, matmul_case, tiles_case, divide_case]


def leaves(value, out_dir):
    """The .npy leaves of outputs.json's value, depth first."""
    if isinstance(value, list):
        return [x for v in value for x in leaves(v, out_dir)]
    if "npy" in value:
        return [np.load(os.path.join(out_dir, value["npy"]))]
    raise ValueError(f"unexpected result {value}")


def compare(name, got, want):
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{name}: shape/dtype {got.shape} {got.dtype}, expected {want.shape} {want.dtype}"
    if np.issubdtype(want.dtype, np.integer):
        bad = np.nonzero(got != want)[0]
        return f"{name}: {len(bad)} integer mismatches" if len(bad) else None
    if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
        worst = np.max(np.abs(got - want))
        return f"{name}: max abs difference {worst}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raxc", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(20261124)
    failures = []
    passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for number, case in enumerate(CASES):
            path, entry, inputs, expected = case(rng)
            files = []
            for i, x in enumerate(inputs):
                files.append(os.path.join(tmp, f"c{number}_in{i}.npy"))
                np.save(files[-1], x)
            out_dir = os.path.join(tmp, f"c{number}_out")
            cmd = [args.raxc, "run", path, "--entry", entry, *files, "--save", out_dir]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            label = f"{os.path.basename(path)}:{entry}"
            if proc.returncode != 0:
                failures.append(f"{label}: exit {proc.returncode}: {proc.stderr.strip()[:400]}")
                continue
            with open(os.path.join(out_dir, "outputs.json")) as f:
                got = leaves(json.load(f)["value"], out_dir)
            problems = [compare(f"{label} result {i}", g, w.astype(g.dtype) if g.dtype != w.dtype and np.issubdtype(w.dtype, np.floating) else w)
                        for i, (g, w) in enumerate(zip(got, expected))]
            if len(got) != len(expected):
                problems.append(f"{label}: {len(got)} results, expected {len(expected)}")
            problems = [p for p in problems if p]
            failures.extend(problems)
            if not problems:
                passed += 1
                print(f"ok   {label}")
    for f in failures:
        print("FAIL", f)
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
