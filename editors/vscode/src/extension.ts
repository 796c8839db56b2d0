// VS Code client for `raxc lsp`: starts the server over stdio for `relax` documents, and offers
// a restart command. Everything language-specific (diagnostics, hover, semantic tokens, ...) is
// the server's; this file only wires settings to vscode-languageclient.
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

const CLIENT_ID = 'relax'; // also the settings prefix: vscode-languageclient reads relax.trace.server
const CLIENT_NAME = 'Relax Language Server (raxc)';

let client: LanguageClient | undefined;
let outputChannel: vscode.LogOutputChannel | undefined;

interface ServerCommand {
  command: string;
  args: string[];
}

// `${workspaceFolder}` in relax.server.path lets a project point at its own build of raxc.
function expandWorkspaceFolder(value: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? value.split('${workspaceFolder}').join(folder.uri.fsPath) : value;
}

function readServerCommand(): ServerCommand {
  const config = vscode.workspace.getConfiguration('relax');
  const command = expandWorkspaceFolder(config.get<string>('server.path', 'raxc') || 'raxc');
  const args = config.get<string[]>('server.args', ['lsp']);
  return { command, args: Array.isArray(args) ? args : ['lsp'] };
}

function createClient(): LanguageClient {
  const { command, args } = readServerCommand();
  const serverOptions: ServerOptions = {
    run: { command, args, transport: TransportKind.stdio },
    debug: { command, args, transport: TransportKind.stdio },
  };
  outputChannel ??= vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'relax' },
      { scheme: 'untitled', language: 'relax' },
    ],
    outputChannel,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
  };
  return new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
}

async function startClient(): Promise<void> {
  client = createClient();
  try {
    await client.start();
  } catch (error) {
    const { command } = readServerCommand();
    void vscode.window.showErrorMessage(
      `Relax: could not start the language server '${command} lsp' (${String(error)}). ` +
        'Set "relax.server.path" to your raxc executable.',
    );
  }
}

async function restartClient(): Promise<void> {
  const old = client;
  client = undefined;
  if (old) {
    try {
      await old.stop();
    } catch {
      // A server that already died cannot be stopped; starting a new one is what matters.
    }
  }
  await startClient();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand('relax.restartServer', restartClient),
    vscode.commands.registerCommand('relax.showOutput', () => outputChannel?.show(true)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('relax.server')) void restartClient();
    }),
  );
  await startClient();
}

export async function deactivate(): Promise<void> {
  const old = client;
  client = undefined;
  await old?.stop();
}
