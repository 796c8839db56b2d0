#!/usr/bin/python3
"""ONNX's backend test suite (Debian's libonnx-testdata) through `raxc run model.onnx`.

Each test is a directory with model.onnx and test_data_set_N/{input,output}_K.pb. The runner
imports and runs the model on the first data set (`raxc run model.onnx input_0.pb ... --save
DIR`: the importer reads the .pb inputs itself), then compares every output with output_K.pb
(read with Debian's python3-onnx) within the tolerances of TOLERANCES. A test is

  passed   every output matches (shape, dtype kind and values),
  refused  raxc import refused the model with a coded RX14xx error (an operator, attribute or
           type outside the coverage), or the backend refused an operator it cannot run
           (RX5000), both grouped by reason,
  failed   anything else: a wrong value or shape, another error, a crash, a timeout.

Prints passed / failed / refused per suite and the most common refusal reasons.
  --write-passing FILE   writes the names of the passing tests (suite/name, sorted)
  --check FILE           runs only the tests FILE lists plus a fixed sample of the others and
                         exits 1 when a listed test does not pass (the list must not shrink)
Run with /usr/bin/python3 (numpy and onnx are Debian packages; scripts/install-deps).
"""
import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

DATA = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]
# (rtol, atol) per dtype kind; integers and bools compare exactly. ONNX's own runner uses
# rtol=1e-3 and atol=1e-7; float32 gets a little absolute slack for sums that cancel.
TOLERANCES = {
    "float16": (1e-2, 1e-3),
    "float32": (1e-3, 1e-5),
    "float64": (1e-6, 1e-9),
}
TIMEOUT_SECONDS = 120
SAMPLE_EVERY = 25  # --check: besides the passing list, every 25th other test (a fixed sample)


def load_pb(path):
    import onnx
    from onnx import numpy_helper
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def reason_of(diag):
    """A refusal's reason, general enough to group: the code and the message without names."""
    code, msg = diag.get("code", ""), diag.get("message", "")
    if code == "RX1401":
        m = re.search(r"operator '([^']+)'", msg)
        return f"RX1401 unsupported operator {m.group(1) if m else '?'}"
    if code == "RX1402":
        m = re.search(r"operator '([^']+)' \(opset \d+\) is not supported with (.*)", msg)
        if m:
            why = re.sub(r"'[^']*'", "'…'", m.group(2))
            why = re.sub(r"\d+", "N", why)
            return f"RX1402 {m.group(1)}: {why}"
    if code == "RX1403":
        m = re.search(r"has type (.*?), which", msg)
        return f"RX1403 unsupported type {m.group(1) if m else '?'}"
    if code == "RX5000":
        m = re.search(r"'(R\.[^']+)'", msg) or re.search(r"(R\.[\w.]+)", msg)
        return f"RX5000 operator not executable: {m.group(1) if m else msg[:60]}"
    return f"{code} {msg[:80]}"


def diagnostics(stdout):
    try:
        files = json.loads(stdout)
    except ValueError:
        return []
    out = []
    for f in files if isinstance(files, list) else [files]:
        out += f.get("diagnostics", []) if isinstance(f, dict) else []
    return out


def compare(expected, actual):
    if expected.shape != actual.shape:
        return f"shape {actual.shape} != expected {expected.shape}"
    if expected.dtype.kind in "fc":
        rtol, atol = TOLERANCES.get(str(expected.dtype), TOLERANCES["float32"])
        if actual.dtype.kind != "f":
            return f"dtype {actual.dtype} != expected {expected.dtype}"
        if not np.allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=rtol,
                           atol=atol, equal_nan=True):
            diff = np.nanmax(np.abs(actual.astype(np.float64) - expected.astype(np.float64)))
            return f"values differ (max abs diff {diff:.3g})"
        return None
    if expected.dtype.kind == "O" or not np.array_equal(actual.astype(expected.dtype), expected):
        return "values differ"
    return None


def run_test(raxc, suite, test_dir):
    name = f"{suite}/{os.path.basename(test_dir)}"
    data = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
    if not data:
        return name, "failed", "no test data set"
    inputs = sorted(glob.glob(os.path.join(data[0], "input_*.pb")),
                    key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    outputs = sorted(glob.glob(os.path.join(data[0], "output_*.pb")),
                     key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    with tempfile.TemporaryDirectory(prefix="raxc-onnx-") as out_dir:
        cmd = [raxc, "run", os.path.join(test_dir, "model.onnx"), *inputs, "--save", out_dir,
               "--diagnostics-format", "json", "--threads", "1"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            return name, "failed", "timeout"
        if proc.returncode != 0:
            diags = diagnostics(proc.stdout)
            codes = [d.get("code", "") for d in diags]
            if proc.returncode < 0:
                return name, "failed", f"crash (signal {-proc.returncode})"
            if diags and (codes[0].startswith("RX14") and codes[0] != "RX1408"
                          or codes[0] == "RX5000"):
                return name, "refused", reason_of(diags[0])
            return name, "failed", reason_of(diags[0]) if diags else proc.stderr.strip()[:100]
        try:
            with open(os.path.join(out_dir, "outputs.json")) as f:
                value = json.load(f)["value"]
        except (OSError, ValueError, KeyError):
            return name, "failed", "no outputs.json"
        leaves = value if isinstance(value, list) else [value]
        if len(leaves) != len(outputs):
            return name, "failed", f"{len(leaves)} outputs, expected {len(outputs)}"
        for k, (leaf, expected_path) in enumerate(zip(leaves, outputs)):
            if not isinstance(leaf, dict) or "npy" not in leaf:
                return name, "failed", f"output {k} is not a tensor"
            why = compare(load_pb(expected_path), np.load(os.path.join(out_dir, leaf["npy"])))
            if why:
                return name, "failed", f"output {k}: {why}"
    return name, "passed", ""


def all_tests(suites):
    tests = []
    for suite in suites:
        for model in sorted(glob.glob(os.path.join(DATA, suite, "*", "model.onnx"))):
            tests.append((suite, os.path.dirname(model)))
    return tests


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--raxc", required=True)
    ap.add_argument("--suite", action="append", choices=SUITES, help="default: all four")
    ap.add_argument("--filter", default="", help="only tests whose name contains this")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--top", type=int, default=10, help="refusal reasons to print")
    ap.add_argument("--write-passing", metavar="FILE")
    ap.add_argument("--check", metavar="FILE")
    ap.add_argument("--every", type=int, default=1,
                    help="with --check: run every Nth test only (the sanitizer build, whose runs "
                         "are several times slower, checks a tenth)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every failure")
    args = ap.parse_args()

    if not os.path.isdir(DATA):
        print(f"{DATA} not found: install libonnx-testdata (scripts/install-deps)")
        return 77
    tests = all_tests(args.suite or SUITES)
    tests = [t for t in tests if args.filter in f"{t[0]}/{os.path.basename(t[1])}"]
    listed = set()
    if args.check:
        with open(args.check) as f:
            listed = {line.strip() for line in f if line.strip() and not line.startswith("#")}
        others = [t for t in tests if f"{t[0]}/{os.path.basename(t[1])}" not in listed]
        tests = [t for t in tests if f"{t[0]}/{os.path.basename(t[1])}" in listed][::args.every] + \
            others[::SAMPLE_EVERY * args.every]

    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for r in pool.map(lambda t: run_test(args.raxc, *t), tests):
            results.append(r)

    per_suite = collections.defaultdict(collections.Counter)
    reasons = collections.Counter()
    failures = []
    for name, status, why in results:
        per_suite[name.split("/")[0]][status] += 1
        if status == "refused":
            reasons[why] += 1
        elif status == "failed":
            failures.append((name, why))
    print(f"{'suite':<20} {'passed':>7} {'failed':>7} {'refused':>8} {'total':>6}")
    for suite in SUITES:
        c = per_suite.get(suite)
        if c:
            print(f"{suite:<20} {c['passed']:>7} {c['failed']:>7} {c['refused']:>8} "
                  f"{sum(c.values()):>6}")
    print(f"\nmost common refusal reasons (of {sum(reasons.values())} refusals):")
    for why, n in reasons.most_common(args.top):
        print(f"  {n:>4}  {why}")
    if args.verbose:
        print("\nfailures:")
        for name, why in sorted(failures):
            print(f"  {name}: {why}")

    passing = sorted(name for name, status, _ in results if status == "passed")
    if args.write_passing:
        with open(args.write_passing, "w") as f:
            f.write("# Tests of libonnx-testdata that `raxc run model.onnx` passes "
                    "(test/onnx/run_onnx_tests.py --write-passing).\n")
            f.write("".join(p + "\n" for p in passing))
    if args.check:
        ran = {name for name, _, _ in results}
        lost = sorted((listed & ran) - set(passing))
        why = dict((n, w) for n, _, w in results)
        for name in lost:
            print(f"REGRESSION: {name} no longer passes: {why.get(name, 'not found')}")
        gained = sorted(set(passing) - listed)
        if gained:
            print(f"{len(gained)} sampled tests pass but are not listed: add them with "
                  f"--write-passing ({', '.join(gained[:5])}{' ...' if len(gained) > 5 else ''})")
        return 1 if lost else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
