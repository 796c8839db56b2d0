#!/usr/bin/env python3
"""Pathological inputs: time per byte of `raxc check` on generated worst cases, beside a clean
file of about the same size (the anchor: what an ordinary module of that size costs), in one
run. Error recovery and every pass should stay linear or near-linear in the input, so each
ratio should stay a small constant as --scale grows. Not a timed test: it prints a table.

    test/bench/pathological.py --raxc build/raxc [--scale 1.0] [--runs 3]

Each case runs `raxc check --error-limit 200` (the default) once per run, best of --runs; the
peak resident memory is the child's (GNU time's %M). Stdlib only."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HEADER_R = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"
HEADER_T = "# from tvm.script import tir as T\n\n"


def functions(n):
    body = "".join(
        "    @R.function\n"
        "    def f%d(x: R.Tensor((2, 3), \"float32\")) -> R.Tensor((2, 3), \"float32\"):\n"
        "        y = R.add(x, x)\n"
        "        return y\n\n" % i for i in range(n))
    return HEADER_R + "@I.ir_module\nclass Module:\n" + body


def bindings(n):
    lines = ["    y%d = R.add(y%d, x)\n" % (k, k - 1) for k in range(1, n)]
    return (HEADER_R + "@R.function\ndef main(x: R.Tensor((2,), \"float32\")) -> "
            "R.Tensor((2,), \"float32\"):\n    y0 = x\n" + "".join(lines) + "    return y%d\n" % (n - 1))


def one_long_line(tokens):
    return (HEADER_T + "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\"), n: T.int32):\n    A[0] = "
            + " + ".join(["n"] * tokens) + "\n")


def unclosed_brackets(n):
    return HEADER_R + "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n" + "    y = [\n" * n


def unclosed_parens(n):
    return "(" * n


def bad_lines(n):
    return HEADER_R + "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n" + "    y = = x\n" * n


def deep_attributes(n):
    return (HEADER_T + "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\"), n: T.int32):\n"
            "    A[0] = n" + ".a" * n + "\n")


def elif_chain(n):
    lines = [HEADER_T, "@T.prim_func\ndef f(a: T.Buffer((8,), \"int32\")):\n",
             "    for i in range(8):\n        if i == 0:\n            a[i] = 0\n"]
    lines += ["        elif i == %d:\n            a[i] = %d\n" % (k, k) for k in range(1, n)]
    lines.append("        else:\n            a[i] = -1\n")
    return "".join(lines)


def cases(scale):
    s = lambda n: max(1, int(n * scale))  # noqa: E731
    return [
        ("50,000 functions", functions(s(50000))),
        ("200,000 bindings in one function", bindings(s(200000))),
        ("a million tokens on one line", one_long_line(s(500000))),
        ("unclosed [ on every line", unclosed_brackets(s(20000))),
        ("70,000 (", unclosed_parens(s(70000))),
        ("a syntax error on every line", bad_lines(s(50000))),
        ("an attribute chain 100,000 deep", deep_attributes(s(100000))),
        ("a 5,000-branch elif chain", elif_chain(s(5000))),
    ]


def measure(raxc, text, runs):
    with tempfile.NamedTemporaryFile("w", suffix=".rx", delete=False) as f:
        f.write(text)
    try:
        best, peak = float("inf"), 0
        for _ in range(runs):
            # GNU time prints the child's peak resident KiB as the last line of stderr.
            start = time.perf_counter()
            done = subprocess.run(["/usr/bin/time", "-f", "%x %M", raxc, "check", f.name],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            best = min(best, time.perf_counter() - start)
            status, kib = done.stderr.strip().splitlines()[-1].split()
            peak = max(peak, int(kib))
            if int(status) not in (0, 1):
                raise SystemExit("raxc check exited %s (a crash?) on a generated case" % status)
        return best, peak
    finally:
        os.unlink(f.name)


def clean_of_size(size):
    """A clean module (repeated valid functions) of about `size` bytes: the anchor."""
    one = len(functions(1)) - len(HEADER_R)
    return functions(max(1, (size - len(HEADER_R)) // one))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raxc", required=True)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print("%-36s %9s %9s %10s %8s %9s" % ("case", "bytes", "ms", "ns/byte", "x clean", "peak MiB"))
    for name, text in cases(args.scale):
        t, peak = measure(args.raxc, text, args.runs)
        clean_t, _ = measure(args.raxc, clean_of_size(len(text)), args.runs)
        per_byte = t / max(len(text), 1) * 1e9
        clean_per_byte = clean_t / max(len(text), 1) * 1e9
        print("%-36s %9d %9.1f %10.1f %8.2f %9.0f" % (name, len(text), t * 1e3, per_byte,
                                                     per_byte / max(clean_per_byte, 1e-9),
                                                     peak / 1024))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
