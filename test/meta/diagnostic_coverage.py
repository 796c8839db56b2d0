#!/usr/bin/env python3
"""Every code in frontend/diagnostics.def must be triggered by at least one test.

A code counts as tested when a golden case expects it (`# expect-error RX2003`, `expect-warning`,
`expect-note`, with or without `@+N`), or when a Catch2 unit test (test/unit/*.cpp) or a CLI /
LSP test script (test/cli, test/lsp, editors' protocol tests) names it in a check. Prints the
untested codes and exits 1 when there are any.
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def main():
    registry = read(os.path.join(ROOT, "frontend", "diagnostics.def"))
    codes = re.findall(r'^RAXC_DIAG\((RX\d{4}),', registry, re.M)
    golden = "".join(read(p) for p in glob.glob(os.path.join(ROOT, "test/cases/**/*.rx"),
                                                   recursive=True))
    expected = set(re.findall(r"expect-(?:error|warning|note)(?:@[+-]\d+)?\s+(RX\d{4})", golden))
    scripts = []
    for pattern in ("test/unit/*.cpp", "test/cli/*.sh", "test/lsp/*.py",
                    "editors/vscode/test/protocol/*.js", "test/editors/**/*.lua"):
        scripts += glob.glob(os.path.join(ROOT, pattern), recursive=True)
    named = set(re.findall(r"RX\d{4}", "".join(read(p) for p in scripts)))
    untested = [c for c in codes if c not in expected and c not in named]
    print(f"{len(codes)} diagnostic codes: {len(expected & set(codes))} in golden cases, "
          f"{len(set(codes) - expected - set(untested))} only in unit/CLI/LSP tests, "
          f"{len(untested)} untested")
    for c in untested:
        print(f"untested: {c}")
    return 1 if untested else 0


if __name__ == "__main__":
    sys.exit(main())
