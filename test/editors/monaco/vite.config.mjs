// Builds the test page (index.html + src/main.ts) into dist/. No dev server is used: the
// bridge (bridge.js) serves dist/ and forwards the WebSocket to `raxc lsp`.
import { defineConfig } from 'vite';

export default defineConfig({
  // Relative asset URLs, so dist/ can be served from any path.
  base: './',
  logLevel: 'warn',
  build: { target: 'esnext', chunkSizeWarningLimit: 100000, reportCompressedSize: false },
  worker: { format: 'es' },
});
