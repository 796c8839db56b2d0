#!/usr/bin/env python3
"""How much of a function survives one mistake: the recovery measurement.

Over the valid programs of the visible corpus (../shared/corpus/tvm-v0.25.0, manifest `valid`)
and the modules of TVM's transformation tests (../shared/corpus/tvm-v0.25.0-pairs, every one
that checks without errors), one line is inserted before the middle binding of every Relax
function that has a binding, at that binding's indentation, for each kind of mistake:

  half-typed     `zq = R.nn.`                      a line being typed
  undefined      `zq = R.nn.relu(undefined_name)`  a name not (yet) defined
  struct-info    `zq: R.Tensor((1, 2, 3), dtype="float32") = R.const(1, "int32")`
                                                   a value that contradicts its annotation

and measures, against the clean program:
  kept     the share of the function's bindings (all but the inserted line) whose StructInfo
           is exactly as before (`raxc check --show-struct-info --diagnostics-format=json`,
           compared as printed);
  kept_module  the same over every binding of the module;
  off_line the share of runs with an error reported on a line other than the inserted one;
  single   the share of runs with exactly one error, on the inserted line.

Everything runs in one `raxc check` process over all the files (a temporary directory), so
the measurement takes seconds.

    recovery_measure.py --raxc build/raxc [--sample N] [--json OUT]
    recovery_measure.py --raxc build/raxc --check test/bench/recovery_figures.json [--sample N]

--check compares with the tracked floor (the `after` figures of that file, for the whole
corpus or for `sample_<N>`): `kept` and `single` may only go up, `off_line` only down; exit 1
otherwise. --sample N takes every program whose index is a multiple of (programs / N), a
fixed, spread-out subset (the ctest test uses it to stay fast).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CORPUS = os.path.abspath(os.path.join(ROOT, "..", "shared", "corpus", "tvm-v0.25.0"))
PAIRS = os.path.abspath(os.path.join(ROOT, "..", "shared", "corpus", "tvm-v0.25.0-pairs"))

MISTAKES = {
    "half-typed": "zq = R.nn.",
    "undefined": "zq = R.nn.relu(undefined_name)",
    "struct-info": 'zq: R.Tensor((1, 2, 3), dtype="float32") = R.const(1, "int32")',
}

DEF = re.compile(r"^(\s*)def\s+\w+")


def load_programs(corpus, pairs, sample):
    manifest = json.load(open(os.path.join(corpus, "manifest.json")))
    files = sorted(os.path.join(corpus, p["file"]) for p in manifest["programs"]
                   if p["expect"] == "valid")
    if pairs and os.path.isdir(pairs):
        programs = os.path.join(pairs, "programs")
        files += sorted(os.path.join(programs, f) for f in os.listdir(programs)
                        if f.endswith(".rx"))
    if sample and sample < len(files):
        step = len(files) / sample
        files = [files[int(i * step)] for i in range(sample)]
    return [(f, open(f, encoding="utf-8").read()) for f in files]


def run_check(raxc, paths):
    """One raxc process over every path: {path: (diagnostics, struct_info entries)}."""
    out = {}
    chunk = 400  # keep the command line short
    for i in range(0, len(paths), chunk):
        part = paths[i:i + chunk]
        proc = subprocess.run(
            [raxc, "check", "--diagnostics-format=json", "--show-struct-info", *part],
            capture_output=True, text=True, timeout=600)
        if proc.returncode not in (0, 1):
            sys.exit(f"raxc check failed ({proc.returncode}): {proc.stderr[:2000]}")
        for entry in json.loads(proc.stdout):
            out[entry["file"]] = (entry.get("diagnostics", []), entry.get("struct_info", []))
    return out


def functions_of(text, entries):
    """Groups the struct_info entries (bindings) by their enclosing `def` (the nearest def line
    above, indented less than the binding). Only entries whose variable starts its line."""
    lines = text.split("\n")
    groups = {}
    for e in entries:
        line = lines[e["line"] - 1]
        indent = len(line) - len(line.lstrip(" "))
        if e["column"] != indent + 1:
            continue  # not the first name of a statement (a tuple unpacking's later names)
        owner = None
        for k in range(e["line"] - 2, -1, -1):
            m = DEF.match(lines[k])
            if m and len(m.group(1)) < indent:
                owner = k
                break
        if owner is not None:
            groups.setdefault(owner, []).append(e)
    return groups


def measure(raxc, corpus, pairs, sample):
    programs = load_programs(corpus, pairs, sample)
    with tempfile.TemporaryDirectory(prefix="raxc-recovery-") as tmp:
        clean_paths = []
        for i, (name, text) in enumerate(programs):
            path = os.path.join(tmp, f"p{i}.rx")
            open(path, "w", encoding="utf-8").write(text)
            clean_paths.append(path)
        clean = run_check(raxc, clean_paths)

        cases = []  # (path, kind, program index, inserted line, other entries)
        for i, (name, text) in enumerate(programs):
            diags, entries = clean[clean_paths[i]]
            if any(d["severity"] == "error" for d in diags):
                continue  # not clean here: nothing to compare with
            lines = text.split("\n")
            for owner, group in sorted(functions_of(text, entries).items()):
                target = group[len(group) // 2]
                at = target["line"]  # 1-based; the new line takes this number
                indent = " " * (target["column"] - 1)
                others = [e for e in group if e is not target] + [target]
                for kind, mistake in MISTAKES.items():
                    broken = lines[:at - 1] + [indent + mistake] + lines[at - 1:]
                    path = os.path.join(tmp, f"p{i}_{owner}_{kind}.rx")
                    open(path, "w", encoding="utf-8").write("\n".join(broken))
                    cases.append((path, kind, i, at, others, entries))
        results = run_check(raxc, [c[0] for c in cases])

    figures = {}
    for kind in MISTAKES:
        figures[kind] = {"runs": 0, "bindings": 0, "kept": 0, "module_bindings": 0,
                         "module_kept": 0, "off_line_runs": 0, "single_runs": 0}
    for path, kind, _, at, others, everything in cases:
        diags, entries = results[path]
        f = figures[kind]
        f["runs"] += 1
        after = {(e["name"], e["line"], e["column"]): e["struct_info"] for e in entries}

        def kept(e):
            line = e["line"] + (1 if e["line"] >= at else 0)
            return after.get((e["name"], line, e["column"])) == e["struct_info"]

        for e in others:
            f["bindings"] += 1
            f["kept"] += kept(e)
        for e in everything:
            f["module_bindings"] += 1
            f["module_kept"] += kept(e)
        errors = [d for d in diags if d["severity"] == "error"]
        if any(d["range"]["start"]["line"] != at for d in errors):
            f["off_line_runs"] += 1
        if len(errors) == 1 and errors[0]["range"]["start"]["line"] == at:
            f["single_runs"] += 1
    summary = {"programs": len(programs)}
    for kind, f in figures.items():
        summary[kind] = {
            "runs": f["runs"],
            "bindings": f["bindings"],
            "kept": round(100.0 * f["kept"] / max(f["bindings"], 1), 1),
            "kept_module": round(100.0 * f["module_kept"] / max(f["module_bindings"], 1), 1),
            "off_line": round(100.0 * f["off_line_runs"] / max(f["runs"], 1), 1),
            "single": round(100.0 * f["single_runs"] / max(f["runs"], 1), 1),
        }
    return summary


def check(summary, floor):
    failures = []
    for kind in MISTAKES:
        now, was = summary[kind], floor[kind]
        for key in ("kept", "kept_module"):
            if now[key] < was[key]:
                failures.append(f"{kind}: {key} {now[key]} % < {was[key]} %")
        if now["single"] < was["single"]:
            failures.append(f"{kind}: single {now['single']} % < {was['single']} %")
        if now["off_line"] > was["off_line"]:
            failures.append(f"{kind}: off-line errors {now['off_line']} % > {was['off_line']} %")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--raxc", required=True)
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--pairs", default=PAIRS, help="'' to leave the pairs corpus out")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--check", help="a figures file whose `after` entry is the floor")
    args = ap.parse_args()
    summary = measure(os.path.abspath(args.raxc), args.corpus, args.pairs, args.sample)
    print(json.dumps(summary, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")
    if args.check:
        tracked = json.load(open(args.check))
        key = f"sample_{args.sample}" if args.sample else "after"
        floor = tracked.get(key)
        if floor is None:
            sys.exit(f"{args.check} has no '{key}' entry")
        failures = check(summary, floor)
        for f in failures:
            print("recovery_measure: " + f, file=sys.stderr)
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
