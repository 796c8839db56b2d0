#!/usr/bin/env python3
"""Every code in frontend/diagnostics.def needs a test that triggers it and a near miss.

TRIGGER. A code is triggered when a golden case expects it (`# expect-error RX2003`,
`expect-warning`, `expect-note`, with or without `@+N`). A code that no golden case can trigger
(`raxc check FILE` on .rx text never reports it: an earlier frontend check pre-empts it, or it
needs a command-line flag) must be listed, with a one-line reason, in
test/meta/golden_exemptions.txt; it then counts as triggered when a Catch2 unit test
(test/unit/*.cpp) or a CLI / LSP test script (test/cli, test/run, test/build, test/lsp, the editors' protocol and
Neovim tests) names it. An exempted code that a golden case does trigger is reported as a stale
exemption.

NEAR MISS. A near miss is a program close to the trigger that must NOT report the code; the
golden runner already fails when a case reports anything it does not expect, and the unit tests
check their own near misses. A code has one when any of these names it:
  1. a golden file `rxNNNN_ok.rx` or `rxNNNN_<anything>_ok.rx` (for RXNNNN) that does not expect
     the code itself;
  2. a comment block in a golden case (consecutive `#` lines, expectations excluded, or one
     trailing comment) that says "near miss" (also "near-miss", "near misses") and names the code,
     e.g. `# RX3002: wrong number of arguments; near miss: the right number.` or
     `# near miss (RX2032): parameters only`;
  3. any comment naming the code in a golden file whose name contains `near_miss` (a file of
     valid programs only; it must not expect the code);
  4. for codes with a unit-test or CLI-test near miss: the title of a Catch2 `TEST_CASE(...)` or
     `SECTION(...)` in test/unit/*.cpp that says "near miss" and names the code, e.g.
     `SECTION("RX2010 near miss: a dataflow variable bound inside its dataflow block")`, or a
     `#` comment line in test/cli/*.sh, test/run/*.sh or test/build/*.sh that says "near miss" and names the code (the checks that
     follow it assert the code is absent).

Prints what is missing and exits 1 when anything is.
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXEMPTIONS = os.path.join(ROOT, "test", "meta", "golden_exemptions.txt")

CODE = re.compile(r"RX\d{4}")
EXPECT = re.compile(r"expect-(?:error|warning|note)(?:@[+-]\d+)?\s+(RX\d{4})")
NEAR_MISS = re.compile(r"near[- ]miss", re.I)
OK_FILE = re.compile(r"^rx(\d{4})(?:_\w+)?_ok\.rx$")
CATCH2_TITLE = re.compile(r'\b(?:TEST_CASE|SECTION)\s*\(\s*"((?:[^"\\]|\\.)*)"')


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def comment_blocks(text):
    """Own-line comment blocks (expectation lines cut them) and single trailing comments."""
    blocks, current = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#") and not EXPECT.search(stripped):
            current.append(stripped)
            continue
        if current:
            blocks.append(" ".join(current))
            current = []
        if "#" in line and not stripped.startswith("#"):
            trailing = line[line.index("#"):]
            if not EXPECT.search(trailing):
                blocks.append(trailing)
    if current:
        blocks.append(" ".join(current))
    return blocks


def read_exemptions():
    """{code: reason} from golden_exemptions.txt (`RXnnnn  reason`, '#' comments)."""
    exemptions, problems = {}, []
    for number, line in enumerate(read(EXEMPTIONS).splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^(RX\d{4})\s+(\S.*)$", line)
        if not m:
            problems.append(f"golden_exemptions.txt:{number}: expected 'RXnnnn  reason'")
            continue
        exemptions[m.group(1)] = m.group(2)
    return exemptions, problems


def main():
    registry = read(os.path.join(ROOT, "frontend", "diagnostics.def"))
    codes = re.findall(r"^RAXC_DIAG\((RX\d{4}),", registry, re.M)
    known = set(codes)
    exemptions, problems = read_exemptions()
    problems += [f"golden_exemptions.txt: {c} is not in the registry"
                 for c in exemptions if c not in known]

    expected, near_missed = set(), set()
    for path in glob.glob(os.path.join(ROOT, "test/cases/**/*.rx"), recursive=True):
        text = read(path)
        name = os.path.basename(path)
        in_file = set(EXPECT.findall(text))
        expected |= in_file
        m = OK_FILE.match(name)
        if m and f"RX{m.group(1)}" not in in_file:
            near_missed.add(f"RX{m.group(1)}")
        for block in comment_blocks(text):
            named = set(CODE.findall(block))
            if "near_miss" in name:
                near_missed |= named - in_file
            elif NEAR_MISS.search(block):
                near_missed |= named

    scripts = []
    for pattern in ("test/unit/*.cpp", "test/cli/*.sh", "test/run/*.sh", "test/build/*.sh",
                    "test/onnx/*.sh", "test/lsp/*.py",
                    "editors/vscode/test/protocol/*.js", "test/editors/**/*.lua"):
        scripts += glob.glob(os.path.join(ROOT, pattern), recursive=True)
    named_in_tests = set()
    for path in scripts:
        text = read(path)
        named_in_tests |= set(CODE.findall(text))
        if path.endswith(".cpp"):
            for title in CATCH2_TITLE.findall(text):
                if NEAR_MISS.search(title):
                    near_missed |= set(CODE.findall(title))
        elif path.endswith(".sh"):  # test/cli and test/run scripts
            for line in text.splitlines():
                if line.lstrip().startswith("#") and NEAR_MISS.search(line):
                    near_missed |= set(CODE.findall(line))

    untriggered, stale, unit_only = [], [], []
    for c in codes:
        if c in exemptions:
            if c in expected:
                stale.append(c)
            elif c in named_in_tests:
                unit_only.append(c)
            else:
                untriggered.append(c)
        elif c not in expected:
            untriggered.append(c)
    without_near_miss = [c for c in codes if c not in near_missed]
    # `raxc explain`: every code has its section (test/meta/explain_examples.py runs them).
    explained = set(re.findall(r"^## (RX\d{4})\b",
                               read(os.path.join(ROOT, "frontend", "diagnostics_explained.md")),
                               re.M))
    problems += [f"no explanation: {c} (add a '## {c}' section to "
                 f"frontend/diagnostics_explained.md)" for c in codes if c not in explained]

    print(f"{len(codes)} diagnostic codes: {len(expected & known)} triggered by golden cases, "
          f"{len(unit_only)} exempted and triggered by unit/CLI/LSP tests, "
          f"{len(untriggered)} not triggered; {len(known & near_missed)} with a near miss, "
          f"{len(without_near_miss)} without")
    for p in problems:
        print(p)
    for c in untriggered:
        reason = ("exempted from golden cases but no unit/CLI/LSP test names it"
                  if c in exemptions else
                  "no golden case expects it (add one, or list it in golden_exemptions.txt "
                  "with the reason no .rx text can trigger it)")
        print(f"untested: {c}: {reason}")
    for c in stale:
        print(f"stale exemption: {c} is triggered by a golden case; remove it from "
              f"golden_exemptions.txt")
    for c in without_near_miss:
        print(f"no near miss: {c}")
    return 1 if problems or untriggered or stale or without_near_miss else 0


if __name__ == "__main__":
    sys.exit(main())
