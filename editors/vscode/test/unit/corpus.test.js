// Tokenizes every .rx file of the repository's examples and TVM conformance corpus with the
// TextMate grammar (vscode-textmate, as VS Code does): no line may end up in an `invalid` scope,
// every file must end back at the top-level rule (no unbalanced begin/end, e.g. a parameter
// list or a string that swallows the rest of the file), and each file must tokenize fast.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const extRoot = path.join(__dirname, '..', '..');
const repoRoot = path.join(extRoot, '..', '..');
const grammarPath = path.join(extRoot, 'syntaxes', 'relax.tmLanguage.json');

function corpusFiles() {
  const dirs = [path.join(repoRoot, 'examples'),
    path.join(repoRoot, 'test', 'conformance', 'tvm-v0.25.0', 'visible')];
  const files = [];
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.rx')) files.push(path.join(dir, f));
  }
  return files;
}

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm')).buffer;
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => (scopeName === 'source.relax'
      ? vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath) : null),
  });
  return registry.loadGrammar('source.relax');
}

test('the conformance corpus tokenizes cleanly', async () => {
  const grammar = await loadGrammar();
  const files = corpusFiles();
  assert.ok(files.length > 0, 'no .rx files found');
  const problems = [];
  let namespaces = 0;
  for (const file of files) {
    const started = Date.now();
    let stack = vsctm.INITIAL;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const r = grammar.tokenizeLine(line, stack);
      for (const t of r.tokens) {
        if (t.scopes.some((s) => s.startsWith('invalid'))) {
          problems.push(`${path.basename(file)}:${i + 1}: ${t.scopes.join(' ')}`);
        }
        if (t.scopes.includes('entity.name.namespace.relax')) namespaces++;
      }
      stack = r.ruleStack;
    });
    if (stack.depth !== 1) problems.push(`${path.basename(file)}: ends inside a nested rule`);
    const ms = Date.now() - started;
    if (ms > 2000) problems.push(`${path.basename(file)}: took ${ms} ms`);
  }
  assert.deepEqual(problems.slice(0, 20), []);
  assert.ok(namespaces > files.length, 'R/T/I namespaces are recognised');
});
