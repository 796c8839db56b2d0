// `raxc lsp` driven through vscode-languageserver-protocol, the library under VS Code's client
// (vscode-languageclient). Skipped, with a message, while `raxc lsp` does not exist.
//   RAXC=/path/to/raxc node --test test/protocol/        (default: <repo>/build/raxc, else PATH)
// Diagnostics are checked against `raxc check` on the same text, so the test follows the
// analysis as it grows: whatever the CLI reports, the server must publish, at the same places
// (in UTF-16 columns), and nothing else.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const rpc = require('vscode-languageserver-protocol/node');

const repoRoot = path.join(__dirname, '..', '..', '..', '..');
const fixtures = path.join(repoRoot, 'test', 'editors', 'fixtures');
const RAXC = process.env.RAXC ||
  (fs.existsSync(path.join(repoRoot, 'build', 'raxc')) ? path.join(repoRoot, 'build', 'raxc') : 'raxc');
const TIMEOUT = Number(process.env.LSP_TEST_TIMEOUT_MS || 10000);

// `raxc lsp --help` must succeed and describe the lsp subcommand (CLI11 prints the top-level
// help, with status 0, for an unknown subcommand followed by --help).
function serverAvailable() {
  const r = spawnSync(RAXC, ['lsp', '--help'], { encoding: 'utf8', timeout: 10000 });
  return r.status === 0 && /Usage:.*\blsp\b/.test(r.stdout || '');
}
const SKIP = serverAvailable() ? false : `'${RAXC} lsp' is not available (raxc lsp --help failed)`;
if (SKIP) console.log(`# SKIP protocol tests: ${SKIP}`);

function withTimeout(promise, what, ms = TIMEOUT) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// The client capabilities VS Code's client sends that matter here.
const CLIENT_CAPABILITIES = {
  general: { positionEncodings: ['utf-16'] },
  textDocument: {
    synchronization: { didSave: true },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    definition: { linkSupport: true },
    publishDiagnostics: { relatedInformation: true, versionSupport: true, tagSupport: { valueSet: [1, 2] },
      codeDescriptionSupport: true },
  },
  window: { workDoneProgress: true },
};

async function startServer() {
  const proc = spawn(RAXC, ['lsp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (b) => { stderr += b; });
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  const conn = rpc.createProtocolConnection(new rpc.StreamMessageReader(proc.stdout),
    new rpc.StreamMessageWriter(proc.stdin));
  const published = new Map(); // uri -> list of publishDiagnostics params, in arrival order
  const waiters = [];
  conn.onNotification(rpc.PublishDiagnosticsNotification.type, (p) => {
    if (!published.has(p.uri)) published.set(p.uri, []);
    published.get(p.uri).push(p);
    for (const w of waiters.splice(0)) w();
  });
  conn.onRequest(() => null); // workDoneProgress/create, workspace/configuration, ...
  conn.listen();
  const init = await withTimeout(conn.sendRequest(rpc.InitializeRequest.type, {
    processId: process.pid, clientInfo: { name: 'raxc-protocol-test' }, rootUri: null,
    workspaceFolders: null, capabilities: CLIENT_CAPABILITIES,
  }), 'initialize');
  await conn.sendNotification(rpc.InitializedNotification.type, {});

  // Resolves with the latest publication for `uri` that satisfies `pred`.
  async function diagnosticsWhere(uri, pred, what) {
    const find = () => (published.get(uri) || []).filter(pred).pop();
    return withTimeout(new Promise((resolve) => {
      const check = () => { const p = find(); if (p) resolve(p); else waiters.push(check); };
      check();
    }), what);
  }
  async function stop() {
    await withTimeout(conn.sendRequest(rpc.ShutdownRequest.type), 'shutdown');
    await conn.sendNotification(rpc.ExitNotification.type);
    const code = await withTimeout(exited, 'exit');
    conn.dispose();
    return code;
  }
  return { proc, conn, init, diagnosticsWhere, stop, stderr: () => stderr };
}

function open(conn, uri, text, version = 1) {
  return conn.sendNotification(rpc.DidOpenTextDocumentNotification.type,
    { textDocument: { uri, languageId: 'relax', version, text } });
}

function utf16Column(lineText, byteColumn0) {
  return Buffer.from(lineText, 'utf8').subarray(0, byteColumn0).toString('utf8').length;
}

// `raxc check` on `text` as (code, severity, 0-based line, UTF-16 column) strings.
function cliDiagnostics(text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raxc-lsp-test-'));
  const file = path.join(dir, 'doc.rx');
  fs.writeFileSync(file, text);
  const r = spawnSync(RAXC, ['check', '--diagnostics-format=json', file], { encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true, force: true });
  assert.ok(r.status === 0 || r.status === 1, `raxc check failed: ${r.stderr}`);
  const lines = text.split('\n');
  const out = [];
  for (const entry of JSON.parse(r.stdout)) {
    for (const d of entry.diagnostics) {
      if (d.severity !== 'error' && d.severity !== 'warning') continue;
      const line = d.range.start.line - 1;
      const col = utf16Column(lines[line] || '', d.range.start.column - 1);
      out.push(`${d.code} ${d.severity === 'error' ? 1 : 2} ${line}:${col}`);
    }
  }
  return out.sort();
}

function lspDiagnostics(params) {
  return params.diagnostics.filter((d) => (d.severity || 1) <= 2)
    .map((d) => `${d.code} ${d.severity || 1} ${d.range.start.line}:${d.range.start.character}`).sort();
}

const fixture = (name) => fs.readFileSync(path.join(fixtures, name), 'utf8');
const uriOf = (name) => `file:///raxc-editor-tests/${name}`;

test('lifecycle: initialize, capabilities, shutdown, exit 0', { skip: SKIP }, async () => {
  const s = await startServer();
  const caps = s.init.capabilities;
  const sync = typeof caps.textDocumentSync === 'number' ? caps.textDocumentSync : caps.textDocumentSync.change;
  assert.equal(sync, rpc.TextDocumentSyncKind.Incremental);
  assert.ok(s.init.serverInfo && /raxc/.test(s.init.serverInfo.name), 'serverInfo.name');
  assert.ok(!caps.positionEncoding || caps.positionEncoding === 'utf-16', 'utf-16 when only it is offered');
  await assert.rejects(s.conn.sendRequest('raxc/noSuchMethod', {}),
    (e) => e.code === rpc.ErrorCodes.MethodNotFound);
  assert.equal(await s.stop(), 0);
});

test('diagnostics: the same as raxc check, versioned, [] when the file becomes clean',
  { skip: SKIP }, async () => {
    const s = await startServer();
    const uri = uriOf('diagnostics.rx');
    const text = fixture('diagnostics.rx');
    await open(s.conn, uri, text, 1);
    const first = await s.diagnosticsWhere(uri, (p) => p.version === undefined || p.version === 1,
      'diagnostics for version 1');
    assert.deepEqual(lspDiagnostics(first), cliDiagnostics(text));
    for (const d of first.diagnostics) {
      assert.match(String(d.code), /^RX\d{4}$/);
      assert.ok(d.message.length > 0 && d.range.end.line >= d.range.start.line);
    }
    const clean = fixture('clean.rx');
    await s.conn.sendNotification(rpc.DidChangeTextDocumentNotification.type,
      { textDocument: { uri, version: 2 }, contentChanges: [{ text: clean }] });
    const second = await s.diagnosticsWhere(uri, (p) => p.version === 2, 'diagnostics for version 2');
    assert.deepEqual(lspDiagnostics(second), cliDiagnostics(clean));
    assert.equal(await s.stop(), 0);
  });

test('hover shows the inferred StructInfo as python-fenced markdown', { skip: SKIP }, async (t) => {
  const s = await startServer();
  if (!s.init.capabilities.hoverProvider) {
    await s.stop();
    return t.skip('server does not advertise hoverProvider yet');
  }
  const uri = uriOf('clean.rx');
  await open(s.conn, uri, fixture('clean.rx'));
  // `b` in `        b = R.add(a, a)` (line 6 of clean.rx).
  const hover = await withTimeout(s.conn.sendRequest(rpc.HoverRequest.type,
    { textDocument: { uri }, position: { line: 5, character: 8 } }), 'hover');
  assert.ok(hover, 'a hover result');
  const value = typeof hover.contents === 'string' ? hover.contents : hover.contents.value;
  assert.match(value, /```python/);
  assert.match(value, /R\.Tensor\(\(2, 3\), dtype="float32"\)/);
  assert.equal(await s.stop(), 0);
});

test('incremental edits after non-ASCII text stay in sync (UTF-16 positions)', { skip: SKIP }, async () => {
  const s = await startServer();
  const uri = uriOf('unicode.rx');
  const head = '@R.function\ndef f(a: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):\n';
  const prefix = '    R.func_attr({"note": "😀 ünï Δ 𝔁"}); b = R.';
  let text = head + `${prefix}add(a, a)\n    return b\n`;
  await open(s.conn, uri, text, 1);
  const line = 2;
  const at = (ch) => ({ line, character: ch });
  // 1. `add` -> `multiply`: the range starts after astral-plane characters.
  const addCol = prefix.length; // JS string length = UTF-16 code units
  await s.conn.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: { start: at(addCol), end: at(addCol + 3) }, text: 'multiply' }],
  });
  text = text.replace('R.add(a, a)', 'R.multiply(a, a)');
  // 2. the second argument -> an undefined name: an error whose column must be exact.
  const secondArg = (prefix + 'multiply(a, ').length;
  await s.conn.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 3 },
    contentChanges: [{ range: { start: at(secondArg), end: at(secondArg + 1) }, text: 'zz_undefined' }],
  });
  text = text.replace('R.multiply(a, a)', 'R.multiply(a, zz_undefined)');
  const published = await s.diagnosticsWhere(uri, (p) => p.version === 3, 'diagnostics for version 3');
  const expected = cliDiagnostics(text);
  assert.ok(expected.some((d) => d.endsWith(`${line}:${secondArg}`)), `raxc check: ${expected}`);
  assert.deepEqual(lspDiagnostics(published), expected);
  assert.equal(await s.stop(), 0);
});

// Applies TextEdits (UTF-16 positions, non-overlapping) to `text`, last first.
function applyEdits(text, edits) {
  const lines = text.split('\n');
  const offset = (p) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  for (const e of sorted) {
    text = text.slice(0, offset(e.range.start)) + e.newText + text.slice(offset(e.range.end));
  }
  return text;
}

async function change(conn, uri, version, text) {
  await conn.sendNotification(rpc.DidChangeTextDocumentNotification.type,
    { textDocument: { uri, version }, contentChanges: [{ text }] });
}

test('a possibly-compatible warning carries related information', { skip: SKIP }, async () => {
  const s = await startServer();
  const uri = uriOf('diagnostics.rx');
  await open(s.conn, uri, fixture('diagnostics.rx'));
  const published = await s.diagnosticsWhere(uri, (p) => p.version === 1, 'diagnostics');
  const warning = published.diagnostics.find((d) => d.code === 'RX4000');
  assert.ok(warning, JSON.stringify(published.diagnostics));
  assert.equal(warning.severity, 2);
  assert.match(warning.message, /only possibly compatible \(dimension 0: 'n' vs '8'\)/);
  assert.ok(warning.relatedInformation.length > 0);
  assert.equal(warning.relatedInformation[0].location.uri, uri);
  // The installed copy of `raxc explain`'s text next to the server, never a source file.
  assert.match(warning.codeDescription.href, /^file:\/\/.*\/share\/raxc\/diagnostics\.html#RX4000$/);
  assert.equal(await s.stop(), 0);
});

test('definition, semantic tokens, inlay hints and rename on clean.rx', { skip: SKIP }, async () => {
  const s = await startServer();
  const uri = uriOf('clean.rx');
  const text = fixture('clean.rx');
  await open(s.conn, uri, text);
  await s.diagnosticsWhere(uri, (p) => p.version === 1, 'diagnostics');
  const lines = text.split('\n');
  const callLine = lines.findIndex((l) => l.includes('cls.helper(y)'));
  const defLine = lines.findIndex((l) => l.includes('def helper('));
  // Definition of `helper` in `cls.helper(y)`.
  const where = await s.conn.sendRequest(rpc.DefinitionRequest.type, {
    textDocument: { uri }, position: { line: callLine, character: lines[callLine].indexOf('helper') + 1 } });
  const target = Array.isArray(where) ? where[0] : where;
  assert.equal(target.range.start.line, defLine);
  assert.equal(target.range.start.character, lines[defLine].indexOf('helper'));
  // Semantic tokens: decode and find `R` as a namespace and `a` as a parameter.
  const legend = s.init.capabilities.semanticTokensProvider.legend;
  const tokens = await s.conn.sendRequest(rpc.SemanticTokensRequest.type, { textDocument: { uri } });
  const decoded = [];
  for (let i = 0, line = 0, ch = 0; i < tokens.data.length; i += 5) {
    line += tokens.data[i];
    ch = tokens.data[i] ? tokens.data[i + 1] : ch + tokens.data[i + 1];
    decoded.push({ text: lines[line].substr(ch, tokens.data[i + 2]), type: legend.tokenTypes[tokens.data[i + 3]] });
  }
  assert.ok(decoded.some((t) => t.text === 'R' && t.type === 'namespace'), JSON.stringify(decoded.slice(0, 10)));
  assert.ok(decoded.some((t) => t.text === 'a' && t.type === 'parameter'));
  assert.ok(decoded.some((t) => t.text === 'add' && t.type === 'function'));
  // Inlay hints: the inferred StructInfo after `b`.
  const hints = await s.conn.sendRequest(rpc.InlayHintRequest.type, {
    textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: lines.length, character: 0 } } });
  const bLine = lines.findIndex((l) => l.includes('b = R.add(a, a)'));
  const hint = hints.find((h) => h.position.line === bLine);
  assert.equal(hint.label, ': R.Tensor((2, 3), dtype="float32")');
  // Rename `helper` everywhere; the result is still clean.
  const edit = await s.conn.sendRequest(rpc.RenameRequest.type, {
    textDocument: { uri }, position: { line: defLine, character: lines[defLine].indexOf('helper') }, newName: 'helper2' });
  const renamed = applyEdits(text, edit.changes[uri]);
  assert.match(renamed, /def helper2\(/);
  assert.match(renamed, /cls\.helper2\(y\)/);
  await change(s.conn, uri, 2, renamed);
  const after = await s.diagnosticsWhere(uri, (p) => p.version === 2, 'diagnostics after rename');
  assert.deepEqual(lspDiagnostics(after), []);
  assert.equal(await s.stop(), 0);
});

test('the R.match_cast quick fix removes a possibly-compatible warning', { skip: SKIP }, async () => {
  const s = await startServer();
  const uri = uriOf('cast.rx');
  const text = [
    '@I.ir_module',
    'class Module:',
    '    @R.function',
    '    def pad(x: R.Tensor(("n", "m"), dtype="float32")) -> R.Tensor(("n", "m"), dtype="float32"):',
    '        return x',
    '',
    '    @R.function',
    '    def main(b: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=2):',
    '        cls = Module',
    '        c = cls.pad(b)',
    '        return c',
    ''].join('\n');
  await open(s.conn, uri, text);
  const published = await s.diagnosticsWhere(uri, (p) => p.version === 1, 'diagnostics');
  assert.deepEqual(lspDiagnostics(published), ['RX4001 2 9:12']);
  const warning = published.diagnostics[0];
  const actions = await s.conn.sendRequest(rpc.CodeActionRequest.type, {
    textDocument: { uri }, range: warning.range, context: { diagnostics: [warning] } });
  const fix = actions.find((a) => a.kind === 'quickfix');
  assert.ok(fix, JSON.stringify(actions));
  const fixed = applyEdits(text, fix.edit.changes[uri]);
  assert.match(fixed, /b_cast = R\.match_cast\(b, R\.Tensor\(\(n, m\), dtype="float32"\)\)/);
  await change(s.conn, uri, 2, fixed);
  const after = await s.diagnosticsWhere(uri, (p) => p.version === 2, 'diagnostics after the fix');
  assert.deepEqual(lspDiagnostics(after), []);
  assert.deepEqual(cliDiagnostics(fixed), []);
  assert.equal(await s.stop(), 0);
});
