#!/usr/bin/env python3
"""Language-server benchmark: `raxc lsp` on the large generated module, side by side with Debian's
clangd on a generated C++ file of similar size, in one run. Not a timed test: it
prints numbers and ratios.

    test/bench/lsp_bench.py --raxc build-release/raxc [--layers 72] [--edits 40] [--hovers 200]
                            [--no-clangd]

Measured for each server, over stdio like an editor:
  open        didOpen -> first publishDiagnostics
  keystroke   didChange (one character inserted or deleted inside a function, renaming a local
              so its uses become errors and then valid again) -> publishDiagnostics for that
              version; p50 / p95. raxc runs the sequence twice: with its default debounce
              (150 ms, what an editor sees) and with --debounce-ms=0 (the work after the
              debounce, the issue's target). clangd runs it once (its own debounce applies).
  hover       on local variables; p50 / p95
  tokens      semanticTokens/full: time and number of tokens
  broken      the keystrokes and hovers again while a function holds a half-typed line, and
              while a statement has a stray space before it (an unexpected indent)
  memory      VmRSS of the server after opening, split into anonymous memory and mapped files
              (and raxc/memoryUsage)
The keystrokes start 3 s after the first diagnostics (the user reads the file first).
Stdlib only.
"""
import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 120.0
PAUSE_AFTER_OPEN = 3.0  # seconds between the first diagnostics and the first keystroke


class Server:
    """A language server over stdio: framed JSON-RPC, responses and notifications timestamped."""

    def __init__(self, command, cwd=None):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=cwd)
        self.messages = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = out.read(length)
            self.messages.put((time.perf_counter(), json.loads(body)))

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, predicate, what):
        deadline = time.monotonic() + TIMEOUT
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {what} within {TIMEOUT} s")
            try:
                stamp, message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if message.get("method") in ("workspace/configuration", "window/workDoneProgress/create",
                                         "client/registerCapability"):
                self.send({"jsonrpc": "2.0", "id": message["id"],
                           "result": [None] if "configuration" in message["method"] else None})
                continue
            if predicate(message):
                return stamp, message

    def request(self, method, params):
        """Returns (seconds, result)."""
        self.next_id += 1
        rid = self.next_id
        started = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        stamp, message = self.wait(lambda m: m.get("id") == rid and "method" not in m,
                                   f"answer to {method}")
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return stamp - started, message.get("result")

    def rss_mib(self, field="VmRSS"):
        """VmRSS, or RssAnon (heap and stacks) / RssFile (mapped code and data)."""
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.kill()


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def diagnostics_for(server, uri, version):
    return server.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                       and m["params"]["uri"] == uri and m["params"].get("version") == version,
                       f"diagnostics of version {version}")


def session(command, text, uri, language, edit_sites, hover_sites, cwd=None, broken=None):
    """Plays the scripted session; returns a dict of measurements (seconds, MiB). With `broken`
    = (line, text), that text is then inserted as a line of its own (a half-typed statement) and
    the keystrokes and hovers are measured again while it stays there."""
    server = Server(command, cwd)
    try:
        root = "file://" + (cwd or os.getcwd())
        server.request("initialize", {
            "processId": os.getpid(), "rootUri": root,
            "capabilities": {"general": {"positionEncodings": ["utf-16"]},
                             "textDocument": {"publishDiagnostics": {"versionSupport": True},
                                              "hover": {"contentFormat": ["markdown"]},
                                              "semanticTokens": {
                                                  "requests": {"full": True},
                                                  "tokenTypes": [], "tokenModifiers": [],
                                                  "formats": ["relative"]}}}})
        server.notify("initialized", {})
        opened = time.perf_counter()
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": 1, "text": text}})
        stamp, first = diagnostics_for(server, uri, 1)
        result = {"open": stamp - opened, "open_diagnostics": len(first["params"]["diagnostics"])}
        # The user reads the file before typing: both servers finish their background work
        # (raxc prepares its second engine, clangd its preamble).
        time.sleep(PAUSE_AFTER_OPEN)
        result["rss"] = server.rss_mib()
        result["rss_anon"] = server.rss_mib("RssAnon")
        result["rss_file"] = server.rss_mib("RssFile")
        if command[0].endswith("raxc"):
            _, usage = server.request("raxc/memoryUsage", {})
            result["memory_usage"] = usage
        version, result["keystrokes"] = type_keystrokes(server, uri, 1, edit_sites)
        hovers = []
        for line, character in hover_sites:
            seconds, answer = server.request("textDocument/hover", {
                "textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
            if not answer:
                raise RuntimeError(f"no hover at {line}:{character}")
            hovers.append(seconds)
        result["hovers"] = hovers
        seconds, tokens = server.request("textDocument/semanticTokens/full",
                                         {"textDocument": {"uri": uri}})
        result["tokens"] = (seconds, len(tokens["data"]) // 5 if tokens else 0)
        if broken:
            version = measure_broken(server, uri, version, broken, edit_sites, hover_sites,
                                     result)
        return result
    finally:
        server.stop()


def type_keystrokes(server, uri, version, sites):
    """At each site one character typed and deleted again; the seconds from each didChange to
    the diagnostics of its version, and the last version sent."""
    keystrokes = []
    for line, character in sites:
        for change in ({"range": {"start": {"line": line, "character": character},
                                  "end": {"line": line, "character": character}},
                        "text": "x"},
                       {"range": {"start": {"line": line, "character": character},
                                  "end": {"line": line, "character": character + 1}},
                        "text": ""}):
            version += 1
            sent = time.perf_counter()
            server.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
            stamp, _ = diagnostics_for(server, uri, version)
            keystrokes.append(stamp - sent)
    return version, keystrokes


def measure_broken(server, uri, version, broken, edit_sites, hover_sites, result):
    """Keystrokes and hovers while one function holds a half-typed line: resilience must not
    cost speed. Hovers that find nothing are counted, not fatal."""
    at_line, line_text = broken
    version += 1
    server.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"range": {"start": {"line": at_line, "character": 0},
                                      "end": {"line": at_line, "character": 0}},
                            "text": line_text}]})
    diagnostics_for(server, uri, version)
    lines_added = line_text.count("\n")
    shift = lambda line: line + lines_added if line >= at_line else line  # noqa: E731
    version, keystrokes = type_keystrokes(server, uri, version,
                                          [(shift(line), c) for line, c in edit_sites])
    hovers, empty = [], 0
    for line, character in hover_sites:
        seconds, answer = server.request("textDocument/hover", {
            "textDocument": {"uri": uri},
            "position": {"line": shift(line), "character": character}})
        hovers.append(seconds)
        empty += 0 if answer else 1
    result["broken_keystrokes"], result["broken_hovers"] = keystrokes, hovers
    result["broken_empty_hovers"] = empty
    return version


# ------------------------------------------------------------------------ inputs

def relax_sites(text, edits, hovers):
    """Edit sites: after the name of `q2 = ...` in each layer; hover sites: binding names."""
    lines = text.split("\n")
    edit_sites, hover_sites = [], []
    for number, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith("q2 = R.call_tir"):
            edit_sites.append((number, indent + 2))
        if indent == 12 and " = R." in stripped and not stripped.startswith("R."):
            hover_sites.append((number, indent))
    return spread(edit_sites, edits), spread(hover_sites, hovers)


def spread(sites, count):
    if not sites:
        raise RuntimeError("no sites found in the generated input")
    step = max(1, len(sites) // count)
    return (sites[::step] * (count // max(1, len(sites[::step])) + 1))[:count]


def cpp_source(target_lines):
    """A deterministic C++ file of about `target_lines` lines: a tensor type and many functions
    whose bodies chain local variables, like the layers of the Relax module."""
    out = ["// generated by test/bench/lsp_bench.py", "struct Tensor {",
           "  float* data;", "  long rows, cols;", "};", "",
           "Tensor add(Tensor a, Tensor b) { return a.rows ? a : b; }",
           "Tensor mul(Tensor a, Tensor b) { return a.cols ? a : b; }",
           "Tensor proj(Tensor a, Tensor w, Tensor b) { return add(mul(a, w), b); }", ""]
    layer = 0
    while len(out) < target_lines:
        out.append(f"Tensor layer{layer}(Tensor x, Tensor w_q, Tensor w_k, Tensor w_v, "
                   f"Tensor b_q, Tensor b_k, Tensor b_v) {{")
        body = ["ln = add(x, x)", "q2 = proj(ln, w_q, b_q)", "k2 = proj(ln, w_k, b_k)",
                "v2 = proj(ln, w_v, b_v)", "scores = mul(q2, k2)", "probs = add(scores, scores)",
                "attn = mul(probs, v2)", "res = add(attn, x)", "up = proj(res, w_q, b_q)",
                "act = mul(up, up)", "down = proj(act, w_k, b_k)", "out = add(down, res)"]
        for repeat in range(2):
            for statement in body:
                name, value = statement.split(" = ")
                if repeat:
                    value = value.replace("(", "(", 1)
                    name = name + "_r"
                out.append(f"  Tensor {name} = {value};")
        out.append("  return add(out, out_r);")
        out.append("}")
        out.append("")
        layer += 1
    return "\n".join(out) + "\n"


def cpp_sites(text, edits, hovers):
    lines = text.split("\n")
    edit_sites, hover_sites = [], []
    for number, line in enumerate(lines):
        if line.startswith("  Tensor q2 = "):
            edit_sites.append((number, len("  Tensor q2")))
        if line.startswith("  Tensor ") and " = " in line:
            hover_sites.append((number, len("  Tensor ")))
    return spread(edit_sites, edits), spread(hover_sites, hovers)


# ------------------------------------------------------------------------ report

def ms(seconds):
    return seconds * 1000


def row(label, raxc, clangd, unit="ms", target=""):
    if not isinstance(clangd, (int, float)):
        clangd = None  # no anchor (--no-clangd): `c and ...` gives {}
    ratio = f"{raxc / clangd:8.2f}x" if clangd else "        -"
    clangd_text = f"{clangd:10.2f}" if clangd is not None else "         -"
    print(f"  {label:38s} {raxc:10.2f} {clangd_text} {ratio}  {unit:4s} {target}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raxc", required=True)
    parser.add_argument("--layers", type=int, default=72)
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--hovers", type=int, default=200)
    parser.add_argument("--no-clangd", action="store_true")
    args = parser.parse_args()
    raxc = os.path.abspath(args.raxc)

    model = subprocess.run([sys.executable, os.path.join(HERE, "gen_model.py"), "--layers",
                            str(args.layers)], check=True, capture_output=True, text=True).stdout
    lines = model.count("\n")
    edit_sites, hover_sites = relax_sites(model, args.edits, args.hovers)
    workdir = tempfile.mkdtemp(prefix="raxc-lsp-bench-")
    try:
        uri = "file://" + os.path.join(workdir, "model.rx")
        print(f"input: generated Relax module, {lines} lines, {len(model) / 1e6:.1f} MB; "
              f"{args.edits} edit sites x 2 keystrokes, {args.hovers} hovers")
        typed = session([raxc, "lsp"], model, uri, "relax", edit_sites, hover_sites)
        # The same with a half-typed line in the function of the first edit site.
        after = session([raxc, "lsp", "--debounce-ms=0"], model, uri, "relax", edit_sites,
                        hover_sites, broken=(edit_sites[0][0], " " * 12 + "zz = R.nn.\n"))
        # The same with a stray space before a statement (an unexpected indent).
        stray = session([raxc, "lsp", "--debounce-ms=0"], model, uri, "relax", edit_sites,
                        hover_sites, broken=(edit_sites[0][0], " "))

        clangd = None
        clangd_path = shutil.which("clangd")
        if args.no_clangd:
            print("clangd: skipped (--no-clangd)")
        elif not clangd_path:
            print("clangd: not found, the anchor is skipped (Debian package clangd)")
        else:
            source = cpp_source(lines)
            with open(os.path.join(workdir, "model.cpp"), "w") as f:
                f.write(source)
            with open(os.path.join(workdir, "compile_flags.txt"), "w") as f:
                f.write("-std=c++17\n")
            version = subprocess.run([clangd_path, "--version"], capture_output=True,
                                     text=True).stdout.splitlines()[0]
            print(f"anchor: {version} on a generated C++ file, {source.count(chr(10))} lines")
            c_edits, c_hovers = cpp_sites(source, args.edits, args.hovers)
            clangd = session([clangd_path, "--log=error", "--background-index=false",
                              "-j=2", "--pch-storage=memory"], source,
                             "file://" + os.path.join(workdir, "model.cpp"), "cpp", c_edits,
                             c_hovers, cwd=workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    c = clangd or {}
    print()
    print(f"  {'measure':38s} {'raxc':>10s} {'clangd':>10s} {'ratio':>9s}  unit target")
    row("open -> first diagnostics", ms(typed["open"]), c and ms(c["open"]))
    for name, p in (("p50", 50), ("p95", 95)):
        row(f"keystroke -> diagnostics {name}", ms(percentile(typed["keystrokes"], p)),
            c and ms(percentile(c["keystrokes"], p)), "ms", "(includes raxc's 150 ms debounce)")
    for name, p in (("p50", 50), ("p95", 95)):
        row(f"  after the debounce {name}", ms(percentile(after["keystrokes"], p)), None, "ms",
            "< 20 ms (p95)" if p == 95 else "")
    for name, p in (("p50", 50), ("p95", 95)):
        row(f"hover {name}", ms(percentile(typed["hovers"], p)),
            c and ms(percentile(c["hovers"], p)), "ms", "< 5 ms (p95)" if p == 95 else "")
    print(f"\n  {'while a function is broken (zz = R.nn.)':38s} {'broken':>10s} {'clean':>10s}"
          f" {'ratio':>9s}")
    for name, p in (("p50", 50), ("p95", 95)):
        row(f"  keystroke after the debounce {name}",
            ms(percentile(after["broken_keystrokes"], p)), ms(percentile(after["keystrokes"], p)))
    for name, p in (("p50", 50), ("p95", 95)):
        row(f"  hover {name}", ms(percentile(after["broken_hovers"], p)),
            ms(percentile(after["hovers"], p)))
    print(f"  hovers with no answer while broken: {after['broken_empty_hovers']} of "
          f"{len(after['broken_hovers'])}")
    for name, p in (("p50", 50), ("p95", 95)):
        row(f"  with a stray indent instead, {name}",
            ms(percentile(stray["broken_keystrokes"], p)), ms(percentile(after["keystrokes"], p)))
    print(f"  hovers with no answer with the stray indent: {stray['broken_empty_hovers']} of "
          f"{len(stray['broken_hovers'])}\n")
    row("semanticTokens/full", ms(typed["tokens"][0]), c and ms(c["tokens"][0]), "ms",
        "<= 0.5x clangd")
    row("  tokens", typed["tokens"][1], c and c["tokens"][1], "")
    row("resident memory after opening", typed["rss"], c and c["rss"], "MiB", "<= clangd")
    row("  of it anonymous (heap, stacks)", typed["rss_anon"], c and c["rss_anon"], "MiB")
    row("  of it mapped files (code)", typed["rss_file"], c and c["rss_file"], "MiB")
    usage = typed.get("memory_usage") or {}
    print(f"\nraxc/memoryUsage: residentBytes {usage.get('residentBytes')}, "
          f"engines {usage.get('engines')}; diagnostics at open: raxc {typed['open_diagnostics']}"
          f", clangd {c.get('open_diagnostics', '-')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
