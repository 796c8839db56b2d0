#!/usr/bin/env python3
"""Every run golden through `raxc build`: each `# run:` line of test/cases/run/*.rx that `raxc run`
runs successfully is run again through a library built from the same file (`raxc build`, the
whole file, or `--entry` when a function of it is refused), called by raxc_build_runner with the
same argument words, and the two results must be the same JSON (floats within 1e-6 relative),
after the same R.print output.
A function the build refuses must be refused with RX5040 ("raxc build does not compile X yet"),
never anything else; the refusals are counted by construct.

usage: run_goldens.py RAXC RUNNER CASES_DIR WORK_DIR
"""
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import json_results  # noqa: E402  (test/json_results.py)

RUN_ONLY = {"--threads", "--repeat", "--check-bounds", "--save", "--output-format"}


def split_output(stdout):
    """(the lines R.print wrote, the JSON result on the last line)"""
    lines = stdout.rstrip("\n").split("\n")
    return "\n".join(lines[:-1]), json.loads(lines[-1])


def split_entry(words):
    entry, rest, skip = "main", [], False
    for i, w in enumerate(words):
        if skip:
            skip = False
            continue
        if w == "--entry":
            entry, skip = words[i + 1], True
        else:
            rest.append(w)
    return entry, rest


def build(raxc, path, lib, extra):
    return subprocess.run([raxc, "build", path, *extra, "-o", lib, "--color", "never"],
                          capture_output=True, text=True, timeout=300)


def main():
    raxc, runner, cases, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    passed, failed, refused = 0, 0, {}
    built = {}
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".rx"):
            continue
        path = os.path.join(cases, name)
        for line in open(path, encoding="utf-8"):
            if not line.startswith("# run:"):
                continue
            words = shlex.split(line[len("# run:"):])
            if any(w in RUN_ONLY for w in words):
                continue
            entry, args = split_entry(words)
            ran = subprocess.run([raxc, "run", path, "--entry", entry, *args,
                                  "--output-format", "json"], cwd=cases,
                                 capture_output=True, text=True, timeout=120)
            if ran.returncode != 0:
                continue  # an error golden: raxc run refuses these inputs
            # One library per file (every public function) when the whole file builds; else one
            # per entry, so that a refused function does not hide the others.
            stem = re.sub(r"\W", "_", name[:-3])
            if name not in built:
                lib = os.path.join(work, "lib%s.so" % stem)
                built[name] = (lib, build(raxc, path, lib, []))
            lib, b = built[name]
            if b.returncode != 0:
                key = (name, entry)
                if key not in built:
                    lib = os.path.join(work, "lib%s_%s.so" % (stem, entry))
                    built[key] = (lib, build(raxc, path, lib, ["--entry", entry]))
                lib, b = built[key]
            if b.returncode != 0:
                m = re.search(r"raxc build does not compile (.*?) yet", b.stderr)
                if b.returncode == 1 and "RX5040" in b.stderr and m:
                    refused[m.group(1)] = refused.get(m.group(1), 0) + 1
                    continue
                print("FAIL %s --entry %s: raxc build exited %d:\n%s" % (name, entry, b.returncode, b.stderr))
                failed += 1
                continue
            r = subprocess.run([runner, lib, path, entry, *args], cwd=cases,
                               capture_output=True, text=True, timeout=120)
            # What R.print wrote comes first; the result is the last line.
            want_printed, want = split_output(ran.stdout)
            try:
                got_printed, got = split_output(r.stdout) if r.returncode == 0 else ("", None)
            except json.JSONDecodeError:
                got_printed, got = "", None
            if got is None or not json_results.close(want, got, 1e-6) or got_printed != want_printed:
                print("FAIL %s --entry %s %s: raxc run gave %s, the library %s (exit %d) %s" % (
                    name, entry, " ".join(args), ran.stdout.strip()[:300], r.stdout.strip()[:300],
                    r.returncode, r.stderr.strip()[:300]))
                failed += 1
            else:
                passed += 1
    for what, n in sorted(refused.items()):
        print("refused (RX5040) %d run(s): %s" % (n, what))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
