#!/usr/bin/env python3
"""Runs every public Relax function of the corpora with generated inputs through `raxc run`.

Corpora:
  test/conformance/tvm-v0.25.0        every `valid` program of the manifest
  test/conformance/tvm-v0.25.0-pairs  the `expected` module of every pair (TVM's own legalized
                                      kernels, fused and memory-planned functions), each entry

Each function runs as `raxc run FILE --entry NAME --random --default-dim 4` (also with
--check-bounds, which must not change the outcome of a run that succeeds). The outcome is one
of: ran (exit 0), refused (exit 1 or 2 with RX5xxx diagnostics: a construct the backend does not
run yet, or a run-time check that failed on random data), or a FAILURE: a crash (a signal or an
exit status other than 0/1/2), a hang (over the time limit), or an exit 1/2 without a coded
diagnostic.

test/run/corpus_refusals.json records the refusals by code. A run fails when there is any
failure or when a code is refused more often than recorded (the counts only go down: update the
file with --update when a change lowers them).

    corpus_run.py --raxc build/raxc [--update] [--only SUBSTRING] [-v] [--jobs N]
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CONFORMANCE = os.path.join(ROOT, "test", "conformance")
REFUSALS = os.path.join(HERE, "corpus_refusals.json")
TIME_LIMIT = 60  # seconds per run; generous for the sanitizer build on a loaded machine

# A global: the decorator at the top level or at the class body's indentation (nested functions
# are deeper).
DECORATED_DEF = re.compile(r"^(?:    )?@R\.function(\([^)]*\))?\s*\n\s*def\s+(\w+)\s*\(", re.M)


def public_functions(text):
    """Names of the public Relax functions (`@R.function` without private=True)."""
    names = []
    in_class = "@I.ir_module" in text  # else a lone function: its nested ones are indented
    for m in DECORATED_DEF.finditer(text):
        if not in_class and m.group(0).startswith(" "):
            continue
        if m.group(1) and "private=True" in m.group(1).replace(" ", ""):
            continue
        names.append(m.group(2))
    return names


def jobs_from_corpora(only):
    jobs = []
    manifest = json.load(open(os.path.join(CONFORMANCE, "tvm-v0.25.0", "manifest.json")))
    for p in manifest["programs"]:
        if p["expect"] != "valid":
            continue
        path = os.path.join(CONFORMANCE, "tvm-v0.25.0", p["file"])
        for name in public_functions(open(path, encoding="utf-8").read()):
            jobs.append((path, name))
    pairs = json.load(open(os.path.join(CONFORMANCE, "tvm-v0.25.0-pairs", "manifest.json")))
    for pair in pairs["pairs"]:
        path = os.path.join(CONFORMANCE, "tvm-v0.25.0-pairs", pair["expected"])
        for name in pair["entries"]:
            jobs.append((path, name))
    return [j for j in jobs if not only or only in j[0]]


def run_one(raxc, path, name, check_bounds):
    cmd = [raxc, "run", path, "--entry", name, "--random", "--default-dim", "4",
           "--diagnostics-format=json"]
    if check_bounds:
        cmd.append("--check-bounds")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIME_LIMIT)
    except subprocess.TimeoutExpired:
        return ("hang", [], f"over {TIME_LIMIT} s")
    if proc.returncode == 0:
        return ("ran", [], "")
    if proc.returncode in (1, 2):
        # R.print output may come before the diagnostics: the JSON array starts on its own line.
        start = proc.stdout.find("[\n")
        start = proc.stdout.rfind("\n[\n") + 1 if start > 0 else start
        try:
            files = json.loads(proc.stdout[max(start, 0):])
            codes = [d["code"] for f in files for d in f["diagnostics"] if d["severity"] == "error"]
        except (ValueError, KeyError, TypeError):
            codes = []
        if codes:
            return ("refused", codes, files[0]["diagnostics"][0]["message"])
        return ("uncoded", [], (proc.stderr or proc.stdout).strip()[:300])
    return ("crash", [], f"exit {proc.returncode}: {proc.stderr.strip()[-400:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raxc", required=True)
    ap.add_argument("--update", action="store_true", help="rewrite corpus_refusals.json")
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    jobs = jobs_from_corpora(args.only)
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_one, args.raxc, p, n, cb): (p, n, cb)
                   for p, n in jobs for cb in (False, True)}
        for f in concurrent.futures.as_completed(futures):
            results[futures[f]] = f.result()

    outcomes = collections.Counter()
    refused = collections.Counter()
    failures = []
    for (path, name, cb), (kind, codes, detail) in sorted(results.items()):
        rel = os.path.relpath(path, ROOT)
        if cb:
            # --check-bounds only adds checks: a function that ran must still run, unless the
            # check found an out-of-bounds access (RX5011), which is then a real finding.
            plain = results[(path, name, False)]
            if plain[0] == "ran" and kind != "ran" and codes != ["RX5011"]:
                failures.append(f"{rel} --entry {name} --check-bounds: {kind} {codes} {detail}")
            continue
        outcomes[kind] += 1
        if kind == "refused":
            refused[codes[0]] += 1
        if kind in ("crash", "hang", "uncoded"):
            failures.append(f"{rel} --entry {name}: {kind}: {detail}")
        if args.verbose:
            print(f"{kind:8} {' '.join(codes):8} {rel} --entry {name}  {detail[:120]}")

    print(f"corpus run: {len(jobs)} functions: ran {outcomes['ran']}, refused {outcomes['refused']}, "
          f"crashes {outcomes['crash']}, hangs {outcomes['hang']}, uncoded {outcomes['uncoded']}")
    for code, n in sorted(refused.items()):
        print(f"  refused {code}: {n}")

    recorded = json.load(open(REFUSALS)) if os.path.exists(REFUSALS) else {}
    if args.update:
        with open(REFUSALS, "w") as f:
            json.dump(dict(sorted(refused.items())), f, indent=2)
            f.write("\n")
        print(f"wrote {os.path.relpath(REFUSALS, ROOT)}")
    elif not args.only:
        for code, n in sorted(refused.items()):
            if n > recorded.get(code, 0):
                failures.append(f"{code} refused {n} times, recorded {recorded.get(code, 0)} "
                                f"(test/run/corpus_refusals.json: counts only go down)")
    for f in failures:
        print("FAIL", f)
    print(f"{len(jobs) - len([f for f in failures if ' --entry ' in f])} passed, "
          f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
