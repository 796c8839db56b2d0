// The test page: VS Code's workbench code (@codingame/monaco-vscode-api) with the real
// vscode-languageclient (through monaco-languageclient), connected to `raxc lsp` over the
// WebSocket bridge. The language is registered from the VS Code extension's own manifest,
// TextMate grammar and language configuration (editors/vscode), so colours, brackets and
// semantic token scopes are the extension's. run-test drives the page through `window.vscode`.
import * as vscode from 'vscode';
import * as monaco from '@codingame/monaco-vscode-editor-api';
import { EditorApp, type EditorAppConfig } from 'monaco-languageclient/editorApp';
import { configureDefaultWorkerFactory } from 'monaco-languageclient/workerFactory';
import { MonacoVscodeApiWrapper, type MonacoVscodeApiConfig } from 'monaco-languageclient/vscodeApiWrapper';
import { LanguageClientWrapper, type LanguageClientConfig } from 'monaco-languageclient/lcwrapper';
import manifest from '../../../../editors/vscode/package.json';
import grammar from '../../../../editors/vscode/syntaxes/relax.tmLanguage.json?raw';
import languageConfiguration from '../../../../editors/vscode/language-configuration.json?raw';

// Exposed for run-test (playwright's page.evaluate).
const w = window as any;
w.vscode = vscode;
w.monaco = monaco;

// The parts of the extension's `contributes` that need no extension code: the command and
// settings entries belong to extension.ts, which does not run here.
function contributes() {
  const c = manifest.contributes as Record<string, unknown>;
  const keep = ['languages', 'grammars', 'semanticTokenTypes', 'semanticTokenModifiers', 'semanticTokenScopes', 'configurationDefaults'];
  return Object.fromEntries(keep.filter((k) => k in c).map((k) => [k, c[k]]));
}

async function main() {
  const params = new URLSearchParams(location.search);
  const fileName = params.get('file') || 'sample.rx';
  const text = await (await fetch('/fixture.rx')).text();
  const uri = vscode.Uri.file(`/workspace/${fileName}`);
  w.documentUri = uri;

  const vscodeApiConfig: MonacoVscodeApiConfig = {
    $type: 'extended',
    viewsConfig: { $type: 'EditorService' },
    userConfiguration: {
      json: JSON.stringify({
        'workbench.colorTheme': 'Default Dark Modern',
        'editor.hover.delay': 0,
        'editor.semanticHighlighting.enabled': true,
        'editor.fontSize': 14,
        'editor.minimap.enabled': false,
        'editor.inlayHints.enabled': 'off',
      }),
    },
    monacoWorkerFactory: configureDefaultWorkerFactory,
    extensions: [
      {
        config: {
          name: manifest.name,
          publisher: manifest.publisher,
          version: manifest.version,
          engines: { vscode: '*' },
          contributes: contributes(),
        },
        // Paths as in the manifest (relative to the extension root).
        filesOrContents: new Map([
          ['/syntaxes/relax.tmLanguage.json', grammar],
          ['/language-configuration.json', languageConfiguration],
        ]),
      },
    ],
  };
  const languageClientConfig: LanguageClientConfig = {
    languageId: 'relax',
    connection: { options: { $type: 'WebSocketUrl', url: `ws://${location.host}/lsp` } },
    clientOptions: {
      documentSelector: ['relax'],
      workspaceFolder: { index: 0, name: 'workspace', uri: vscode.Uri.file('/workspace') },
    },
  };
  const editorAppConfig: EditorAppConfig = { codeResources: { modified: { text, uri: uri.path } } };

  const apiWrapper = new MonacoVscodeApiWrapper(vscodeApiConfig);
  await apiWrapper.start();
  const lcWrapper = new LanguageClientWrapper(languageClientConfig);
  await lcWrapper.start();
  w.lcWrapper = lcWrapper;
  const editorApp = new EditorApp(editorAppConfig);
  await editorApp.start(document.getElementById('root')!);
  w.editor = editorApp.getEditor();
  w.appReady = true;
}

main().catch((e) => {
  console.error(e);
  w.appError = String((e && e.stack) || e);
});
