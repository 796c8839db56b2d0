#!/usr/bin/env python3
"""The language server under stress: thousands of random incremental edits, typed the way a
person's editor sends them (single characters and tokens, multi-byte and astral characters,
CRLF line ends, deletions, ranges that run past the end of a line or of the file), interleaved
with every request the server supports, cancellations and malformed frames.

What must hold:
  - the server stays up and answers every request with a result or a proper error;
  - its final diagnostics equal `raxc check` of the final text (codes and ranges);
  - its resident memory after the last edit stays within --memory-ratio of the memory after
    the first 100 edits (it grows with the text, not with the number of edits).

    test/lsp/stress.py --raxc build/raxc [--edits 3000] [--seed 1] [--memory-ratio 1.2]

The client keeps its own copy of the text, applying each change with the clamping rules of
the protocol (UTF-16 positions), so the final text is known without asking the server.
Stdlib only."""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import run_sessions  # noqa: E402  (the Session client)

# What gets typed: the language's tokens, names, numbers, and characters that are more than one
# UTF-8 byte or UTF-16 unit, plus line ends of both kinds.
TOKENS = ["R.add(", "R.matmul(", "x", "y", "lv", "(", ")", "[", "]", ", ", " = ", ":", "\n",
          "\r\n", "        ", "R.Tensor((2, 3), \"float32\")", "return ", "with R.dataflow():",
          "R.output(", "T.int64()", "é", "𝔘", "\"", "#", "0", "1.5", "-", "*", "//", "@",
          "def ", "cls.", "R.const(1, \"float32\")", " ", "\t", "n", "m"]

REQUESTS = ["textDocument/hover", "textDocument/definition", "textDocument/references",
            "textDocument/documentHighlight", "textDocument/completion",
            "textDocument/signatureHelp", "textDocument/documentSymbol",
            "textDocument/foldingRange", "textDocument/semanticTokens/full",
            "textDocument/inlayHint", "textDocument/codeAction", "textDocument/formatting",
            "textDocument/rangeFormatting", "textDocument/selectionRange",
            "textDocument/prepareRename", "textDocument/rename", "textDocument/diagnostic"]


def utf16_units(line):
    return len(line.encode("utf-16-le")) // 2


def split_keep(text):
    """(begin, content end, end) of each line: \\n and \\r\\n end a line (a lone \\r does not, as
    in the server and in Python source)."""
    lines, start = [], 0
    while True:
        nl = text.find("\n", start)
        if nl < 0:
            lines.append((start, len(text), len(text)))
            return lines
        content_end = nl - 1 if nl > start and text[nl - 1] == "\r" else nl
        lines.append((start, content_end, nl + 1))
        start = nl + 1


def offset_of(text, position):
    """The character offset of an LSP position (UTF-16), clamped to the line and the file."""
    lines = split_keep(text)
    line = position["line"]
    if line >= len(lines):
        return len(text)
    begin, content_end, _ = lines[line]
    units = 0
    for i in range(begin, content_end):
        if units >= position["character"]:
            return i
        units += utf16_units(text[i])
    return content_end


def position_of(text, offset):
    lines = split_keep(text)
    for n, (begin, content_end, end) in enumerate(lines):
        if offset < end or n == len(lines) - 1:
            return {"line": n, "character": utf16_units(text[begin:min(offset, content_end)])}


def random_position(rng, text, past_end=0.05):
    lines = split_keep(text)
    if rng.random() < past_end:
        # Past the end of a line, or of the file: the server clamps.
        return {"line": rng.randrange(len(lines) + 2), "character": rng.randrange(200)}
    offset = rng.randrange(len(text) + 1)
    return position_of(text, offset)


def random_change(rng, text):
    start = random_position(rng, text)
    a = offset_of(text, start)
    kind = rng.random()
    if kind < 0.7:  # typing: insert at the cursor
        end, new = start, rng.choice(TOKENS)
    elif kind < 0.92:  # deleting a few characters (backspace, a selection)
        b = min(len(text), a + rng.randrange(1, 6))
        end, new = position_of(text, b), ""
    else:  # replacing a range of a line or two, often running past the end of its line
        end = {"line": start["line"] + (rng.random() < 0.2), "character": rng.randrange(120)}
        if offset_of(text, end) < a:
            start, end = end, start
        new = rng.choice(TOKENS)
    a, b = offset_of(text, start), offset_of(text, end)
    # Never split a surrogate pair or a CRLF the way no editor would: the positions above come
    # from whole characters, so the slices are whole characters too.
    return {"range": {"start": start, "end": end}, "text": new}, text[:a] + new + text[b:]


def request_params(rng, method, uri, text):
    doc = {"uri": uri}
    position = random_position(rng, text)
    if method in ("textDocument/documentSymbol", "textDocument/foldingRange",
                  "textDocument/semanticTokens/full", "textDocument/diagnostic"):
        return {"textDocument": doc}
    if method == "textDocument/formatting":
        return {"textDocument": doc, "options": {"tabSize": 4, "insertSpaces": True}}
    if method in ("textDocument/rangeFormatting", "textDocument/inlayHint",
                  "textDocument/codeAction"):
        other = random_position(rng, text)
        params = {"textDocument": doc, "range": {"start": position, "end": other}}
        if method == "textDocument/rangeFormatting":
            params["options"] = {}
        if method == "textDocument/codeAction":
            params["context"] = {"diagnostics": []}
        return params
    if method == "textDocument/selectionRange":
        return {"textDocument": doc, "positions": [position, random_position(rng, text)]}
    params = {"textDocument": doc, "position": position}
    if method == "textDocument/references":
        params["context"] = {"includeDeclaration": rng.random() < 0.5}
    if method == "textDocument/rename":
        params["newName"] = rng.choice(["renamed", "z9", "é"])
    return params


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def check_diagnostics(raxc, text):
    """(code, start, end) of `raxc check`'s JSON diagnostics for `text`."""
    with tempfile.NamedTemporaryFile("w", suffix=".rx", delete=False, newline="") as f:
        f.write(text)
    try:
        out = subprocess.run([raxc, "check", "--diagnostics-format=json", "--error-limit", "0",
                              f.name], capture_output=True, text=True).stdout
    finally:
        os.unlink(f.name)
    found = json.loads(out)
    items = found[0]["diagnostics"] if isinstance(found, list) else found["diagnostics"]
    return items


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raxc", required=True)
    parser.add_argument("--edits", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--memory-ratio", type=float, default=1.2)
    args = parser.parse_args()
    run_sessions.RAXC = os.path.abspath(args.raxc)
    rng = random.Random(args.seed)

    s = run_sessions.Session()
    s.initialize({"general": {"positionEncodings": ["utf-16"]}})
    uri = "file:///stress/mlp.rx"
    text = open(os.path.join(ROOT, "examples", "mlp.rx"), encoding="utf-8").read()
    s.open(uri, text)
    s.diagnostics(uri, 1)
    pending, version, memory_at_100, changes = [], 1, None, []
    for i in range(args.edits):
        change, text = random_change(rng, text)
        changes.append(change)
        version += 1
        s.change(uri, version, [change])
        if rng.random() < 0.15:
            method = rng.choice(REQUESTS)
            rid = s.request_async(method, request_params(rng, method, uri, text))
            pending.append((rid, method))
            if rng.random() < 0.1:
                s.notify("$/cancelRequest", {"id": rid})
        if rng.random() < 0.005:  # a malformed frame: bad JSON under a correct header
            s.write(b"Content-Length: 9\r\n\r\n{\"id\": 1,")
        if i == 100:
            memory_at_100 = rss_kib(s.proc.pid)
    # Every request gets a response: a result, or an error with a code. (Session.wait drops
    # what it passes over into s.seen: look there first.)
    def reply_to(rid):
        for m in s.seen:
            if m.get("id") == rid and "method" not in m:
                return m
        return s.response(rid, timeout=60)
    for rid, method in pending:
        reply = reply_to(rid)
        assert "result" in reply or ("error" in reply and "code" in reply["error"]), (method, reply)
    published = [m for m in s.seen if m.get("method") == "textDocument/publishDiagnostics"
                 and m["params"].get("version") == version]
    final = (published[-1]["params"] if published
             else s.diagnostics(uri, version, timeout=60))["diagnostics"]
    memory_at_end = rss_kib(s.proc.pid)
    assert s.finish() == 0, "the server did not shut down cleanly"

    expected = check_diagnostics(args.raxc, text)
    got = sorted((d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
                 for d in final)
    want = sorted((d["code"], d["range"]["start"]["line"] - 1, None) for d in expected)
    got_lines = sorted((code, line) for code, line, _ in got)
    want_lines = sorted((code, line) for code, line, _ in want)
    if got_lines != want_lines:
        with open("stress-final.rx", "w", newline="") as f:
            f.write(text)
        with open("stress-changes.json", "w") as f:
            json.dump(changes, f)
        raise AssertionError("final diagnostics differ from raxc check (the text is in "
                             "stress-final.rx, the changes in stress-changes.json):\nserver: %s\ncheck:  %s" % (got_lines, want_lines))
    ratio = memory_at_end / max(memory_at_100, 1)
    print("stress: %d edits, %d requests (every one answered), final text %d lines, "
          "%d diagnostics equal to raxc check; RSS %d KiB after 100 edits, %d KiB after %d "
          "(x%.2f)" % (args.edits, len(pending), len(split_keep(text)), len(final),
                       memory_at_100, memory_at_end, args.edits, ratio))
    assert ratio <= args.memory_ratio, "memory grew x%.2f (limit x%.2f)" % (ratio,
                                                                           args.memory_ratio)


if __name__ == "__main__":
    main()
