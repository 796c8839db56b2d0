-- Neovim 0.11+: `vim.lsp.enable('raxc')` reads this file from 'runtimepath' (older versions
-- ignore it; plugin/relax.lua starts the client there). Override with vim.lsp.config('raxc', {...})
-- or with vim.g.raxc_cmd = { '/path/to/raxc', 'lsp' }.
return {
  cmd = vim.g.raxc_cmd or { 'raxc', 'lsp' },
  filetypes = { 'relax' },
  root_markers = { '.git' },
}
