#!/usr/bin/env python3
"""Backend benchmark: compile and run times of `raxc run`, side by side with anchors, one run.

  1. examples/mlp_tir.rx (a 784-128-10 perceptron of call_tir kernels with softmax), batch n:
     `raxc check` of the file (the anchor for compile time), `raxc run`'s compile time (TIR ->
     LLVM optimisation, JIT) first (an empty compiled-code cache) and warm (the cache has the machine
     code), the whole process cold and warm, and its run time (min and median of --repeat) with
     1 and 2 threads, and numpy's time for the same computation (the anchor for run time; it
     names its BLAS).
  2. The generated 20k-line transformer module (test/bench/gen_model.py): `raxc check` against
     compiling all of its PrimFuncs (`raxc run --emit-llvm`: codegen + O3, no machine code).

Times are best of --runs wall-clock runs of the command; ratios are what to compare, since
the machines are shared. Use a Release build:  run_bench.py --raxc build-release/raxc
Debian's numpy is needed for the anchor: run with /usr/bin/python3.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
MLP = os.path.join(ROOT, "examples", "mlp_tir.rx")


def wall(cmd, runs):
    best = float("inf")
    out = None
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        if out.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr[:2000]}")
    return best * 1000, out


def run_stats(raxc, n, threads, repeat, extra=()):
    _, out = wall([raxc, "run", MLP, "--random", "--bind", f"n={n}", "--repeat", str(repeat),
                   "--threads", str(threads), *extra], 1)
    m = re.search(r"compile ([\d.]+) ms .*min ([\d.]+) ms, median ([\d.]+) ms", out.stderr)
    return float(m.group(1)), float(m.group(2)), float(m.group(3))


def numpy_mlp(n, threads, repeat):
    try:
        import numpy as np
    except ImportError:
        return None, "numpy missing (run with /usr/bin/python3)"
    try:
        from threadpoolctl import threadpool_limits, threadpool_info
        limiter = threadpool_limits(threads)
        blas = ",".join(sorted({i.get("internal_api", "?") for i in threadpool_info()}))
    except ImportError:
        limiter, blas = None, "BLAS unknown (no threadpoolctl)"
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (n, 784)).astype(np.float32)
    w1 = rng.uniform(-1, 1, (784, 128)).astype(np.float32)
    b1 = rng.uniform(-1, 1, 128).astype(np.float32)
    w2 = rng.uniform(-1, 1, (128, 10)).astype(np.float32)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        h = np.maximum(x @ w1 + b1, 0)
        z = h @ w2
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        e / e.sum(axis=-1, keepdims=True)
        times.append((time.perf_counter() - start) * 1000)
    if limiter:
        limiter.unregister() if hasattr(limiter, "unregister") else None
    times.sort()
    return (times[0], times[len(times) // 2]), blas


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raxc", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()
    n = args.batch

    print(f"== examples/mlp_tir.rx, n={n} (784-128-10, softmax), best of {args.runs}")
    check_ms, _ = wall([args.raxc, "check", MLP], args.runs)
    print(f"raxc check (anchor for compile)           {check_ms:9.2f} ms")
    run_cmd = [args.raxc, "run", MLP, "--random", "--bind", f"n={n}"]
    cold_ms, _ = wall(run_cmd + ["--no-cache"], args.runs)
    print(f"raxc run, whole process, cold             {cold_ms:9.2f} ms   "
          f"{cold_ms / check_ms:6.1f}x check")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["RAXC_CACHE_DIR"] = cache
        wall(run_cmd, 1)  # fills the cache
        warm_ms, _ = wall(run_cmd, args.runs)
        print(f"raxc run, whole process, warm cache       {warm_ms:9.2f} ms   "
              f"{warm_ms / check_ms:6.1f}x check")
        first = run_stats(args.raxc, n, 1, 2, ["--no-cache"])[0]
        warm = run_stats(args.raxc, n, 1, 2)[0]
        print(f"compile step: first {first:8.2f} ms ({first / check_ms:5.1f}x check), "
              f"warm {warm:8.2f} ms ({warm / check_ms:5.1f}x check)")
        del os.environ["RAXC_CACHE_DIR"]
    for threads in (1, 2):
        compile_ms, run_min, run_med = run_stats(args.raxc, n, threads, args.repeat,
                                                 ["--no-cache"])
        anchor, blas = numpy_mlp(n, threads, args.repeat)
        line = (f"{threads} thread(s): compile {compile_ms:8.2f} ms ({compile_ms / check_ms:5.1f}x "
                f"check); run min {run_min:8.3f} ms, median {run_med:8.3f} ms")
        if anchor:
            line += f"; numpy min {anchor[0]:7.3f} ms ({blas}): raxc/numpy {run_min / anchor[0]:6.2f}x"
        else:
            line += f"; {blas}"
        print(line)

    print("\n== generated transformer module (test/bench/gen_model.py --layers 72)")
    with tempfile.NamedTemporaryFile("w", suffix=".rx", delete=False) as f:
        model = f.name
        f.write(subprocess.run([sys.executable, os.path.join(HERE, "gen_model.py"), "--layers", "72"],
                               capture_output=True, text=True, check=True).stdout)
    try:
        lines = sum(1 for _ in open(model))
        check_ms, _ = wall([args.raxc, "check", model], args.runs)
        emit_ms, out = wall([args.raxc, "run", model, "--emit-llvm"], args.runs)
        kernels = sum(1 for line in out.stdout.splitlines()
                      if line.startswith("define") and "@raxc_kernel." in line)
        print(f"{lines} lines; raxc check {check_ms:9.2f} ms; compile its {kernels} PrimFuncs to "
              f"optimised LLVM IR {emit_ms:9.2f} ms ({emit_ms / check_ms:5.1f}x check)")
    finally:
        os.unlink(model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
