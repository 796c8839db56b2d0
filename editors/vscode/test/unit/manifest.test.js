// Consistency of the extension manifest with its grammar and language configuration:
// every file it points at exists, the semantic-token fallback scopes are scopes the TextMate
// grammar really produces (so colours do not jump when the server's tokens arrive), and the
// versions satisfy vsce's checks. Run: node --test test/unit/
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const contributes = pkg.contributes;
const grammarPath = path.join(root, contributes.grammars[0].path);
const grammarText = fs.readFileSync(grammarPath, 'utf8');

// LSP 3.17 predefined token types and modifiers.
const STANDARD_TYPES = new Set(['namespace', 'type', 'class', 'enum', 'interface', 'struct',
  'typeParameter', 'parameter', 'variable', 'property', 'enumMember', 'event', 'function',
  'method', 'macro', 'keyword', 'modifier', 'comment', 'string', 'number', 'regexp', 'operator',
  'decorator']);
const STANDARD_MODIFIERS = new Set(['declaration', 'definition', 'readonly', 'static',
  'deprecated', 'abstract', 'async', 'modification', 'documentation', 'defaultLibrary']);

function scopesOfGrammar(text) {
  const scopes = new Set();
  for (const m of text.matchAll(/"name":\s*"([^"]+)"/g)) {
    for (const s of m[1].split(/\s+/)) scopes.add(s);
  }
  return scopes;
}

test('the language, grammar and configuration files exist and parse', () => {
  const lang = contributes.languages.find((l) => l.id === 'relax');
  assert.ok(lang, 'language relax');
  assert.deepEqual(lang.extensions, ['.rx']);
  const conf = JSON.parse(fs.readFileSync(path.join(root, lang.configuration), 'utf8'));
  assert.equal(conf.comments.lineComment, '#');
  assert.ok(conf.brackets.some(([o, c]) => o === '(' && c === ')'));
  assert.ok(new RegExp(conf.onEnterRules[0].beforeText).test('    def main(x):'), 'indent after :');
  assert.ok(new RegExp(conf.indentationRules.increaseIndentPattern).test('with R.dataflow():'));
  const grammar = JSON.parse(grammarText);
  assert.equal(grammar.scopeName, contributes.grammars[0].scopeName);
  assert.equal(contributes.grammars[0].language, 'relax');
});

test('every semantic token type and modifier used is standard or declared', () => {
  const types = new Set([...STANDARD_TYPES, ...contributes.semanticTokenTypes.map((t) => t.id)]);
  const mods = new Set([...STANDARD_MODIFIERS,
    ...contributes.semanticTokenModifiers.map((m) => m.id)]);
  for (const t of contributes.semanticTokenTypes) {
    assert.ok(STANDARD_TYPES.has(t.superType), `superType of ${t.id}`);
  }
  for (const { scopes } of contributes.semanticTokenScopes) {
    for (const selector of Object.keys(scopes)) {
      const [type, ...modifiers] = selector.split('.');
      assert.ok(types.has(type), `token type '${type}' in '${selector}'`);
      for (const m of modifiers) assert.ok(mods.has(m), `modifier '${m}' in '${selector}'`);
    }
  }
});

test('semantic-token fallback scopes are produced by the TextMate grammar', () => {
  const produced = scopesOfGrammar(grammarText);
  // Standard mappings VS Code applies itself, for tokens the grammar also classifies.
  const standard = ['entity.name.namespace.relax', 'support.function.relax', 'support.type.relax',
    'entity.name.function.relax', 'variable.parameter.function.relax'];
  for (const s of standard) assert.ok(produced.has(s), s);
  const notInGrammar = new Set([
    // Needs name resolution, so only the server can tell: no TextMate rule on purpose.
    'entity.name.type.parameter.relax', 'variable.other.dataflow.relax',
    'entity.name.function.tir.relax',
  ]);
  for (const { scopes } of contributes.semanticTokenScopes) {
    for (const [selector, list] of Object.entries(scopes)) {
      for (const scope of list) {
        assert.ok(produced.has(scope) || notInGrammar.has(scope),
          `fallback scope ${scope} of '${selector}' is not produced by the grammar`);
      }
    }
  }
});

test('versions satisfy vsce: @types/vscode not newer than engines.vscode, pinned deps', () => {
  const engine = pkg.engines.vscode.replace(/^\^/, '').split('.').map(Number);
  const types = pkg.devDependencies['@types/vscode'].split('.').map(Number);
  assert.ok(types[0] < engine[0] || (types[0] === engine[0] && types[1] <= engine[1]),
    `@types/vscode ${types.join('.')} > engines.vscode ${engine.join('.')}`);
  for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
    assert.match(version, /^\d+\.\d+\.\d+$/, `${name} must be pinned exactly`);
  }
  assert.match(pkg.devDependencies['@vscode/vsce'], /^3\.9\./, 'vsce 4 needs Node 22');
  const commands = contributes.commands.map((c) => c.command);
  assert.ok(commands.includes('relax.restartServer'));
  assert.ok(contributes.configuration.properties['relax.server.path']);
  assert.ok(contributes.configuration.properties['relax.trace.server']);
});
