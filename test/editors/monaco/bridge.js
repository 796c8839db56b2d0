// bridge.js — serves the built test page (dist/) and the fixture, and bridges each WebSocket
// connection on /lsp to its own `raxc lsp` process (stdio JSON-RPC), with vscode-ws-jsonrpc,
// the server-side glue of the monaco-languageclient examples. Listens on 127.0.0.1 only.
//
//   node bridge.js RAXC FIXTURE.rx     prints "LISTENING <port>" once ready
//   TRACE=1 also prints every forwarded message (truncated).
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { WebSocketServer } = require('ws');
const { toSocket } = require('vscode-ws-jsonrpc');
const { createWebSocketConnection, createServerProcess, forward } = require('vscode-ws-jsonrpc/server');

const [raxc, fixture] = process.argv.slice(2);
if (!raxc || !fixture) {
  console.error('usage: node bridge.js RAXC FIXTURE.rx');
  process.exit(2);
}
const root = path.join(__dirname, 'dist');
const types = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.ttf': 'font/ttf', '.woff': 'font/woff',
  '.woff2': 'font/woff2', '.svg': 'image/svg+xml', '.png': 'image/png',
};

function serve(req, res) {
  let p = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
  if (p === '/fixture.rx') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    return fs.createReadStream(fixture).pipe(res);
  }
  if (p === '/') p = '/index.html';
  const file = path.join(root, path.normalize(p));
  // Only files under dist/ (normalize + prefix check keeps '..' out).
  if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404);
    return res.end();
  }
  res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
}

const server = http.createServer(serve);
const wss = new WebSocketServer({ noServer: true });
server.on('upgrade', (req, sock, head) => {
  if (req.url !== '/lsp') return sock.destroy();
  wss.handleUpgrade(req, sock, head, (ws) => {
    const connection = createWebSocketConnection(toSocket(ws));
    const lsp = createServerProcess('raxc', raxc, ['lsp']);
    forward(connection, lsp, (msg) => {
      if (process.env.TRACE) console.log('MSG', JSON.stringify(msg).slice(0, 300));
      return msg;
    });
    // One server per page: it ends with its WebSocket.
    ws.on('close', () => lsp.dispose());
  });
});
server.listen(0, '127.0.0.1', () => console.log('LISTENING ' + server.address().port));
