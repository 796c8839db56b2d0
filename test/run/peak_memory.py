#!/usr/bin/python3
"""raxc run keeps its peak memory near the tensors alive at once. Two modules, each checked on
the peak resident size of its `raxc run` beyond that of a trivial module's run (the binary,
LLVM, the runtime):

- chain: 24 intermediates of 64 MiB in a row, each used twice by the next (so fusion leaves them
  apart) and never again. Kept to the end they would need 1.5 GiB; freed after their last use,
  a few are live at a time (and the runtime reuses their blocks). Bound: 1 GiB.
- sizes: 16 products of shrinking size (64, 60, 56, ... MiB), each reduced to a scalar and then
  dead. The runtime caches freed blocks for reuse; if the cache kept every size it saw (as it
  once did), the peak would reach 400 MiB; bounded by the most ever in use at once it stays near
  the input, one slice and one product (about 200 MiB). Bound: 5 × 64 MiB.

Not a timing: only memory. The bounds hold with a sanitizer's overhead too.

    peak_memory.py --raxc build/raxc
"""
import argparse
import os
import subprocess
import sys
import tempfile

HEADER = ["# from tvm.script import ir as I", "# from tvm.script import relax as R", "",
          "@I.ir_module", "class Module:", "    @R.function"]


def chain(steps=24):
    lines = HEADER + ['    def main(x: R.Tensor((4096, 4096), "float32")):',
                      "        with R.dataflow():", "            t0 = R.add(x, x)"]
    for i in range(1, steps):
        lines.append(f"            t{i} = R.multiply(t{i - 1}, t{i - 1})")
    lines += [f"            r = R.sum(t{steps - 1})", "            R.output(r)", "        return r"]
    return "\n".join(lines) + "\n"


def sizes(steps=16):
    lines = HEADER + ['    def main(x: R.Tensor((4096, 4096), "float32")):',
                      "        with R.dataflow():", '            a0 = R.const(0, "float32")']
    for i in range(steps):
        lines += [f"            s{i} = R.strided_slice(x, axes=[0], begin=[0], end=[{4096 - 256 * i}])",
                  f"            t{i} = R.multiply(s{i}, s{i})",
                  f"            a{i + 1} = R.add(a{i}, R.sum(t{i}))"]
    lines += [f"            R.output(a{steps})", f"        return a{steps}"]
    return "\n".join(lines) + "\n"


def trivial():
    return "\n".join(HEADER + ['    def main(x: R.Tensor((1,), "float32")):',
                               "        return R.add(x, x)"]) + "\n"


def peak_mib(raxc, text):
    """The peak resident MiB of `raxc run` on the module `text` (its own, from wait4), with its
    kernels' machine code in the compiled-code cache: the run before fills the cache, so LLVM's
    memory while compiling (far more under a sanitizer) is not counted as tensors'."""
    with tempfile.NamedTemporaryFile("w", suffix=".rx") as f:
        f.write(text)
        f.flush()
        for _ in range(2):
            with tempfile.TemporaryFile() as err:
                proc = subprocess.Popen([raxc, "run", f.name, "--random", "--threads", "1"],
                                        stdout=subprocess.DEVNULL, stderr=err)
                _, status, usage = os.wait4(proc.pid, 0)
                code = os.waitstatus_to_exitcode(status)
                if code != 0:
                    err.seek(0)
                    raise RuntimeError("raxc run exited %d: %s" % (code, err.read()[:400]))
    return usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raxc", required=True)
    args = ap.parse_args()
    try:
        base = peak_mib(args.raxc, trivial())
        cases = [("chain", chain(), 1024, "keeping every intermediate would take 1536 MiB"),
                 ("sizes", sizes(), 5 * 64, "caching every size freed would take about 400 MiB")]
        failed = False
        for name, text, bound, why in cases:
            got = peak_mib(args.raxc, text) - base
            verdict = "ok" if got <= bound else "FAIL"
            failed |= got > bound
            print(f"{verdict}: {name}: peak {got:.0f} MiB beyond a trivial run's {base:.0f} "
                  f"(bound {bound}; {why})")
    except RuntimeError as e:
        print("FAIL:", e)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
