#!/usr/bin/env python3
"""Session tests for `raxc lsp`: each test spawns the real server, plays a scripted session over
stdio (raw bytes where framing is under test) and checks the replies and notifications.

    test/lsp/run_sessions.py --raxc build/raxc [-k substring] [-v]

Exit status 0 when every session passes. Stdlib only (the node protocol tests live in
editors/vscode)."""
import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback

RAXC = None
TIMEOUT = 20.0

VALID = """# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            y = x
            R.output(y)
        return y
"""

BROKEN = VALID.replace("y = x", "y = x +")

# Globals, a shape variable, an operator call and a possibly-compatible call (RX4001 with the
# parameter as related information). Line numbers are 0-based, as in LSP.
NAV = """# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def helper(a: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        return a

    @R.function
    def main(x: R.Tensor(("n", 3), dtype="float32")) -> R.Tensor(("n", 3), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            y = R.add(x, x)
            R.output(y)
        z = cls.helper(x)
        return y
"""


def pos(text, line, needle, nth=0):
    """The LSP position (UTF-16) of the nth occurrence of `needle` on 0-based `line`."""
    line_text = text.splitlines()[line]
    at = -1
    for _ in range(nth + 1):
        at = line_text.index(needle, at + 1)
    return {"line": line, "character": len(line_text[:at].encode("utf-16-le")) // 2}


def frame(payload):
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Session:
    """A client over one `raxc lsp` process."""

    def __init__(self, *args):
        # stderr goes to a file (a pipe nobody reads could fill up and block the server); it is
        # checked for sanitizer reports after the session.
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([RAXC, "lsp", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr)
        self.inbox = queue.Queue()
        self.seen = []  # every message received, in order
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            body = out.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body))

    def write(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message):
        message.setdefault("jsonrpc", "2.0")
        self.write(frame(message))

    def notify(self, method, params=None):
        self.send({"method": method, "params": params if params is not None else {}})

    def request_async(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        self.send({"id": rid, "method": method, "params": params if params is not None else {}})
        return rid

    def next_message(self, timeout=TIMEOUT):
        try:
            message = self.inbox.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no message from the server within %.1fs" % timeout)
        if message is None:
            raise AssertionError("the server closed its output")
        self.seen.append(message)
        return message

    def wait(self, predicate, timeout=TIMEOUT, what="a message"):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("timed out waiting for " + what)
            message = self.next_message(left)
            if predicate(message):
                return message

    def response(self, rid, timeout=TIMEOUT):
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout,
                         "the response to %r" % rid)

    def request(self, method, params=None):
        return self.response(self.request_async(method, params))

    def result(self, method, params=None):
        reply = self.request(method, params)
        assert "result" in reply, "expected a result for %s, got %r" % (method, reply)
        return reply["result"]

    def diagnostics(self, uri, version=None, timeout=TIMEOUT):
        def match(m):
            return (m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == uri
                    and (version is None or m["params"].get("version") == version))
        return self.wait(match, timeout, "diagnostics for %s v%s" % (uri, version))["params"]

    def initialize(self, capabilities=None):
        result = self.result("initialize", {"processId": None, "rootUri": None,
                                            "capabilities": capabilities or {}})
        self.notify("initialized")
        self.initialized_result = result
        return result

    def open(self, uri, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "relax", "version": version, "text": text}})

    def change(self, uri, version, changes):
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": changes})

    def finish(self, shutdown=True, timeout=TIMEOUT):
        """Ends the session; returns the exit status."""
        if shutdown:
            assert self.request("shutdown")["result"] is None
        self.notify("exit")
        return self.wait_exit(timeout)

    def wait_exit(self, timeout=TIMEOUT):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("the server did not exit")

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            stream.close()
        self.stderr.seek(0)
        text = self.stderr.read().decode(errors="replace")
        self.stderr.close()
        return text


def change_range(l0, c0, l1, c1, text):
    return {"range": {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}},
            "text": text}


def error_code(reply):
    assert "error" in reply, "expected an error, got %r" % (reply,)
    return reply["error"]["code"]


# ------------------------------------------------------------------------------------ tests

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def server_args(*args):
    """Runs the test's server with these arguments instead of the fast default debounce."""
    def wrap(fn):
        fn.server_args = list(args)
        return fn
    return wrap


@test
def lifecycle_exit_status(s):
    result = s.initialize()
    caps = result["capabilities"]
    assert result["serverInfo"]["name"] == "raxc"
    assert caps["positionEncoding"] == "utf-16"
    assert caps["textDocumentSync"]["change"] == 2
    assert s.finish() == 0


@test
def exit_without_shutdown_is_status_1(s):
    s.initialize()
    assert s.finish(shutdown=False) == 1


@test
def end_of_input_without_exit_is_status_1(s):
    s.initialize()
    s.proc.stdin.close()
    assert s.wait_exit() == 1


@test
def utf8_only_when_offered(s):
    caps = s.initialize({"general": {"positionEncodings": ["utf-8", "utf-16"]}})["capabilities"]
    assert caps["positionEncoding"] == "utf-8"
    assert s.finish() == 0


@test
def requests_before_initialize_and_after_shutdown(s):
    assert error_code(s.request("textDocument/hover", {})) == -32002
    s.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///a.rx", "text": "x"}})
    s.initialize()
    assert error_code(s.request("initialize", {})) == -32600  # only once
    assert s.result("shutdown") is None
    assert error_code(s.request("textDocument/documentSymbol",
                                {"textDocument": {"uri": "file:///a.rx"}})) == -32600
    s.notify("exit")
    assert s.wait_exit() == 0
    # The didOpen before initialize was dropped: nothing was published for it.
    assert not [m for m in s.seen if m.get("method") == "textDocument/publishDiagnostics"]


@test
def unknown_methods_and_invalid_messages(s):
    s.initialize()
    assert error_code(s.request("textDocument/unknownThing", {})) == -32601
    s.notify("$/unknownNotification", {})  # ignored
    s.send({"jsonrpc": "2.0", "id": 50, "method": 7})
    assert error_code(s.response(50)) == -32600
    s.write(frame({"id": 51, "method": "shutdown"}))  # no "jsonrpc"
    assert error_code(s.response(51)) == -32600
    s.write(frame(b"[1, 2]"))
    reply = s.wait(lambda m: "error" in m and m.get("id") is None)
    assert error_code(reply) == -32600
    assert error_code(s.request("textDocument/documentSymbol", {"textDocument": 3})) == -32602
    assert error_code(s.request("textDocument/documentSymbol",
                                {"textDocument": {"uri": "file:///not-open.rx"}})) == -32602
    assert s.finish() == 0


@test
def malformed_framing_and_json_never_stop_the_server(s):
    s.initialize()
    s.write(frame(b"{not json"))
    assert error_code(s.wait(lambda m: "error" in m)) == -32700
    s.write(frame(b"\xff\xfe\x00binary\x80"))
    assert error_code(s.wait(lambda m: "error" in m)) == -32700
    s.write(b"X-Nothing: 1\r\n\r\n")  # a header without Content-Length
    s.write(b"Content-Length: abc\r\n\r\n")
    # A Content-Length that is too short, then one that is too long.
    body = json.dumps({"jsonrpc": "2.0", "id": 60, "method": "raxc/memoryUsage"}).encode()
    s.write(b"Content-Length: %d\r\n\r\n" % (len(body) - 5) + body)
    s.write(frame({"jsonrpc": "2.0", "id": 61, "method": "raxc/memoryUsage"}))
    assert "result" in s.response(61)
    s.write(b"Content-Length: %d\r\n\r\n" % (len(body) + 30) + body)
    s.write(frame({"jsonrpc": "2.0", "id": 62, "method": "raxc/memoryUsage"}))
    s.write(frame({"jsonrpc": "2.0", "id": 63, "method": "raxc/memoryUsage"}))
    assert "result" in s.response(63)
    logs = [m for m in s.seen if m.get("method") == "window/logMessage"]
    assert logs, "bad input is logged"
    assert s.finish() == 0


@test
def malformed_notifications_are_logged_not_fatal(s):
    s.initialize()
    uri = "file:///t/m.rx"
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri}})  # no text
    s.notify("textDocument/didOpen", {"textDocument": {"uri": 5, "text": "x"}})
    s.notify("textDocument/didChange", {"textDocument": {"uri": "file:///t/unknown.rx"},
                                        "contentChanges": [{"text": "x"}]})
    s.open(uri, VALID)
    diagnostics = s.diagnostics(uri, 1)["diagnostics"]
    assert diagnostics == [], diagnostics
    s.change(uri, 2, [{"range": "bad", "text": "x"}])
    s.change(uri, 2, "not a list")
    s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": None},
                                        "contentChanges": [{"text": BROKEN}]})
    s.notify("textDocument/didClose", {"textDocument": {}})
    # The server is alive, and the last well-formed change (the BROKEN text) was applied.
    errors = s.diagnostics(uri)["diagnostics"]
    assert errors and errors[0]["code"].startswith("RX1"), errors
    logs = [m for m in s.seen if m.get("method") == "window/logMessage"]
    assert len(logs) >= 3, logs
    assert s.finish() == 0


@test
def diagnostics_lifecycle(s):
    s.initialize()
    uri = "file:///t/broken.rx"
    s.open(uri, BROKEN, version=1)
    params = s.diagnostics(uri, 1)
    assert params["diagnostics"], "a syntax error is reported"
    d = params["diagnostics"][0]
    assert d["code"].startswith("RX1") and d["source"] == "raxc" and d["severity"] == 1
    assert d["codeDescription"]["href"].endswith("#" + d["code"])
    # The code's anchor in the page `raxc explain` renders, the copy next to the executable
    # (<build>/share/raxc), never a source file.
    href = d["codeDescription"]["href"]
    assert href.startswith("file://") and "/share/raxc/diagnostics.html#" in href, href
    page = href[len("file://"):href.index("#")]
    assert os.path.isfile(page) and 'id="%s"' % d["code"] in open(page).read(), href
    assert d["range"]["start"]["line"] == 7
    # Fix it with an incremental edit: remove " +" at the end of line 7.
    line = BROKEN.splitlines()[7]
    s.change(uri, 2, [change_range(7, len(line) - 2, 7, len(line), "")])
    assert s.diagnostics(uri, 2)["diagnostics"] == []
    s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    closed = s.diagnostics(uri)
    assert closed["diagnostics"] == [] and "version" not in closed
    assert s.finish() == 0


@test
@server_args("--debounce-ms", "40", "--settle-ms", "300")
def diagnostics_at_rest_are_a_fresh_parse(s):
    # Tree-sitter's incremental re-parse recovers from `y = x` becoming `y =:` differently from a
    # parse from scratch (it reports the ':', `raxc check` the '='). Once the document is quiet,
    # the server parses it from scratch and publishes what `raxc check` reports.
    s.initialize()
    uri = "file:///t/settle.rx"
    s.open(uri, VALID, version=1)
    assert s.diagnostics(uri, 1)["diagnostics"] == []
    line = VALID.splitlines()[7]
    assert line.endswith("y = x")
    s.change(uri, 2, [change_range(7, len(line) - 2, 7, len(line), ":")])
    messages = []
    def settled(m):
        if m.get("method") != "textDocument/publishDiagnostics" or m["params"].get("version") != 2:
            return False
        messages.append([d["message"] for d in m["params"]["diagnostics"]])
        return messages[-1] == ["unexpected '='"]
    s.wait(settled, what="the settled diagnostics (seen: %r)" % messages)
    assert s.finish() == 0


@test
def no_diagnostic_link_without_the_page(s):
    # A raxc with no share/raxc/diagnostics.html beside it (a copy in an empty directory) sends
    # no codeDescription at all, rather than a link into the source tree.
    global RAXC
    s.initialize()
    assert s.finish() == 0
    with tempfile.TemporaryDirectory() as scratch:
        lone = os.path.join(scratch, "raxc")
        try:
            os.link(RAXC, lone)
        except OSError:
            shutil.copy(RAXC, lone)
        saved, RAXC = RAXC, lone
        try:
            t = Session()
        finally:
            RAXC = saved
        t.initialize()
        uri = "file:///t/broken.rx"
        t.open(uri, BROKEN, version=1)
        diagnostics = t.diagnostics(uri, 1)["diagnostics"]
        assert diagnostics and all("codeDescription" not in d for d in diagnostics), diagnostics
        assert t.finish() == 0


@test
def superseded_versions_are_never_published(s):
    s.initialize()
    uri = "file:///t/fast.rx"
    s.open(uri, VALID, version=1)
    diagnostics = s.diagnostics(uri, 1)["diagnostics"]
    assert diagnostics == [], diagnostics
    # Ten quick edits (well inside the debounce) toggling an error; only v11 may be published.
    for version in range(2, 12):
        text = BROKEN if version % 2 == 0 else VALID
        s.change(uri, version, [{"text": text}])
    final = s.diagnostics(uri, 11)
    assert final["diagnostics"] == []  # v11 is VALID
    time.sleep(0.5)
    s.request("raxc/memoryUsage")  # flush everything sent so far
    versions = [m["params"].get("version") for m in s.seen
                if m.get("method") == "textDocument/publishDiagnostics"]
    assert versions == [1, 11], versions
    assert s.finish() == 0


def utf16_len(text):
    return len(text.encode("utf-16-le")) // 2


def syntax_errors(diagnostics):
    return [d for d in diagnostics if d["code"].startswith("RX1")]


@test
def non_ascii_incremental_edits_stay_in_sync(s):
    s.initialize()
    uri = "file:///t/unicode.rx"
    text = "# é𝔘 comment\n" + VALID  # é is 1 UTF-16 unit, 𝔘 is 2
    s.open(uri, text, version=1)
    diagnostics = s.diagnostics(uri, 1)["diagnostics"]
    assert diagnostics == [], diagnostics
    # A new line 9 with non-ASCII text before a syntax error.
    prefix = '            z = R.call_pure_packed("é𝔘", x) '
    s.change(uri, 2, [change_range(9, 0, 9, 0, prefix + "+\n")])
    d = syntax_errors(s.diagnostics(uri, 2)["diagnostics"])
    assert d and d[0]["range"]["start"] == {"line": 9, "character": utf16_len(prefix)}, d
    # Delete the '+' by its UTF-16 position: the syntax error must go away.
    col = utf16_len(prefix)
    s.change(uri, 3, [change_range(9, col, 9, col + 1, "")])
    assert syntax_errors(s.diagnostics(uri, 3)["diagnostics"]) == []
    # Remove the line again, and insert in the middle of the surrogate pair on line 0 (snaps to
    # the start of 𝔘, inside the comment): the document is back to a valid one.
    s.change(uri, 4, [change_range(9, 0, 10, 0, ""), change_range(0, 4, 0, 4, "é")])
    assert s.diagnostics(uri, 4)["diagnostics"] == []
    # Positions past the end of lines and of the file are clamped, not fatal.
    s.change(uri, 5, [change_range(500, 9, 900, 0, "\n"), change_range(3, 400, 3, 999, "")])
    assert s.diagnostics(uri, 5)["diagnostics"] == []
    assert s.finish() == 0


@test
def utf8_positions_when_negotiated(s):
    s.initialize({"general": {"positionEncodings": ["utf-8"]}})
    uri = "file:///t/utf8.rx"
    text = "# é𝔘\n" + BROKEN
    s.open(uri, text)
    d = s.diagnostics(uri, 1)["diagnostics"][0]
    line = text.splitlines()[8]
    assert d["range"]["start"]["line"] == 8
    assert d["range"]["start"]["character"] == len(line.encode()) - 1, d
    assert s.finish() == 0


@test
def document_symbols(s):
    s.initialize()
    uri = "file:///t/symbols.rx"
    s.open(uri, VALID)
    symbols = s.result("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [x["name"] for x in symbols] == ["Module"]
    functions = symbols[0]["children"]
    assert [f["name"] for f in functions] == ["main"]
    assert functions[0]["selectionRange"]["start"] == {"line": 5, "character": 8}
    blocks = functions[0]["children"]
    # One dataflow block (Namespace) inside main, lines 6-8 (the `with` line or its first binding
    # starts it).
    assert [b["kind"] for b in blocks] == [3], blocks
    assert 6 <= blocks[0]["range"]["start"]["line"] <= blocks[0]["range"]["end"]["line"] <= 8
    assert s.finish() == 0


@test
def workspace_symbols_over_open_files(s):
    uri, _ = nav_session(s)
    s.open("file:///t/other.rx", VALID)
    s.diagnostics("file:///t/other.rx", 1)
    found = s.result("workspace/symbol", {"query": "MAI"})
    assert sorted(f["location"]["uri"] for f in found) == ["file:///t/nav.rx", "file:///t/other.rx"]
    found = s.result("workspace/symbol", {"query": "help"})
    assert [f["name"] for f in found] == ["helper"]
    assert found[0]["location"]["range"]["start"] == pos(NAV, 5, "helper")
    assert s.finish() == 0


@test
def memory_usage_and_trace(s):
    s.initialize()
    s.notify("$/setTrace", {"value": "verbose"})
    s.open("file:///t/m.rx", VALID)
    usage = s.result("raxc/memoryUsage")
    assert usage["residentBytes"] > 0
    assert usage["documents"][0]["uri"] == "file:///t/m.rx"
    assert any(m.get("method") == "$/logTrace" for m in s.seen)
    assert s.finish() == 0


@test
def huge_document(s):
    s.initialize()
    uri = "file:///t/huge.rx"
    body = "".join("            y%d = x\n" % i for i in range(20000))
    text = VALID.replace("            y = x\n", body + "            y = x\n")
    s.open(uri, text)
    diagnostics = s.diagnostics(uri, 1, timeout=60)["diagnostics"]
    # Only the 20000 unused bindings, as hints.
    assert len(diagnostics) == 20000 and {d["code"] for d in diagnostics} == {"RX4009"}
    symbols = s.result("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert symbols[0]["children"][0]["name"] == "main"
    assert s.finish() == 0


@test
def nesting_100000_deep_every_request_answers(s):
    """Every request on files nested 100,000 deep (an attribute chain, a binary chain, unary
    minus) and 3,000 nested ifs: answered, never a hang (each walk is bounded or iterative)."""
    s.initialize()
    head = "# from tvm.script import tir as T\n\n@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\"), n: T.int32):\n"
    texts = {
        "attr": head + "    A[0] = n" + ".a" * 100000 + "\n",
        "binary": head + "    A[0] = " + " + ".join(["n"] * 100000) + "\n",
        "unary": head + "    A[0] = " + "-" * 100000 + "n\n",
        "ifs": head + "".join("    " * (d + 1) + "if n > %d:\n" % d for d in range(3000))
        + "    " * 3001 + "A[0] = 1\n",
    }
    for name, text in texts.items():
        uri = "file:///t/deep_%s.rx" % name
        s.open(uri, text)
        codes = {d["code"] for d in s.diagnostics(uri, 1, timeout=60)["diagnostics"]}
        assert "RX1010" in codes, (name, codes)  # nested too deeply
        doc = {"textDocument": {"uri": uri}}
        p = {"line": 4, "character": 12}
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": 99999, "character": 0}}
        for method, params in [
                ("textDocument/hover", dict(doc, position=p)),
                ("textDocument/definition", dict(doc, position=p)),
                ("textDocument/references", dict(doc, position=p, context={"includeDeclaration": True})),
                ("textDocument/completion", dict(doc, position=p)),
                ("textDocument/signatureHelp", dict(doc, position=p)),
                ("textDocument/documentSymbol", doc), ("textDocument/foldingRange", doc),
                ("textDocument/semanticTokens/full", doc),
                ("textDocument/selectionRange", dict(doc, positions=[p])),
                ("textDocument/formatting", dict(doc, options={})),
                ("textDocument/inlayHint", dict(doc, range=whole)),
                ("textDocument/codeAction", dict(doc, range={"start": p, "end": p}, context={"diagnostics": []}))]:
            reply = s.request(method, params)
            assert "result" in reply or "error" in reply, (name, method, reply)
        s.change(uri, 2, [change_range(4, 12, 4, 12, " ")])
        s.diagnostics(uri, 2, timeout=60)
    assert s.finish() == 0


def nav_session(s, uri="file:///t/nav.rx", capabilities=None):
    s.initialize(capabilities)
    s.open(uri, NAV)
    return uri, s.diagnostics(uri, 1)["diagnostics"]


def at(uri, position, **extra):
    return dict({"textDocument": {"uri": uri}, "position": position}, **extra)


@test
def related_information_for_possibly_compatible_calls(s):
    uri, diagnostics = nav_session(s)
    rx4001 = [d for d in diagnostics if d["code"] == "RX4001"]
    assert rx4001 and rx4001[0]["severity"] == 2, diagnostics
    related = rx4001[0]["relatedInformation"]
    assert related[0]["location"]["uri"] == uri
    assert related[0]["location"]["range"]["start"] == pos(NAV, 5, "a:")
    assert s.finish() == 0


@test
def related_information_inlined_without_client_support(s):
    uri, diagnostics = nav_session(s, capabilities={
        "textDocument": {"publishDiagnostics": {"relatedInformation": False}}})
    rx4001 = [d for d in diagnostics if d["code"] == "RX4001"][0]
    assert "relatedInformation" not in rx4001 and "6:16: parameter 'a'" in rx4001["message"]
    assert s.finish() == 0


@test
def hover_shows_struct_info(s):
    uri, _ = nav_session(s)
    h = s.result("textDocument/hover", at(uri, pos(NAV, 13, "x")))  # a use of parameter x
    text = h["contents"]["value"]
    assert h["contents"]["kind"] == "markdown"
    assert "parameter `x`" in text and "```python\nx: R.Tensor((n, 3)" in text, text
    assert h["range"]["start"] == pos(NAV, 13, "x")
    h = s.result("textDocument/hover", at(uri, pos(NAV, 15, "helper")))
    assert "function `helper`" in h["contents"]["value"], h
    h = s.result("textDocument/hover", at(uri, pos(NAV, 13, "add")))
    assert "R.add" in h["contents"]["value"], h
    # Nothing under the cursor (a blank line), and a position far past the end: null.
    assert s.result("textDocument/hover", at(uri, {"line": 7, "character": 0})) is None
    assert s.result("textDocument/hover", at(uri, {"line": 4000, "character": 99})) is None
    assert error_code(s.request("textDocument/hover", at(uri, {"line": -1, "character": 0}))) \
        == -32602
    assert s.finish() == 0


@test
def hover_on_an_unannotated_global_shows_what_callers_get(s):
    s.initialize()
    uri = "file:///t/unannotated.rx"
    text = """# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def helper(x: R.Tensor((2, 3), "float32")):
        y = R.add(x, x)
        return y

    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        z = cls.helper(x)
        return z
"""
    s.open(uri, text)
    s.diagnostics(uri, 1)
    for line in (6, 13):
        h = s.result("textDocument/hover", at(uri, pos(text, line, "helper")))["contents"]["value"]
        assert 'R.Callable((R.Tensor((2, 3), dtype="float32"),), R.Tensor((2, 3), dtype="float32"), True)' in h, h
        assert "no return annotation" in h, h
    h = s.result("textDocument/hover", at(uri, pos(text, 11, "main")))["contents"]["value"]
    assert "no return annotation" not in h, h
    assert s.finish() == 0


@test
def definition_references_highlight(s):
    uri, _ = nav_session(s)
    # `y` in `return y` -> its binding in the dataflow block.
    d = s.result("textDocument/definition", at(uri, pos(NAV, 16, "y")))
    assert d == [{"uri": uri, "range": {"start": pos(NAV, 13, "y"),
                                         "end": {"line": 13, "character": pos(NAV, 13, "y")["character"] + 1}}}], d
    # cls.helper -> the def name.
    d = s.result("textDocument/definition", at(uri, pos(NAV, 15, "helper")))
    assert d[0]["range"]["start"] == pos(NAV, 5, "helper"), d
    refs = s.result("textDocument/references",
                    at(uri, pos(NAV, 9, "x"), context={"includeDeclaration": True}))
    starts = sorted((r["range"]["start"]["line"], r["range"]["start"]["character"]) for r in refs)
    expected = [(9, pos(NAV, 9, "x")["character"]), (13, pos(NAV, 13, "x", 0)["character"]),
                (13, pos(NAV, 13, "x", 1)["character"]), (15, pos(NAV, 15, "x")["character"])]
    assert starts == expected, starts
    refs = s.result("textDocument/references",
                    at(uri, pos(NAV, 9, "x"), context={"includeDeclaration": False}))
    assert len(refs) == 3
    hl = s.result("textDocument/documentHighlight", at(uri, pos(NAV, 14, "y")))
    kinds = sorted((h["range"]["start"]["line"], h["kind"]) for h in hl)
    assert kinds == [(13, 3), (14, 2), (16, 2)], kinds
    assert s.result("textDocument/definition", at(uri, {"line": 7, "character": 0})) is None
    assert s.finish() == 0


@test
@server_args("--debounce-ms", "1500")
def stale_requests_content_modified_and_cancel(s):
    uri, _ = nav_session(s)  # a new document is analysed at once, without the debounce
    # Edit (v2): the next analysis waits for the debounce, so the snapshot is now stale.
    s.change(uri, 2, [change_range(16, 0, 16, 0, "        # edit\n")])
    started = time.monotonic()
    # Hover is answered at once from the v1 snapshot, not queued behind the analysis.
    h = s.result("textDocument/hover", at(uri, pos(NAV, 13, "x")))
    assert "parameter `x`" in h["contents"]["value"]
    assert time.monotonic() - started < 1.0
    # Definition needs the current text: it waits; a new edit at its position (the line it
    # points into is deleted) makes it ContentModified.
    rid = s.request_async("textDocument/definition", at(uri, pos(NAV, 16, "y")))
    s.change(uri, 3, [change_range(16, 0, 17, 0, "")])
    assert error_code(s.response(rid)) == -32801  # once v3 is analysed
    # A waiting request can be cancelled (v4 makes the snapshot stale again).
    s.change(uri, 4, [change_range(0, 0, 0, 0, "")])
    rid = s.request_async("textDocument/references", at(uri, pos(NAV, 9, "x")))
    s.notify("$/cancelRequest", {"id": rid})
    assert error_code(s.response(rid)) == -32800
    # One that is left waiting is answered once v4 has been analysed, after its diagnostics.
    rid = s.request_async("textDocument/definition", at(uri, pos(NAV, 16, "y")))
    reply = s.response(rid)
    assert reply["result"][0]["range"]["start"] == pos(NAV, 13, "y"), reply
    published = [m["params"]["version"] for m in s.seen
                 if m.get("method") == "textDocument/publishDiagnostics"]
    assert published == [1, 3, 4], published  # v2 was superseded before its analysis
    assert s.finish() == 0


@test
@server_args("--debounce-ms", "1500")
def requests_asked_while_typing_follow_the_edits(s):
    uri, _ = nav_session(s)
    s.change(uri, 2, [change_range(0, 0, 0, 0, "# one\n")])  # v2: every line moves down one
    y = pos(NAV, 16, "y")
    rid = s.request_async("textDocument/definition", at(uri, {"line": y["line"] + 1, "character": y["character"]}))
    refs = s.request_async("textDocument/references",
                           at(uri, {"line": y["line"] + 1, "character": y["character"]},
                              context={"includeDeclaration": True}))
    # The user types on above it before the analysis: neither request fails.
    s.change(uri, 3, [change_range(0, 0, 0, 0, "# two\n# three\n")])
    reply = s.response(rid)
    # Answered from v3's analysis in v3's coordinates (three lines down), the client's text.
    binding = pos(NAV, 13, "y")
    assert reply["result"][0]["range"]["start"] == {"line": binding["line"] + 3, "character": binding["character"]}, reply
    lines = sorted(r["range"]["start"]["line"] for r in s.response(refs)["result"])
    assert lines == [13 + 3, 14 + 3, 16 + 3], lines
    assert s.finish() == 0


@test
@server_args("--debounce-ms", "5000")
def requests_pending_at_shutdown_are_answered(s):
    uri, _ = nav_session(s)
    s.change(uri, 2, [change_range(0, 0, 0, 0, "# one\n")])  # the next analysis waits 5 s
    y = pos(NAV, 16, "y")
    rid = s.request_async("textDocument/definition", at(uri, {"line": y["line"] + 1, "character": y["character"]}))
    started = time.monotonic()
    shutdown = s.request_async("shutdown")
    reply = s.response(rid)  # answered first (v2 analysed at once), not dropped
    binding = pos(NAV, 13, "y")
    assert reply["result"][0]["range"]["start"] == {"line": binding["line"] + 1, "character": binding["character"]}, reply
    assert s.response(shutdown)["result"] is None
    assert time.monotonic() - started < 4.0  # without waiting out the debounce
    assert s.finish(shutdown=False) == 0


@test
def formatting_and_folding(s):
    s.initialize()
    uri = "file:///t/fmt.rx"
    messy = VALID.replace("            y = x", "            # keep me\n            y   =   x")
    s.open(uri, messy)
    s.diagnostics(uri, 1)
    edits = s.result("textDocument/formatting",
                     {"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}})
    formatted = apply_edits(messy, edits)
    assert "# keep me" in formatted, formatted  # comments are kept
    with tempfile.NamedTemporaryFile("w", suffix=".rx", delete=False) as f:
        f.write(messy)
    try:
        cli = subprocess.run([RAXC, "fmt", f.name], capture_output=True, text=True).stdout
    finally:
        os.unlink(f.name)
    assert formatted == cli, "formatting is `raxc fmt`"
    # Only the changed lines are replaced: the untouched `def main` line is in no edit.
    main_line = messy.splitlines().index(next(l for l in messy.splitlines() if "def main" in l))
    assert all(not (e["range"]["start"]["line"] <= main_line < e["range"]["end"]["line"]) for e in edits), edits
    # Range formatting of the `y   =   x` line fixes that line only.
    y_line = messy.splitlines().index("            y   =   x")
    ranged = s.result("textDocument/rangeFormatting",
                      {"textDocument": {"uri": uri}, "options": {},
                       "range": {"start": {"line": y_line, "character": 0}, "end": {"line": y_line, "character": 5}}})
    assert apply_edits(messy, ranged) == messy.replace("y   =   x", "y = x"), ranged
    assert len(ranged) < len(edits), (ranged, edits)
    s.change(uri, 2, [{"text": formatted}])
    s.diagnostics(uri, 2)
    assert s.result("textDocument/formatting", {"textDocument": {"uri": uri}, "options": {}}) == []
    s.change(uri, 3, [{"text": BROKEN}])
    assert s.result("textDocument/formatting", {"textDocument": {"uri": uri}, "options": {}}) is None
    nav = "file:///t/nav.rx"
    s.open(nav, NAV)
    s.diagnostics(nav, 1)
    folds = s.result("textDocument/foldingRange", {"textDocument": {"uri": nav}})
    spans = [(f["startLine"], f["endLine"]) for f in folds]
    assert (4, 6) in spans and (8, 16) in spans, spans
    assert s.finish() == 0


def decode_tokens(data, legend, text):
    """[(line, character, token text, type, [modifiers])] from relative LSP token data."""
    assert len(data) % 5 == 0
    out, line, char, lines = [], 0, 0, text.splitlines()
    for i in range(0, len(data), 5):
        dl, dc, length, kind, mods = data[i:i + 5]
        line, char = (line + dl, dc) if dl else (line, char + dc)
        names = [m for bit, m in enumerate(legend["tokenModifiers"]) if mods & (1 << bit)]
        out.append((line, char, lines[line][char:char + length], legend["tokenTypes"][kind], names))
    return out


@test
def semantic_tokens(s):
    caps = s.initialize()["capabilities"]
    legend = caps["semanticTokensProvider"]["legend"]
    uri = "file:///t/nav.rx"
    s.open(uri, NAV)
    s.diagnostics(uri, 1)
    data = s.result("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})["data"]
    tokens = decode_tokens(data, legend, NAV)
    got = {(t[0], t[2]): (t[3], t[4]) for t in tokens}
    assert got[(2, "I")] == ("namespace", ["defaultLibrary"]), got
    assert got[(4, "function")][0] == "decorator"
    assert got[(5, "helper")] == ("function", ["declaration"])
    assert got[(5, "a")] == ("parameter", ["declaration"])
    assert got[(5, "Tensor")] == ("type", ["defaultLibrary"])
    assert got[(5, "float32")][0] == "enumMember"
    assert got[(9, "n")][0] == "typeParameter"
    assert got[(13, "add")] == ("function", ["defaultLibrary"])
    assert got[(13, "x")] == ("parameter", [])
    assert got[(15, "helper")] == ("function", [])
    assert got[(16, "y")] == ("variable", [])
    # Sorted, one line each, never overlapping.
    positions = [(t[0], t[1], t[1] + len(t[2])) for t in tokens]
    assert positions == sorted(positions)
    for a, b in zip(positions, positions[1:]):
        assert a[0] < b[0] or a[2] <= b[1], (a, b)
    ranged = s.result("textDocument/semanticTokens/range", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 13, "character": 0}, "end": {"line": 14, "character": 0}}})
    lines = {t[0] for t in decode_tokens(ranged["data"], legend, NAV)}
    assert lines == {13}, lines
    assert s.finish() == 0


def apply_edits(text, edits):
    """Applies LSP TextEdits (UTF-16 positions, non-overlapping) to text."""
    lines = text.split("\n")

    def offset(p):
        before = "\n".join(lines[:p["line"]]) + ("\n" if p["line"] else "")
        line = lines[p["line"]].encode("utf-16-le")[:2 * p["character"]].decode("utf-16-le")
        return len(before) + len(line)
    for e in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        a, b = offset(e["range"]["start"]), offset(e["range"]["end"])
        text = text[:a] + e["newText"] + text[b:]
    return text


@test
def rename_locals_globals_and_shape_vars(s):
    uri, _ = nav_session(s)
    p = s.result("textDocument/prepareRename", at(uri, pos(NAV, 13, "x", 1)))
    assert p["placeholder"] == "x" and p["range"]["start"] == pos(NAV, 13, "x", 1), p
    assert s.result("textDocument/prepareRename", at(uri, pos(NAV, 13, "add"))) is None
    assert s.result("textDocument/prepareRename", at(uri, {"line": 7, "character": 0})) is None
    edit = s.result("textDocument/rename", at(uri, pos(NAV, 13, "x"), newName="inp"))
    renamed = apply_edits(NAV, edit["changes"][uri])
    assert "def main(inp: R.Tensor" in renamed and "R.add(inp, inp)" in renamed
    assert "cls.helper(inp)" in renamed and " x" not in renamed.split("def main")[1], renamed
    edit = s.result("textDocument/rename", at(uri, pos(NAV, 15, "helper"), newName="helper2"))
    renamed = apply_edits(NAV, edit["changes"][uri])
    assert "def helper2(" in renamed and "cls.helper2(x)" in renamed, renamed
    assert error_code(s.request("textDocument/rename",
                                at(uri, pos(NAV, 13, "x"), newName="not valid"))) == -32803
    assert error_code(s.request("textDocument/rename",
                                at(uri, pos(NAV, 13, "x"), newName="return"))) == -32803
    # Renaming gives a valid document: apply it and expect no new errors.
    edit = s.result("textDocument/rename", at(uri, pos(NAV, 13, "y"), newName="out"))
    renamed = apply_edits(NAV, edit["changes"][uri])
    s.change(uri, 2, [{"text": renamed}])
    assert not [d for d in s.diagnostics(uri, 2)["diagnostics"] if d["severity"] == 1]
    assert "R.output(out)" in renamed and "return out" in renamed, renamed
    assert s.finish() == 0


@test
def inlay_hints_after_unannotated_bindings(s):
    uri, _ = nav_session(s)
    hints = s.result("textDocument/inlayHint", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 17, "character": 0}}})
    by_line = {h["position"]["line"]: h for h in hints}
    y, z = by_line[13], by_line[15]
    assert y["position"] == {"line": 13, "character": pos(NAV, 13, "y")["character"] + 1}
    assert y["label"].startswith(": R."), y
    assert z["label"] == ': R.Tensor((2, 3), dtype="float32")', z
    assert 9 not in by_line  # parameters are annotated
    long_doc = NAV.replace("def helper(a: R.Tensor((2, 3), dtype=\"float32\"))",
                           "def helper(a: R.Tensor((2, 3), dtype=\"float32\"), "
                           "b: R.Tensor((2, 3, 4, 5, 6, 7, 8), dtype=\"float32\"))")
    long_doc = long_doc.replace("        return a\n", "        c = b\n        return a\n")
    s.change(uri, 2, [{"text": long_doc}])
    s.diagnostics(uri, 2)
    hints = s.result("textDocument/inlayHint", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 6, "character": 0}, "end": {"line": 7, "character": 0}}})
    assert len(hints) == 1 and hints[0]["label"].endswith("…"), hints
    assert "tooltip" not in hints[0], hints
    resolved = s.result("inlayHint/resolve", hints[0])
    assert resolved["tooltip"] == 'R.Tensor((2, 3, 4, 5, 6, 7, 8), dtype="float32")', resolved
    assert resolved["label"] == hints[0]["label"]
    assert s.finish() == 0


# A possibly-compatible argument whose parameter has free shape variables, a possibly-compatible
# result, and a dataflow variable used after its block without R.output.
FIXES = """# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def pad(x: R.Tensor(("n", "m"), dtype="float32")) -> R.Tensor(("n", "m"), dtype="float32"):
        return x

    @R.function
    def main(b: R.Tensor(dtype="float32", ndim=2), s: R.Tensor(("p", "q"), dtype="float32")) -> R.Tensor(("p", "q"), dtype="float32"):
        cls = Module
        c = cls.pad(b)
        return c

    @R.function
    def flow(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            y = R.add(x, x)
            w = R.multiply(y, y)
            R.output(y)
        return w
"""


def actions_for(s, uri, diagnostic):
    return s.result("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diagnostic["range"],
        "context": {"diagnostics": [diagnostic]}})


def apply_action(s, uri, text, version, action):
    fixed = apply_edits(text, action["edit"]["changes"][uri])
    s.change(uri, version, [{"text": fixed}])
    return fixed, s.diagnostics(uri, version)["diagnostics"]


@test
def code_actions_fix_and_rewrite(s):
    uri = "file:///t/fixes.rx"
    s.initialize()
    s.open(uri, FIXES)
    diagnostics = s.diagnostics(uri, 1)["diagnostics"]
    codes = sorted(d["code"] for d in diagnostics)
    assert codes == ["RX1163", "RX4001", "RX4002"], diagnostics
    by_code = {d["code"]: d for d in diagnostics}
    # RX4001: bind a match_cast of the argument, declaring the callee's free shape variables.
    actions = actions_for(s, uri, by_code["RX4001"])
    fix = [a for a in actions if a["kind"] == "quickfix"]
    assert len(fix) == 1 and fix[0]["diagnostics"][0]["code"] == "RX4001", actions
    text, after = apply_action(s, uri, FIXES, 2, fix[0])
    assert "        n = T.int64()\n        m = T.int64()\n" in text, text
    assert 'b_cast = R.match_cast(b, R.Tensor((n, m), dtype="float32"))' in text, text
    assert "c = cls.pad(b_cast)" in text, text
    assert sorted(d["code"] for d in after) == ["RX1163", "RX4002"], after
    # RX4002: match_cast the returned value against the function's own annotation.
    rx4002 = [d for d in after if d["code"] == "RX4002"][0]
    fix = [a for a in actions_for(s, uri, rx4002) if a["kind"] == "quickfix"]
    text, after = apply_action(s, uri, text, 3, fix[0])
    assert 'c_cast = R.match_cast(c, R.Tensor((p, q), dtype="float32"))' in text, text
    assert "return c_cast" in text and [d["code"] for d in after] == ["RX1163"], after
    # RX1163: add the variable to the block's R.output.
    fix = [a for a in actions_for(s, uri, after[0]) if a["kind"] == "quickfix"]
    text, after = apply_action(s, uri, text, 4, fix[0])
    assert "R.output(y, w)" in text and after == [], (text, after)
    # Rewrites at the cursor: annotate an unannotated binding with its inferred StructInfo.
    line = text.split("\n").index("            y = R.add(x, x)")
    cursor = {"start": {"line": line, "character": 12}, "end": {"line": line, "character": 12}}
    actions = s.result("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": cursor, "context": {"diagnostics": []}})
    annotate = [a for a in actions if a["title"].startswith("Annotate 'y'")]
    assert annotate and annotate[0]["kind"] == "refactor.rewrite", actions
    text, after = apply_action(s, uri, text, 5, annotate[0])
    assert 'y: R.Tensor((4,), dtype="float32") = R.add(x, x)' in text and after == [], text
    # ... and replace an annotation that differs from the inferred StructInfo.
    text = text.replace('y: R.Tensor((4,), dtype="float32")', "y: R.Tensor(ndim=1)")
    s.change(uri, 6, [{"text": text}])
    s.diagnostics(uri, 6)
    actions = s.result("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": cursor, "context": {"diagnostics": []}})
    replace = [a for a in actions if a["title"].startswith("Replace the annotation of 'y'")]
    assert replace, actions
    text, after = apply_action(s, uri, text, 7, replace[0])
    assert 'y: R.Tensor((4,), dtype="float32") = R.add(x, x)' in text and after == [], text
    assert s.finish() == 0


UNUSED = """# from tvm.script import relax as R

@R.function(pure=False)
def f(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    unused = R.multiply(x,
                        x)
    _ignored = R.add(x, x)
    y = R.add(x, x)
    R.print(y, format=R.str("{}"))
    return y
"""


@test
def unused_bindings_are_greyed_out_and_removable(s):
    uri = "file:///t/unused.rx"
    s.initialize()
    s.open(uri, UNUSED)
    diagnostics = s.diagnostics(uri, 1)["diagnostics"]
    assert [d["code"] for d in diagnostics] == ["RX4009"], diagnostics
    hint = diagnostics[0]
    assert hint["severity"] == 4 and hint["tags"] == [1], hint
    assert hint["range"]["start"] == {"line": 4, "character": 4}, hint
    fix = [a for a in actions_for(s, uri, hint) if a["title"].startswith("Remove")]
    assert fix, hint
    text, after = apply_action(s, uri, UNUSED, 2, fix[0])
    assert "unused" not in text and "    _ignored = R.add(x, x)\n" in text, text
    assert after == [], after
    assert s.finish() == 0


@test
def completion_offers_variables_in_scope(s):
    uri, _ = nav_session(s)
    # At the start of line 15 (`z = cls.helper(x)`): x, n's binders and y are in scope, z is not.
    items = s.result("textDocument/completion", at(uri, {"line": 15, "character": 8}))
    labels = {i["label"]: i for i in items}
    assert "x" in labels and "y" in labels, sorted(labels)
    assert "z" not in labels and "a" not in labels, sorted(labels)
    assert labels["y"]["kind"] == 6 and labels["y"]["detail"].startswith("R.Tensor("), labels["y"]
    assert s.finish() == 0


@test
def pull_diagnostics_only_when_declared(s):
    # What a push client is sent for the same text...
    push = Session()
    _, pushed = nav_session(push)
    assert push.finish() == 0
    # ...is what a pull client pulls; it is never pushed to (VS Code would show both).
    s.initialize({"textDocument": {"diagnostic": {}}})
    assert "diagnosticProvider" in s.initialized_result["capabilities"]
    uri = "file:///t/nav.rx"
    s.open(uri, NAV)
    report = s.result("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    assert report["kind"] == "full" and report["items"] == pushed and pushed, report
    s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert s.finish() == 0
    received = s.seen + [m for m in list(s.inbox.queue) if m]
    assert not [m for m in received if m.get("method") == "textDocument/publishDiagnostics"], received


@test
def no_pull_diagnostics_without_the_capability(s):
    nav_session(s)
    assert "diagnosticProvider" not in s.initialized_result["capabilities"]
    assert s.finish() == 0


@test
def selection_ranges_grow_from_the_name_to_the_module(s):
    uri, _ = nav_session(s)
    x = pos(NAV, 13, "x", 1)
    result = s.result("textDocument/selectionRange",
                      {"textDocument": {"uri": uri}, "positions": [x]})
    chain, node = [], result[0]
    while node:
        chain.append(node["range"])
        node = node.get("parent")
    lines = NAV.split("\n")

    def text(r):
        if r["start"]["line"] == r["end"]["line"]:
            return lines[r["start"]["line"]][r["start"]["character"]:r["end"]["character"]]
        return None
    assert text(chain[0]) == "x", chain[0]
    assert "R.add(x, x)" in [text(r) for r in chain], [text(r) for r in chain]
    assert "y = R.add(x, x)" in [text(r) for r in chain], [text(r) for r in chain]
    key = lambda p: (p["line"], p["character"])
    for inner, outer in zip(chain, chain[1:]):
        assert key(outer["start"]) <= key(inner["start"]) and key(inner["end"]) <= key(outer["end"])
        assert inner != outer
    assert chain[-1]["start"]["line"] <= 3 and len(chain) >= 6, chain
    assert s.finish() == 0


@test
def semantic_tokens_delta(s):
    uri, _ = nav_session(s)
    assert s.initialized_result["capabilities"]["semanticTokensProvider"]["full"] == {"delta": True}
    first = s.result("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})
    assert first["resultId"] and first["data"]
    # `y` -> `yy` on line 13 and its uses: the tokens after it shift.
    text = NAV.replace("y = R.add", "yy = R.add").replace("R.output(y)", "R.output(yy)")
    text = text.replace("return y", "return yy")
    s.change(uri, 2, [{"text": text}])
    s.diagnostics(uri, 2)
    delta = s.result("textDocument/semanticTokens/full/delta",
                     {"textDocument": {"uri": uri}, "previousResultId": first["resultId"]})
    assert "edits" in delta and delta["resultId"] != first["resultId"], delta
    data = list(first["data"])
    for e in sorted(delta["edits"], key=lambda e: e["start"], reverse=True):
        data[e["start"]:e["start"] + e["deleteCount"]] = e.get("data", [])
    full = s.result("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})
    assert data == full["data"]
    # An unknown previous result gets the full tokens.
    again = s.result("textDocument/semanticTokens/full/delta",
                     {"textDocument": {"uri": uri}, "previousResultId": "stale"})
    assert again["data"] == full["data"]
    assert s.finish() == 0


@test
def signature_help_for_operators_and_module_functions(s):
    uri, _ = nav_session(s)
    # Inside R.add(x, x) on line 13, after the comma: the second parameter is active.
    comma = pos(NAV, 13, ",")
    help = s.result("textDocument/signatureHelp",
                    at(uri, {"line": 13, "character": comma["character"] + 1}))
    signature = help["signatures"][0]
    assert signature["label"].startswith("R.add("), signature
    assert help["activeParameter"] == 1, help
    start, end = signature["parameters"][1]["label"]
    assert signature["label"][start:end] in ("x2", "rhs", "y", "b"), signature
    # A module function: its parameters with their StructInfo, and the return annotation.
    help = s.result("textDocument/signatureHelp", at(uri, pos(NAV, 15, "x")))
    assert help["signatures"][0]["label"] == (
        'helper(a: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32")'), help
    assert help["activeParameter"] == 0
    # A keyword argument selects its parameter; outside any call there is no help.
    s.change(uri, 2, [change_range(16, 0, 16, 0, "        q = R.sum(x, keepdims=\n")])
    help = s.result("textDocument/signatureHelp", at(uri, {"line": 16, "character": 33}))
    names = [help["signatures"][0]["label"][a:b]
             for a, b in (p["label"] for p in help["signatures"][0]["parameters"])]
    assert names[help["activeParameter"]].startswith("keepdims"), (names, help)
    assert s.result("textDocument/signatureHelp", at(uri, {"line": 12, "character": 4})) is None
    assert s.finish() == 0


@test
@server_args("--debounce-ms", "5000")
def completion_uses_the_current_text(s):
    uri, _ = nav_session(s, capabilities={
        "textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}})
    # Type "R." on a new line: the analysis is 5 s away, completion must not wait for it.
    s.change(uri, 2, [change_range(16, 0, 16, 0, "        q = R.\n")])
    started = time.monotonic()
    items = s.result("textDocument/completion", at(uri, {"line": 16, "character": 14}))
    assert time.monotonic() - started < 2.0
    labels = {i["label"]: i for i in items}
    assert "add" in labels and "Tensor" in labels and "nn" in labels, sorted(labels)[:20]
    assert labels["add"]["insertTextFormat"] == 2 and labels["add"]["insertText"].startswith("add(")
    s.change(uri, 3, [change_range(16, 14, 16, 14, "add(x, cls.he")])
    items = s.result("textDocument/completion", at(uri, {"line": 16, "character": 27}))
    assert sorted(i["label"] for i in items) == ["helper", "main"], items
    s.change(uri, 4, [change_range(16, 0, 17, 0, '        q = R.astype(x, "fl\n')])
    items = s.result("textDocument/completion", at(uri, {"line": 16, "character": 30}))
    assert "float32" in {i["label"] for i in items}
    assert s.finish() == 0


# examples/mlp.rx with line 45 annotated (8, 128) where (n, 128) is inferred: an RX4000 on `a`,
# and the knock-on one on `logits` (annotated (n, 10), inferred (8, 10)).
MLP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "mlp.rx")).read()
MLP8 = MLP.replace('a: R.Tensor((n, 128), dtype="float32") = R.nn.relu(hb)',
                   'a: R.Tensor((8, 128), dtype="float32") = R.nn.relu(hb)')
A_LINE = next(i for i, l in enumerate(MLP8.splitlines()) if l.strip().startswith("a: R.Tensor((8"))
MAIN_LINE = next(i for i, l in enumerate(MLP8.splitlines()) if "def main(" in l)


def mlp_session(s, capabilities=None):
    uri = "file:///t/mlp.rx"
    s.initialize(capabilities)
    s.open(uri, MLP8)
    return uri, s.diagnostics(uri, 1)["diagnostics"]


@test
def hover_on_an_annotated_binding_shows_what_was_inferred(s):
    uri, _ = mlp_session(s)
    h = s.result("textDocument/hover", at(uri, pos(MLP8, A_LINE, "a:")))
    text = h["contents"]["value"]
    # The code block comes first: Neovim 0.7's float shows it as the first line.
    assert text.startswith('```python\na: R.Tensor((8, 128), dtype="float32")\n```'), text
    assert "###" not in text, text
    assert 'inferred from the value: `R.Tensor((n, 128), dtype="float32")`' in text, text
    assert "only possibly compatible (dimension 0: 'n' vs '8')" in text, text
    # An unannotated binding: just its StructInfo; equal annotations say so.
    h = s.result("textDocument/hover", at(uri, pos(MLP8, A_LINE - 1, "hb")))
    assert 'hb: R.Tensor((n, 128), dtype="float32")' in h["contents"]["value"], h
    assert s.finish() == 0


@test
def hover_on_an_annotation_shows_that_annotation(s):
    uri, _ = mlp_session(s)
    h = s.result("textDocument/hover", at(uri, pos(MLP8, A_LINE, "Tensor")))
    text = h["contents"]["value"]
    assert text.startswith('```python\nR.Tensor((8, 128), dtype="float32")\n```'), text
    # A parameter's annotation: that annotation, and where its shape variable is bound.
    h = s.result("textDocument/hover", at(uri, pos(MLP8, MAIN_LINE, "Tensor")))
    text = h["contents"]["value"]
    assert text.startswith('```python\nR.Tensor((n, 784), dtype="float32")\n```'), text
    assert "R.Callable" not in text and "`n` is bound at line %d" % (MAIN_LINE + 1) in text, text
    # The return annotation.
    h = s.result("textDocument/hover", at(uri, pos(MLP8, MAIN_LINE, "Tensor", nth=4)))
    assert h["contents"]["value"].startswith('```python\nR.Tensor((n, 10)'), h
    # Nothing on indentation, punctuation, keywords or comments.
    for position in ({"line": A_LINE, "character": 2}, pos(MLP8, A_LINE, "="),
                     pos(MLP8, A_LINE, "("), pos(MLP8, A_LINE + 4, "return"),
                     {"line": 0, "character": 5}):
        assert s.result("textDocument/hover", at(uri, position)) is None, position
    assert s.finish() == 0


@test
def hover_in_plain_text_when_markdown_is_not_asked_for(s):
    uri, _ = mlp_session(s, capabilities={
        "textDocument": {"hover": {"contentFormat": ["plaintext"]}}})
    h = s.result("textDocument/hover", at(uri, pos(MLP8, A_LINE, "a:")))
    assert h["contents"]["kind"] == "plaintext", h
    text = h["contents"]["value"]
    assert text.startswith('a: R.Tensor((8, 128), dtype="float32")') and "`" not in text, text
    assert s.finish() == 0


@test
def the_rx4000_message_says_how_annotation_and_value_relate(s):
    uri, diagnostics = mlp_session(s)
    rx4000 = {d["range"]["start"]["line"]: d["message"] for d in diagnostics if d["code"] == "RX4000"}
    assert len(rx4000) == 2, diagnostics
    for message in rx4000.values():
        assert "differs from its inferred StructInfo" in message, message
        assert "more specific" not in message, message
    assert s.finish() == 0


@test
def fixes_are_offered_anywhere_in_the_diagnostic_range(s):
    uri, diagnostics = mlp_session(s)
    warnings = [d for d in diagnostics if d["code"] == "RX4000"]
    assert len(warnings) == 2, diagnostics  # `a` and the knock-on `logits`
    for d in warnings:
        start, end = d["range"]["start"], d["range"]["end"]
        middle = {"line": start["line"], "character": (start["character"] + end["character"]) // 2}
        for p in (start, middle, end):
            actions = s.result("textDocument/codeAction", {
                "textDocument": {"uri": uri}, "range": {"start": p, "end": p},
                "context": {"diagnostics": []}})
            quick = [a for a in actions if a["kind"] == "quickfix"
                     and a["diagnostics"][0]["code"] == "RX4000"]
            assert quick and quick[0]["title"].startswith("Check '"), (p, actions)
    # Applying the match_cast fix of `a` removes its warning and keeps the file clean otherwise.
    a_warning = [d for d in warnings if d["range"]["start"]["line"] == A_LINE][0]
    fix = [a for a in actions_for(s, uri, a_warning) if a.get("isPreferred")][0]
    text, after = apply_action(s, uri, MLP8, 2, fix)
    assert "a_value = R.nn.relu(hb)" in text, text
    assert 'a = R.match_cast(a_value, R.Tensor((8, 128), dtype="float32"))' in text, text
    assert [d["code"] for d in after if d["severity"] <= 2] == ["RX4000"], after  # logits only
    # The other fix takes the inferred StructInfo as the annotation.
    logits = [d for d in after if d["code"] == "RX4000"][0]
    take = [a for a in actions_for(s, uri, logits) if a["title"].startswith("Annotate 'logits'")]
    text, after = apply_action(s, uri, text, 3, take[0])
    assert 'logits: R.Tensor((8, 10), dtype="float32")' in text, text
    assert s.finish() == 0


OBJECTS = """# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def two(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        return x

    @R.function
    def main(o: R.Object, p: R.Object) -> R.Tensor((2,), dtype="float32"):
        cls = Module
        a: R.Tensor((2,), dtype="float32") = o
        b = cls.two(p)
        return a

    @R.function
    def back(o: R.Object) -> R.Tensor((2,), dtype="float32"):
        return o
"""


@test
def an_object_where_a_tensor_is_expected_is_an_error_with_a_match_cast_fix(s):
    # The seed spec's check_compatibility step 2: errors (RX3000, RX3001, RX3004), each repaired by
    # checking the value at run time.
    uri = "file:///t/objects.rx"
    s.initialize()
    s.open(uri, OBJECTS)
    diagnostics = s.diagnostics(uri, 1)["diagnostics"]
    assert sorted(d["code"] for d in diagnostics) == ["RX3000", "RX3001", "RX3004"], diagnostics
    assert all(d["severity"] == 1 for d in diagnostics), diagnostics
    by_code = {d["code"]: d for d in diagnostics}
    fix = [a for a in actions_for(s, uri, by_code["RX3004"]) if a["kind"] == "quickfix"]
    text, after = apply_action(s, uri, OBJECTS, 2, fix[0])
    assert 'o_cast = R.match_cast(o, R.Tensor((2,), dtype="float32"))' in text, text
    assert sorted(d["code"] for d in after) == ["RX3000", "RX3001"], after
    s.change(uri, 3, [{"text": OBJECTS}])
    s.diagnostics(uri, 3)
    fix = [a for a in actions_for(s, uri, by_code["RX3000"]) if a.get("isPreferred")]
    assert fix and fix[0]["title"].startswith("Check '"), fix
    text, after = apply_action(s, uri, OBJECTS, 4, fix[0])
    assert 'a = R.match_cast(a_value, R.Tensor((2,), dtype="float32"))' in text, text
    assert sorted(d["code"] for d in after) == ["RX3001", "RX3004"], after
    rx3001 = [d for d in after if d["code"] == "RX3001"][0]
    fix = [a for a in actions_for(s, uri, rx3001) if a["kind"] == "quickfix"]
    text, after = apply_action(s, uri, text, 5, fix[0])
    assert 'p_cast = R.match_cast(p, R.Tensor((2,), dtype="float32"))' in text, text
    assert "b = cls.two(p_cast)" in text, text
    assert [d["code"] for d in after] == ["RX3004"], after
    assert s.finish() == 0


SHAPE_VAR = """# from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
    s = R.shape_of(x)
    y: R.Tensor(s, dtype="float32") = x
    return y
"""


@test
def hover_relates_a_shape_variable_annotation_through_what_it_holds(s):
    # y's annotation R.Tensor(s) with s = R.shape_of(x): compared through the values s holds, as
    # the check does (no warning), not "only possibly compatible". s is used by that annotation
    # (no RX4009 "never used" hint: a near miss of RX4009).
    uri = "file:///t/shape_var.rx"
    s.initialize()
    s.open(uri, SHAPE_VAR)
    diagnostics = s.diagnostics(uri, 1)["diagnostics"]
    assert diagnostics == [], diagnostics
    h = s.result("textDocument/hover", at(uri, pos(SHAPE_VAR, 5, "y:")))
    text = h["contents"]["value"]
    assert "possibly compatible" not in text, text
    assert "The annotation is less specific than the inferred StructInfo" in text, text
    assert s.finish() == 0


@test
def completion_is_plain_text_without_snippet_support(s):
    uri, _ = nav_session(s, capabilities={
        "textDocument": {"completion": {"completionItem": {"snippetSupport": False}}}})
    s.change(uri, 2, [change_range(16, 0, 16, 0, "        q = R.\n")])
    items = s.result("textDocument/completion", at(uri, {"line": 16, "character": 14}))
    add = [i for i in items if i["label"] == "add"][0]
    assert "insertTextFormat" not in add and "insertText" not in add, add
    assert all("$" not in i.get("insertText", "") for i in items)
    assert s.finish() == 0


@test
def signatures_show_the_struct_info_parameters(s):
    uri, _ = nav_session(s)
    s.change(uri, 2, [change_range(16, 0, 16, 0, "        q = R.call_tir(cls.helper, (x,), \n")])
    help = s.result("textDocument/signatureHelp", at(uri, {"line": 16, "character": 41}))
    label = help["signatures"][0]["label"]
    assert label == "R.call_tir(gvar, args, out_sinfo, tir_vars=None)", label
    assert help["activeParameter"] == 2, help
    s.change(uri, 3, [change_range(16, 41, 16, 41, "out_ty=")])
    help = s.result("textDocument/signatureHelp", at(uri, {"line": 16, "character": 48}))
    assert help["activeParameter"] == 2, help  # the newest dialect's spelling
    items = s.result("textDocument/completion", at(uri, {"line": 15, "character": 0}))
    s.change(uri, 4, [change_range(16, 0, 17, 0, "        q = R.\n")])
    items = s.result("textDocument/completion", at(uri, {"line": 16, "character": 14}))
    call_tir = [i for i in items if i["label"] == "call_tir"][0]
    assert "out_sinfo" in call_tir["detail"], call_tir
    assert s.finish() == 0


@test
def references_list_each_place_once_and_rename_keeps_quotes(s):
    uri, _ = nav_session(s)
    refs = s.result("textDocument/references", at(uri, pos(NAV, 10, "n"),
                                                  context={"includeDeclaration": True}))
    spans = sorted((r["range"]["start"]["line"], r["range"]["start"]["character"],
                    r["range"]["end"]["character"]) for r in refs)
    for a, b in zip(spans, spans[1:]):
        assert not (a[0] == b[0] and b[1] < a[2]), spans  # no two overlap
    edit = s.result("textDocument/rename", at(uri, pos(NAV, 10, "n"), newName="rows"))
    text = apply_edits(NAV, edit["changes"][uri])
    assert 'R.Tensor(("rows", 3), dtype="float32")' in text and "rows = T.int64()" in text, text
    assert s.finish() == 0


@test
def formatting_a_file_with_a_syntax_error_says_why(s):
    uri = "file:///t/broken.rx"
    s.initialize()
    s.open(uri, BROKEN)
    s.diagnostics(uri, 1)
    assert s.result("textDocument/formatting", {
        "textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}}) is None
    # Sent before the (null) result.
    shown = [m for m in s.seen if m.get("method") == "window/showMessage"]
    assert shown, s.seen
    message = shown[0]["params"]["message"]
    assert message.startswith("cannot format: line 8, column") and "[RX1" in message, message
    assert s.finish() == 0


@test
def repeated_versions_are_applied_in_order_and_not_warned_about(s):
    uri = "file:///t/burst.rx"
    s.initialize()
    s.open(uri, VALID)
    s.diagnostics(uri, 1)
    # Neovim 0.7 sends several changes of one tick with one version.
    for _ in range(3):
        s.change(uri, 2, [change_range(7, 0, 7, 0, "            q = x\n")])
    final = s.diagnostics(uri, 2)
    s.result("textDocument/hover", at(uri, {"line": 7, "character": 12}))
    text_lines = [m for m in s.seen if m.get("method") == "window/logMessage"
                  and "did not increase" in m["params"]["message"] and m["params"]["type"] <= 2]
    assert not text_lines, text_lines
    h = s.result("textDocument/hover", at(uri, {"line": 9, "character": 12}))
    assert h and "q" in h["contents"]["value"], h  # three lines inserted, in order
    assert final is not None
    assert s.finish() == 0


@test
def completion_where_an_expression_starts_in_unfinished_code(s):
    uri, _ = nav_session(s)
    # After `q = ` and inside an unclosed call the variables in scope are offered; inside an
    # operator call its keyword arguments too.
    s.change(uri, 2, [change_range(15, 0, 15, 0, "        q = \n")])
    s.diagnostics(uri, 2)
    items = {i["label"] for i in s.result("textDocument/completion",
                                          at(uri, {"line": 15, "character": 12}))}
    assert {"x", "y"} <= items, sorted(items)
    s.change(uri, 3, [change_range(15, 12, 15, 12, "R.sum(y, ")])
    s.diagnostics(uri, 3)
    items = {i["label"] for i in s.result("textDocument/completion",
                                          at(uri, {"line": 15, "character": 21}))}
    assert {"x", "y", "axis=", "keepdims="} <= items, sorted(items)
    assert s.finish() == 0


@test
def a_document_reopened_after_close_is_answered_as_new(s):
    uri = "file:///t/reopen.rx"
    s.initialize()
    s.open(uri, NAV.replace("        z = cls.helper(x)\n", "        z = cls.helper(x\n"))
    s.diagnostics(uri, 1)
    s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    s.open(uri, NAV)
    assert s.diagnostics(uri, 1)["diagnostics"] is not None
    items = {i["label"] for i in s.result("textDocument/completion",
                                          at(uri, {"line": 15, "character": 8}))}
    assert {"x", "y"} <= items, sorted(items)
    h = s.result("textDocument/hover", at(uri, pos(NAV, 15, "z")))
    assert h and "z: R.Tensor((2, 3)" in h["contents"]["value"], h
    assert s.finish() == 0


@test
@server_args("--debounce-ms", "40", "--max-analysed-mib", "0.01")
def a_document_past_the_size_limit_is_highlighted_not_analysed(s):
    """Past --max-analysed-mib a document is not analysed (its tree and IR would take tens of
    times its size): it is highlighted from the text, the person is told once, and the other
    documents are served as usual."""
    s.initialize()
    big, small = "file:///t/big.rx", "file:///t/small.rx"
    padding = "".join("# line %d of a long comment\n" % i for i in range(600))
    big_text = padding + BROKEN  # an error that an analysis would report
    assert len(big_text) > 0.01 * 1024 * 1024
    s.open(big, big_text)
    told = s.wait(lambda m: m.get("method") == "window/showMessage", what="the size message")
    assert told["params"]["type"] == 3 and "not analysed" in told["params"]["message"], told
    assert "big.rx" in told["params"]["message"], told
    assert s.diagnostics(big, 1)["diagnostics"] == []
    s.open(small, BROKEN)
    assert s.diagnostics(small, 1)["diagnostics"], "the small document is analysed"
    line = padding.count("\n") + 2  # `@I.ir_module`
    # Tokens by range only (the viewport): all of a huge file's would hold the server.
    tokens = s.result("textDocument/semanticTokens/full", {"textDocument": {"uri": big}})["data"]
    assert tokens == []
    legend = s.initialized_result["capabilities"]["semanticTokensProvider"]["legend"]
    ranged = s.result("textDocument/semanticTokens/range", {
        "textDocument": {"uri": big},
        "range": {"start": {"line": line, "character": 0}, "end": {"line": line + 2, "character": 0}}})
    decoded = decode_tokens(ranged["data"], legend, big_text)
    assert [t[2:4] for t in decoded] == [("I", "namespace"), ("ir_module", "decorator")], decoded
    assert s.result("textDocument/hover", at(big, {"line": line + 6, "character": 12})) is None
    # Typing in it: no new message, still no analysis.
    s.change(big, 2, [change_range(0, 0, 0, 0, "#")])
    assert s.diagnostics(big, 2)["diagnostics"] == []
    assert s.finish() == 0
    assert sum(m.get("method") == "window/showMessage" for m in s.seen) == 1


@test
@server_args("--debounce-ms", "0")
def nothing_is_published_after_the_shutdown_answer(s):
    """`shutdown` is answered without waiting for an analysis under way; that analysis then
    publishes nothing."""
    s.initialize()
    uri = "file:///t/large.rx"
    body = "".join(VALID.split("class Module:\n", 1)[1].replace("def main", "def f%d" % i)
                   for i in range(400))
    s.open(uri, VALID.split("class Module:\n", 1)[0] + "class Module:\n" + body)
    shutdown = s.request_async("shutdown")
    assert s.response(shutdown)["result"] is None
    answered = len(s.seen)
    s.notify("exit")
    assert s.wait_exit() == 0
    while True:
        try:
            message = s.inbox.get(timeout=1)
        except queue.Empty:
            break
        if message is None:
            break
        s.seen.append(message)
    late = [m for m in s.seen[answered:] if m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["diagnostics"]]
    assert not late, late


@test
def semantic_tokens_asked_twice_are_the_same(s):
    uri, _ = nav_session(s)
    first = s.result("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})
    again = s.result("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})
    assert first["data"] and again["data"] == first["data"]
    assert again["resultId"] != first["resultId"]
    delta = s.result("textDocument/semanticTokens/full/delta",
                     {"textDocument": {"uri": uri}, "previousResultId": again["resultId"]})
    assert delta["edits"] == [], delta
    assert s.finish() == 0


# ------------------------------------------------------------------------------------ main

def main():
    global RAXC
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raxc", required=True)
    parser.add_argument("-k", default="", help="run the tests whose name contains this")
    parser.add_argument("-v", action="store_true", help="print every message of failed tests")
    args = parser.parse_args()
    RAXC = os.path.abspath(args.raxc)
    failed = 0
    selected = [t for t in TESTS if args.k in t.__name__]
    for fn in selected:
        started = time.monotonic()
        s = Session(*getattr(fn, "server_args", ["--debounce-ms", "40"]))
        problem = None
        try:
            fn(s)
        except Exception:
            problem = traceback.format_exc()
            if args.v:
                problem += "".join("    %s\n" % json.dumps(m)[:300] for m in s.seen)
        finally:
            stderr = s.close()
        for marker in ("Sanitizer", "runtime error:"):
            if marker in stderr and not problem:
                problem = "the server's stderr has a %s report:\n%s" % (marker, stderr[:20000])
        if problem:
            failed += 1
            print("FAIL %s\n%s" % (fn.__name__, problem))
        else:
            print("PASS %-50s %.2fs" % (fn.__name__, time.monotonic() - started))
    print("%d/%d sessions passed" % (len(selected) - failed, len(selected)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
