#!/usr/bin/python3
"""raxc run frees each intermediate tensor after its last use.

A function binds 24 intermediates of 64 MiB in a row, each used twice by the next (so fusion
leaves them apart) and never again. Kept to the end they would need 1.5 GiB; freed after their
last use, a few are live at a time (and the runtime reuses their blocks). The test runs it and
checks the process's peak resident size stays under 1 GiB, which holds with a sanitizer's
overhead too. Not a timing: only memory.

    peak_memory.py --raxc build/raxc
"""
import argparse
import resource
import subprocess
import sys
import tempfile

STEPS = 24


def module():
    lines = ["# from tvm.script import ir as I", "# from tvm.script import relax as R", "",
             "@I.ir_module", "class Module:", "    @R.function",
             '    def main(x: R.Tensor((4096, 4096), "float32")):',
             "        with R.dataflow():", "            t0 = R.add(x, x)"]
    for i in range(1, STEPS):
        lines.append(f"            t{i} = R.multiply(t{i - 1}, t{i - 1})")
    lines += [f"            r = R.sum(t{STEPS - 1})", "            R.output(r)", "        return r"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raxc", required=True)
    args = ap.parse_args()
    with tempfile.NamedTemporaryFile("w", suffix=".rx") as f:
        f.write(module())
        f.flush()
        run = subprocess.run([args.raxc, "run", f.name, "--random", "--threads", "1"],
                             capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        print("FAIL: raxc run exited %d: %s" % (run.returncode, run.stderr[:400]))
        return 1
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    kept_mib = STEPS * 64
    if peak_mib > 1024:
        print("FAIL: peak resident %.0f MiB (keeping every intermediate would take %d MiB)"
              % (peak_mib, kept_mib))
        return 1
    print("ok: peak resident %.0f MiB for %d intermediates of 64 MiB" % (peak_mib, STEPS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
