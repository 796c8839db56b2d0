#!/usr/bin/env python3
"""Typing replay: binding lines of real programs typed into `raxc lsp` one character at a time,
as a person types them, with every state analysed. At every state:

  - the server is alive;
  - every other binding of the file that does not depend on the line being typed keeps the
    StructInfo it has in the finished file (asked with hover on its name);
  - completion at the cursor is non-empty wherever an expression may start (after `= `, `(`
    and `, `).

Two ways of typing: as in Neovim (brackets typed one by one) and as in VS Code (an opening
bracket or quote inserts its pair, typing the closing one steps over it).

    test/lsp/typing_replay.py --raxc build/raxc [--full] [--floor test/lsp/typing_floor.json]

By default a bounded sample (a few lines of each file) runs, as in the test suite; --full types
every binding line of every file (the benchmark). With --floor, the share of kept StructInfo and
of useful completions must not fall below the tracked figures. Stdlib only."""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import run_sessions  # noqa: E402  (the Session client)

FILES = ["examples/mlp.rx", "test/editors/fixtures/clean.rx",
         "test/cases/infer/control.rx", "test/cases/infer/calls.rx",
         "test/cases/infer/unannotated.rx"]
BINDING = re.compile(r"^(\s+)([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)\s*(.*)$")
WORD = re.compile(r"[A-Za-z_]\w*")


def relax_bindings(text):
    """(line, name, value) of each binding line inside an @R.function (not T.prim_func)."""
    out, in_relax = [], False
    for i, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if stripped.startswith("@R.function"):
            in_relax = True
        elif stripped.startswith("@T.prim_func") or stripped.startswith("@I.") or \
                stripped.startswith("class "):
            in_relax = False
        m = BINDING.match(line)
        if in_relax and m and not stripped.startswith(("def ", "return", "R.")):
            out.append((i, m.group(2), m.group(3)))
    return out


def dependents(bindings, typed_name):
    """Names whose value mentions `typed_name`, directly or through another such name."""
    tainted, changed = {typed_name}, True
    while changed:
        changed = False
        for _, name, value in bindings:
            if name not in tainted and tainted & set(WORD.findall(value)):
                tainted.add(name)
                changed = True
    return tainted


def hover_sinfo(s, uri, line, character):
    h = s.result("textDocument/hover", {"textDocument": {"uri": uri},
                                        "position": {"line": line, "character": character}})
    if not h:
        return None
    value = h["contents"]["value"]
    code = value.split("```python\n", 1)[-1].split("\n", 1)[0]
    return code.split(": ", 1)[1] if ": " in code else None


class Replay:
    def __init__(self, raxc):
        run_sessions.RAXC = raxc
        self.figures = {}
        self.crashes = []

    def count(self, mode, key, ok):
        f = self.figures.setdefault(mode, {"states": 0, "kept": 0, "bindings": 0,
                                           "completion_ok": 0, "completion_asked": 0})
        if key == "kept":
            f["bindings"] += 1
            f["kept"] += int(ok)
        elif key == "completion":
            f["completion_asked"] += 1
            f["completion_ok"] += int(ok)
        else:
            f["states"] += 1

    def type_line(self, path, text, bindings, index, mode):
        line, name, _ = bindings[index]
        lines = text.splitlines(keepends=True)
        typed = lines[line].rstrip("\n")
        indent = len(typed) - len(typed.lstrip())
        base = "".join(lines[:line]) + typed[:indent] + "\n" + "".join(lines[line + 1:])
        uri = "file:///replay/" + os.path.basename(path)
        tainted = dependents(bindings, name)
        s = run_sessions.Session("--debounce-ms", "0")
        try:
            s.initialize()
            s.open(uri, text)
            s.diagnostics(uri, 1)
            expected = {}
            for (l, n, _) in bindings:
                if n not in tainted:
                    col = lines[l].index(n)
                    expected[(l, n)] = (col, hover_sinfo(s, uri, l, col))
            s.change(uri, 2, [{"text": base}])
            s.diagnostics(uri, 2)
            version, cursor, current = 2, indent, typed[:indent]
            for ch in typed[indent:]:
                version += 1
                after = base.splitlines()[line][cursor:] if cursor < len(typed) else ""
                pairs = {"(": ")", "[": "]", "{": "}", '"': '"'}
                if mode == "vscode" and after[:1] == ch and ch in ")]}\"":
                    cursor += 1  # step over the auto-inserted closer
                    current = current[:cursor]
                    continue
                insert = ch + (pairs[ch] if mode == "vscode" and ch in pairs else "")
                s.change(uri, version, [run_sessions.change_range(line, cursor, line, cursor,
                                                                  insert)])
                base_lines = base.splitlines(keepends=True)
                base_lines[line] = base_lines[line][:cursor] + insert + base_lines[line][cursor:]
                base = "".join(base_lines)
                cursor += 1
                current = base.splitlines()[line][:cursor]
                s.diagnostics(uri, version)
                self.count(mode, "state", True)
                for (l, n), (col, sinfo) in expected.items():
                    if sinfo is None:
                        continue
                    self.count(mode, "kept", hover_sinfo(s, uri, l, col) == sinfo)
                if current.endswith(("= ", "(", ", ")):
                    items = s.result("textDocument/completion", {
                        "textDocument": {"uri": uri},
                        "position": {"line": line, "character": cursor}})
                    self.count(mode, "completion", bool(items))
            assert s.finish() == 0
        except Exception as e:  # the server died or stopped answering
            self.crashes.append("%s line %d (%s): %s" % (path, line + 1, mode, e))
        finally:
            stderr = s.close()
            if "Sanitizer" in stderr or "runtime error:" in stderr:
                self.crashes.append("%s line %d (%s): sanitizer report" % (path, line + 1, mode))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raxc", required=True)
    parser.add_argument("--full", action="store_true", help="every binding line of every file")
    parser.add_argument("--floor", help="JSON file of figures that may not fall")
    args = parser.parse_args()
    replay = Replay(os.path.abspath(args.raxc))
    for path in FILES:
        full = os.path.join(ROOT, path)
        if not os.path.exists(full):
            continue
        text = open(full).read()
        bindings = relax_bindings(text)
        chosen = range(len(bindings)) if args.full else sorted(
            {len(bindings) // 2, len(bindings) - 1} if bindings else set())
        for index in chosen:
            for mode in ("nvim", "vscode"):
                replay.type_line(path, text, bindings, index, mode)
    report = {}
    for mode, f in replay.figures.items():
        report[mode] = {
            "states": f["states"],
            "binding_checks": f["bindings"],
            "kept_struct_info": round(f["kept"] / max(f["bindings"], 1), 4),
            "completion_where_an_expression_starts": round(
                f["completion_ok"] / max(f["completion_asked"], 1), 4)}
    print(json.dumps(report, indent=2, sort_keys=True))
    failed = False
    for crash in replay.crashes:
        print("CRASH", crash)
        failed = True
    if args.floor:
        floor = json.load(open(args.floor))
        for mode, figures in floor.items():
            for key, minimum in figures.items():
                got = report.get(mode, {}).get(key, 0)
                if got + 1e-9 < minimum:
                    print("FELL %s %s: %.4f < %.4f" % (mode, key, got, minimum))
                    failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
