#!/usr/bin/env python3
"""Every diagnostic code has a section in frontend/diagnostics_explained.md, and its examples work.

COVERAGE (always). Every code of frontend/diagnostics.def has exactly one `## RXnnnn` section, no
section names a code the registry does not have, and every section has a "Trigger:" with a fenced
block and a "Fix:" with a fenced block, except for codes listed in test/meta/golden_exemptions.txt
that no input reaches (those may explain why instead of giving a trigger).

EXAMPLES (with --raxc). Each trigger and fix is run the way its fence's info string says:
  rx               raxc check example.rx      (all of them in one raxc process)
  rx check FLAGS   raxc check FLAGS example.rx
  rx run ARGS      raxc run example.rx ARGS
  console          each `$ ...` line, in a scratch directory (`raxc` is the raxc under test,
                   also after `env NAME=VALUE...`)
The trigger must report the section's code (or the code its "Trigger (reported as RXnnnn" line
names, for checks that an earlier one pre-empts: only codes listed in golden_exemptions.txt);
the fix must report neither that code nor any other error or warning. So the text a person
reads is the text that is tested, and it cannot rot.

Prints every problem, naming the code, and exits 1 when there is one.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REGISTRY = os.path.join(ROOT, "frontend", "diagnostics.def")
TEXT = os.path.join(ROOT, "frontend", "diagnostics_explained.md")
EXEMPTIONS = os.path.join(ROOT, "test", "meta", "golden_exemptions.txt")
CODE = re.compile(r"RX\d{4}")
REPORTED_AS = re.compile(r"reported as (RX\d{4})")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def registry():
    """[(code, severity)] in registry order."""
    return re.findall(r"^RAXC_DIAG\((RX\d{4}),\s*\w+,\s*(\w+),", read(REGISTRY), re.M)


def sections(text):
    """[(code, line number, [body lines])] for the `## RXnnnn` headings outside fences."""
    out, fence = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("## "):
            out.append((line[3:].split()[0] if line[3:].split() else "", number, []))
        elif out:
            out[-1][2].append(line)
    return out


def examples(lines):
    """{"trigger"|"fix": (info, text)}, the first fenced block after each label, and the code
    a pre-empting check reports instead (or None)."""
    found, role, fence, info, body, reported_as = {}, None, False, None, [], None
    for line in lines:
        if line.startswith("```"):
            if not fence:
                fence, info, body = True, line[3:].strip(), []
            else:
                fence = False
                if role and role not in found:
                    found[role] = (info, "\n".join(body) + "\n")
            continue
        if fence:
            body.append(line)
            continue
        if line.startswith("Trigger"):
            role = "trigger"
            m = REPORTED_AS.search(line)
            reported_as = m.group(1) if m else None
        elif line.startswith("Fix"):
            role = "fix"
    return found, reported_as


def exempted():
    codes = set()
    for line in read(EXEMPTIONS).splitlines():
        m = re.match(r"^(RX\d{4})\s", line)
        if m:
            codes.add(m.group(1))
    return codes


def check_coverage(codes, parsed, exempt):
    problems = []
    known = {c for c, _ in codes}
    seen = {}
    for code, number, lines in parsed:
        if not CODE.fullmatch(code):
            problems.append(f"diagnostics_explained.md:{number}: '## {code}' is not a code heading")
        elif code not in known:
            problems.append(f"diagnostics_explained.md:{number}: {code} is not in the registry")
        elif code in seen:
            problems.append(f"diagnostics_explained.md:{number}: {code} has a second section "
                            f"(the first is at line {seen[code]})")
        seen.setdefault(code, number)
        found, reported_as = examples(lines)
        if reported_as and code not in exempt:
            problems.append(f"diagnostics_explained.md:{number}: {code}'s trigger says it is "
                            f"reported as {reported_as}, but golden cases trigger {code} itself "
                            f"(only codes in golden_exemptions.txt are pre-empted)")
        if code in known and code not in exempt:
            for role in ("trigger", "fix"):
                if role not in found:
                    problems.append(f"diagnostics_explained.md:{number}: {code} has no "
                                    f"'{role.capitalize()}:' with a fenced block")
        for role, (info, _) in found.items():
            if not (info == "rx" or info.startswith(("rx check", "rx run")) or info == "console"):
                problems.append(f"diagnostics_explained.md:{number}: {code}: the {role} block's "
                                f"info string '{info}' is not rx, rx check, rx run or console")
    for code, _ in codes:
        if code not in seen:
            problems.append(f"no explanation: {code} (add a '## {code}' section to "
                            f"frontend/diagnostics_explained.md)")
    return problems


def codes_in(output):
    """(codes, codes of errors and warnings) of the diagnostics in raxc's output: the JSON array
    `--diagnostics-format=json` prints (after whatever R.print wrote), or clang-style text
    (usage errors, which come before any JSON)."""
    found, loud = set(), set()
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("["):
            try:
                files = json.loads("\n".join(lines[i:]))
            except ValueError:
                continue
            for entry in files if isinstance(files, list) else []:
                for d in entry.get("diagnostics", []) if isinstance(entry, dict) else []:
                    found.add(d["code"])
                    if d["severity"] in ("error", "warning"):
                        loud.add(d["code"])
            break
    for m in re.finditer(r"(error|warning|note): .*\[(RX\d{4})\]", output):
        found.add(m.group(2))
        if m.group(1) != "note":
            loud.add(m.group(2))
    return found, loud


def run_examples(raxc, parsed, known):
    problems = []
    with tempfile.TemporaryDirectory(prefix="raxc-explain-") as scratch:
        plain = []  # (code, role, path, expected)
        results = {}  # (code, role) -> (found, errors_or_warnings, ok_exit)
        for code, _, lines in parsed:
            if code not in known:
                continue
            found, reported_as = examples(lines)
            for role, (info, text) in found.items():
                expected = reported_as if role == "trigger" and reported_as else code
                directory = os.path.join(scratch, f"{code}_{role}")
                os.mkdir(directory)
                path = os.path.join(directory, "example.rx")
                if info == "console":
                    outputs, exits = "", True
                    for command in [l[2:] for l in text.splitlines() if l.startswith("$ ")]:
                        words = shlex.split(command)
                        # `raxc ...`, or `env NAME=VALUE... raxc ...` (an environment variable
                        # the example is about)
                        at = 0
                        if words and words[0] == "env":
                            at = 1
                            while at < len(words) and "=" in words[at]:
                                at += 1
                        if at < len(words) and words[at] == "raxc":
                            words[at] = raxc
                        p = subprocess.run(words, cwd=directory, capture_output=True, encoding="utf-8", errors="replace",
                                           timeout=120)
                        outputs += p.stdout + p.stderr
                        exits = exits and p.returncode == 0
                    results[(code, role)] = (*codes_in(outputs), exits, expected)
                    continue
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                if info == "rx":
                    plain.append((code, role, path, expected))
                    continue
                words = shlex.split(info)
                if words[1] == "check":
                    argv = [raxc, "check", "--diagnostics-format=json", *words[2:], path]
                else:
                    argv = [raxc, "run", "--diagnostics-format=json", path, *words[2:]]
                p = subprocess.run(argv, cwd=directory, capture_output=True, encoding="utf-8", errors="replace",
                                   timeout=300)
                results[(code, role)] = (*codes_in(p.stdout + p.stderr), p.returncode == 0,
                                         expected)
        if plain:
            p = subprocess.run([raxc, "check", "--diagnostics-format=json",
                                *[path for _, _, path, _ in plain]],
                               capture_output=True, encoding="utf-8", errors="replace", timeout=600)
            try:
                files = {entry["file"]: entry["diagnostics"] for entry in json.loads(p.stdout)}
            except (ValueError, KeyError, TypeError):
                return [f"raxc check printed no JSON (exit {p.returncode}): {p.stderr[:2000]}"]
            for code, role, path, expected in plain:
                diagnostics = files.get(path, [])
                found = {d["code"] for d in diagnostics}
                loud = {d["code"] for d in diagnostics if d["severity"] in ("error", "warning")}
                errors = any(d["severity"] == "error" for d in diagnostics)
                results[(code, role)] = (found, loud, not errors, expected)
        for (code, role), (found, loud, ok_exit, expected) in sorted(results.items()):
            if role == "trigger" and expected not in found:
                problems.append(f"{code}: the trigger does not report {expected} "
                                f"(it reports {sorted(found) or 'nothing'})")
            if role == "fix":
                if code in found:
                    problems.append(f"{code}: the fix still reports {code}")
                elif loud or not ok_exit:
                    problems.append(f"{code}: the fix is not clean: it reports "
                                    f"{sorted(loud) or 'no code'} (exit ok: {ok_exit})")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raxc", help="run every example with this raxc")
    options = parser.parse_args()
    codes = registry()
    parsed = sections(read(TEXT))
    problems = check_coverage(codes, parsed, exempted())
    if options.raxc:
        problems += run_examples(os.path.abspath(options.raxc), parsed, {c for c, _ in codes})
    covered = len({c for c, _, _ in parsed} & {c for c, _ in codes})
    print(f"{len(codes)} diagnostic codes, {covered} explained"
          + (", examples run" if options.raxc else ""))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
