#!/usr/bin/env python3
"""Operator benchmark: legalized Relax operators under `raxc run --repeat` beside numpy.

For matmul, conv2d, softmax, layer_norm and an element-wise chain (exp(x) * y + z, then relu), one
generated module each: raxc's run time (min over --repeat calls in one process, compile time
excluded, 1 thread) and numpy's for the same computation (min over as many calls, BLAS held to
1 thread), reported as the ratio raxc / numpy, and PyTorch's (torch.set_num_threads(1); Debian's
python3-torch, installed by scripts/install-deps and required here) as raxc / torch. This is
the starting line of the performance work, not a timed test: run it by hand, with a Release
build, on a quiet machine:

    /usr/bin/python3 test/bench/ops_bench.py --raxc build-release/raxc
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

# One thread for every library numpy may sit on; set before numpy is imported.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402

import torch  # noqa: E402

torch.set_num_threads(1)

HEADER = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"


def module(params, body):
    lines = [f"    @R.function", f"    def main({params}):"]
    lines += [f"        {line}" for line in body]
    return HEADER + "\n".join(lines) + "\n"


def t(shape, dtype="float32"):
    return f'R.Tensor(({", ".join(map(str, shape))}{"," if len(shape) == 1 else ""}), "{dtype}")'


def conv2d_numpy(x, w):
    """NCHW / OIHW, padding 1: windows by stride tricks, then one tensordot (BLAS)."""
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(2, 3))
    return np.tensordot(win, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)


def cases(size):
    n = size
    return [
        ("matmul %dx%dx%d" % (n, n, n),
         module(f"a: {t((n, n))}, b: {t((n, n))}", ["r = R.matmul(a, b)", "return r"]),
         [(n, n), (n, n)], lambda a, b: a @ b,
         (lambda a, b: torch.matmul(a, b))),
        ("conv2d 1x16x%dx%d, 32x16x3x3" % (n // 4, n // 4),
         module(f"x: {t((1, 16, n // 4, n // 4))}, w: {t((32, 16, 3, 3))}",
                ["r = R.nn.conv2d(x, w, padding=[1, 1])", "return r"]),
         [(1, 16, n // 4, n // 4), (32, 16, 3, 3)], conv2d_numpy,
         (lambda x, w: torch.nn.functional.conv2d(x, w, padding=1))),
        ("softmax %dx%d" % (n, 4 * n),
         module(f"x: {t((n, 4 * n))}", ["r = R.nn.softmax(x, axis=-1)", "return r"]),
         [(n, 4 * n)],
         lambda x: (lambda e: e / e.sum(axis=-1, keepdims=True))(np.exp(x - x.max(axis=-1, keepdims=True))),
         (lambda x: torch.softmax(x, -1))),
        ("layer_norm %dx%d" % (n, 4 * n),
         module(f"x: {t((n, 4 * n))}, g: {t((4 * n,))}, b: {t((4 * n,))}",
                ["r = R.nn.layer_norm(x, g, b, axes=[-1])", "return r"]),
         [(n, 4 * n), (4 * n,), (4 * n,)],
         lambda x, g, b: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * g + b,
         (lambda x, g, b: torch.nn.functional.layer_norm(x, (x.shape[-1],), g, b))),
        ("exp(x)*y+z, relu %dx%d" % (n, 4 * n),
         module(f"x: {t((n, 4 * n))}, y: {t((n, 4 * n))}, z: {t((n, 4 * n))}",
                ["with R.dataflow():", "    e = R.exp(x)", "    m = R.multiply(e, y)", "    s = R.add(m, z)",
                 "    r = R.nn.relu(s)", "    R.output(r)", "return r"]),
         [(n, 4 * n)] * 3,
         lambda x, y, z: np.maximum(np.exp(x) * y + z, 0),
         (lambda x, y, z: torch.relu(torch.exp(x) * y + z))),
    ]


def best(fn, args, repeat):
    fn(*args)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raxc", required=True)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, (name, text, shapes, ref, ref_torch) in enumerate(cases(args.size)):
            path = os.path.join(tmp, f"b{k}.rx")
            with open(path, "w") as f:
                f.write(text)
            proc = subprocess.run([args.raxc, "run", path, "--random", "--repeat", str(args.repeat),
                                   "--threads", "1", "--output-format", "json"],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"{name}: raxc run failed:\n{proc.stderr[:2000]}")
            m = re.search(r"min ([0-9.]+) ms", proc.stderr)
            raxc_ms = float(m.group(1))
            inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
            numpy_ms = best(ref, inputs, args.repeat)
            torch_ms = best(ref_torch, [torch.from_numpy(x) for x in inputs], args.repeat)
            rows.append((name, raxc_ms, numpy_ms, torch_ms))
    print(f"{'operator':32} {'raxc ms':>9} {'numpy ms':>9} {'raxc/numpy':>10} {'torch ms':>9} {'raxc/torch':>10}")
    for name, r, n, tt in rows:
        print(f"{name:32} {r:9.3f} {n:9.3f} {r / n:10.2f} {tt:9.3f} {r / tt:10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
