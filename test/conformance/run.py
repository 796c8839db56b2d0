#!/usr/bin/env python3
"""Conformance over TVM v0.25.0's own TVMScript test programs (tvm-v0.25.0/manifest.json).

For every program:
  valid   -> `raxc check` reports no error; round trip: the AST of parse(fmt(x)) equals the AST
             of x (up to variable renaming) and fmt is idempotent.
  invalid -> rejected with at least one error: every one is listed in
             invalid_expectations.json. A parse-time rule ("stage": "frontend") names the code
             raxc must report; an analysis one ("stage": "analysis": well-formedness /
             StructInfo) must be rejected too, with its "code" when the entry gives one.
Warnings on valid programs are reported by code (they are allowed: possibly-compatible
StructInfo is a warning by design). A valid program listed in spec_deviations.json is one TVM
accepts but the seed spec rejects; raxc follows the spec, so it must report exactly that code.
  skip    -> not a target (built with Python meta-programming).

    run.py --raxc build/raxc [--only SUBSTRING] [--no-roundtrip] [-v]
Exit status 1 on any failure.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "tvm-v0.25.0")


def run(cmd, stdin=None):
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def check_json(raxc, path):
    code, out, err = run([raxc, "check", "--diagnostics-format=json", path])
    if code not in (0, 1):
        return None, f"exit {code}: {err.strip()[:300]}"
    try:
        files = json.loads(out)
    except json.JSONDecodeError as e:
        return None, f"bad JSON ({e}): {out[:200]}"
    return [d for f in files for d in f["diagnostics"]], None


def dump_ast(raxc, path):
    code, out, err = run([raxc, "parse", "--dump=ast", "--anonymous-vars", path])
    return out if code == 0 else None


def fmt(raxc, path):
    code, out, err = run([raxc, "fmt", path])
    return out if code == 0 else None


def roundtrip(raxc, path):
    """Returns None when parse -> print -> parse is stable, else a reason."""
    original = dump_ast(raxc, path)
    if original is None:
        return "parse --dump=ast failed"
    printed = fmt(raxc, path)
    if printed is None:
        return "fmt failed"
    with tempfile.NamedTemporaryFile("w", suffix=".rx", delete=False) as tmp:
        tmp.write(printed)
    try:
        reparsed = dump_ast(raxc, tmp.name)
        if reparsed is None:
            return "printed text does not parse cleanly"
        if reparsed != original:
            return "AST changed by printing (parse -> fmt -> parse)"
        again = fmt(raxc, tmp.name)
        if again != printed:
            return "fmt is not idempotent"
    finally:
        os.unlink(tmp.name)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raxc", required=True)
    parser.add_argument("--only", default="")
    parser.add_argument("--no-roundtrip", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    manifest = json.load(open(os.path.join(CORPUS, "manifest.json")))
    expectations = json.load(open(os.path.join(HERE, "invalid_expectations.json")))
    deviations = json.load(open(os.path.join(HERE, "spec_deviations.json")))
    failures = []
    warning_codes = collections.Counter()
    warning_files = collections.Counter()
    counts = collections.Counter()
    for program in manifest["programs"]:
        rel = program["file"]
        if args.only not in rel:
            continue
        path = os.path.join(CORPUS, rel)
        expect = program["expect"]
        if expect == "skip":
            counts["skip"] += 1
            continue
        diagnostics, problem = check_json(args.raxc, path)
        if diagnostics is None:
            failures.append((rel, problem))
            continue
        errors = [d for d in diagnostics if d["severity"] == "error"]
        if expect == "valid":
            codes = {d["code"] for d in diagnostics if d["severity"] == "warning"}
            for d in diagnostics:
                if d["severity"] == "warning":
                    warning_codes[d["code"]] += 1
            for c in codes:
                warning_files[c] += 1
            if codes and args.verbose:
                print(f"warnings {rel}: " + ", ".join(sorted(codes)))
            counts["valid"] += 1
            deviation = deviations.get(os.path.basename(rel))
            if deviation:
                got = sorted({d["code"] for d in errors})
                if got == [deviation["code"]]:
                    counts["valid but rejected by the spec"] += 1
                else:
                    failures.append((rel, f"spec deviation: expected only {deviation['code']}, "
                                          f"got {', '.join(got) or 'no error'}"))
                continue
            if errors:
                first = errors[0]
                failures.append((rel, f"valid program rejected: {first['code']} line "
                                      f"{first['range']['start']['line']}: {first['message']}"))
                continue
            counts["valid accepted"] += 1
            if not args.no_roundtrip:
                reason = roundtrip(args.raxc, path)
                if reason:
                    failures.append((rel, reason))
                else:
                    counts["round trips"] += 1
        else:
            counts["invalid"] += 1
            name = os.path.basename(rel)
            entry = expectations.get(name)
            if entry is None:
                failures.append((rel, "invalid program missing from invalid_expectations.json"))
                continue
            stage = entry["stage"]
            wanted = entry.get("code")
            got = ", ".join(sorted({d["code"] for d in errors})) or "no error"
            if not errors:
                failures.append((rel, f"invalid program accepted ({stage}: "
                                      f"{wanted or entry.get('why', '')})"))
            elif wanted and not any(d["code"] == wanted for d in errors):
                failures.append((rel, f"expected {wanted}, got {got}"))
            else:
                counts[f"invalid rejected ({stage})"] += 1

    for rel, reason in failures:
        print(f"FAIL {rel}: {reason}")
    print("summary: " + ", ".join(f"{k}: {v}" for k, v in counts.items()))
    print("warnings on valid programs by code (count / files): " +
          (", ".join(f"{c}: {n}/{warning_files[c]}" for c, n in sorted(warning_codes.items()))
           or "none"))
    print(f"failures: {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
