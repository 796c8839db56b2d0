#!/usr/bin/env python3
"""A stand-in for `raxc lsp` (stdlib only) to test the Neovim plugin's client glue without the
real server: initialize, one diagnostic per opened document (its message names the document),
hover, shutdown/exit; MethodNotFound for other requests."""
import json
import sys


def read_message():
    headers = {}
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.decode("ascii").strip()
        if not line:
            break
        key, value = line.split(":", 1)
        headers[key.strip().lower()] = value.strip()
    return json.loads(sys.stdin.buffer.read(int(headers["content-length"])).decode("utf-8"))


def send(message):
    body = json.dumps(dict(message, jsonrpc="2.0")).encode("utf-8")
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def publish(uri, version):
    send({"method": "textDocument/publishDiagnostics", "params": {
        "uri": uri, "version": version, "diagnostics": [{
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "severity": 2, "code": "RX9999", "source": "fake-raxc",
            "message": "fake diagnostic for " + uri.rsplit("/", 1)[-1]}]}})


while True:
    message = read_message()
    if message is None:
        break
    method, request_id = message.get("method"), message.get("id")
    if method == "initialize":
        send({"id": request_id, "result": {
            "capabilities": {"textDocumentSync": {"openClose": True, "change": 2},
                             "hoverProvider": True},
            "serverInfo": {"name": "fake-raxc", "version": "0"}}})
    elif method == "textDocument/didOpen":
        document = message["params"]["textDocument"]
        publish(document["uri"], document.get("version"))
    elif method == "textDocument/hover":
        send({"id": request_id, "result": {"contents": {"kind": "markdown", "value": "fake hover"}}})
    elif method == "shutdown":
        send({"id": request_id, "result": None})
    elif method == "exit":
        break
    elif request_id is not None and method is not None:
        send({"id": request_id, "error": {"code": -32601, "message": "method not found: " + method}})
