#!/usr/bin/env python3
"""TVM's transformations preserve results: each before/expected pair of
test/conformance/tvm-v0.25.0-pairs (manifest.json: TVM's transformation tests, the module before
a pass and what the pass must produce) is run entry by entry on the same generated inputs
(`raxc run FILE --entry E --random --seed S --default-dim 4 --output-format json`), and the two
results must be equal (floats within a relative 1e-4, NaN equal to NaN; the passes reorder
floating-point arithmetic).

An entry that does not run on one side (exit 1 or 2 with a coded diagnostic: a construct the
backend refuses, a packed function the test never defines, an argument that cannot be
generated) is not compared; it is a refusal. test/run/pairs_refusals.json records the refusals
with their reasons, and the known differences (results that differ: bugs to fix, each with what
is known about it); both lists may only shrink: a new refusal or a new difference fails. A
crash, a hang or an uncoded failure fails always.

    pairs_check.py --raxc build/raxc [--update] [-v] [--jobs N]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import json_results  # noqa: E402  (test/json_results.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PAIRS = os.path.join(ROOT, "test", "conformance", "tvm-v0.25.0-pairs")
REFUSALS = os.path.join(HERE, "pairs_refusals.json")
TIME_LIMIT = 120
CODE = re.compile(r"\[(RX\d{4})\]")


def run(raxc, path, entry):
    """('ok', json) | ('refused', code) | ('failure', why)"""
    cmd = [raxc, "run", path, "--entry", entry, "--random", "--seed", "1", "--default-dim", "4",
           "--output-format", "json"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIME_LIMIT)
    except subprocess.TimeoutExpired:
        return "failure", "hang"
    if r.returncode == 0:
        try:
            return "ok", json.loads(r.stdout.rstrip("\n").split("\n")[-1])
        except (json.JSONDecodeError, IndexError):
            return "failure", "output is not JSON"
    codes = CODE.findall(r.stderr)
    if r.returncode in (1, 2) and codes:
        return "refused", codes[0]
    return "failure", "exit %d: %s" % (r.returncode, r.stderr.strip()[:300])


def check(raxc, pair, entry):
    before = run(raxc, os.path.join(PAIRS, pair["before"]), entry)
    expected = run(raxc, os.path.join(PAIRS, pair["expected"]), entry)
    key = "%s --entry %s" % (pair["test"], entry)
    for side, result in (("before", before), ("expected", expected)):
        if result[0] == "failure":
            return key, "failure", "%s: %s" % (side, result[1])
    for side, result in (("before", before), ("expected", expected)):
        if result[0] == "refused":
            return key, "refused", "%s: %s" % (side, result[1])
    if not json_results.close(before[1], expected[1], 1e-4, floor=1.0):
        return key, "different", "different results: %s / %s" % (
            json.dumps(before[1])[:200], json.dumps(expected[1])[:200])
    return key, "equal", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raxc", required=True)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    manifest = json.load(open(os.path.join(PAIRS, "manifest.json")))
    jobs = [(p, e) for p in manifest["pairs"] for e in p["entries"]]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda j: check(args.raxc, *j), jobs))
    recorded = json.load(open(REFUSALS)) if os.path.exists(REFUSALS) else {}
    refused = {k: why for k, outcome, why in results if outcome == "refused"}
    different = {k: why for k, outcome, why in results if outcome == "different"}
    failures = [(k, why) for k, outcome, why in results if outcome == "failure"]
    equal = sum(1 for _, outcome, _ in results if outcome == "equal")
    for k, outcome, why in results:
        if args.v or outcome in ("failure", "different"):
            print("%-9s %s  %s" % (outcome, k, why))
    new = [("REFUSAL", k, refused[k]) for k in sorted(refused)
           if k not in recorded.get("refused", {})]
    new += [("DIFFERENCE", k, different[k]) for k in sorted(different)
            if k not in recorded.get("different", {})]
    if not args.update:
        for kind, k, why in new:
            print("NEW %s %s  %s" % (kind, k, why))
    print("pairs: %d entries: %d equal, %d refused, %d different, %d failed" % (
        len(results), equal, len(refused), len(different), len(failures)))
    if args.update:
        known = recorded.get("different", {})
        with open(REFUSALS, "w") as f:
            json.dump({"refused": dict(sorted(refused.items())),
                       "different": {k: known.get(k, "not investigated yet")
                                     for k in sorted(different)}}, f, indent=1)
            f.write("\n")
        print("wrote %s" % os.path.relpath(REFUSALS, ROOT))
        return 1 if failures else 0
    return 1 if failures or new else 0


if __name__ == "__main__":
    sys.exit(main())
