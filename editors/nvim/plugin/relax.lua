-- Relax TVMScript (.rx) for Neovim 0.7.2 .. 0.11: tree-sitter highlighting and the `raxc lsp`
-- client, started for every buffer whose filetype is relax.
--   vim.g.raxc_cmd = { 'raxc', 'lsp' }     the server command
--   vim.g.raxc_autostart = false           do not start the server automatically
--   vim.g.relax_treesitter = false         do not enable tree-sitter highlighting
if vim.g.loaded_relax then
  return
end
vim.g.loaded_relax = true

local group = vim.api.nvim_create_augroup('relax_plugin', { clear = true })
vim.api.nvim_create_autocmd('FileType', {
  group = group,
  pattern = 'relax',
  callback = function(args)
    require('relax').attach(args.buf)
  end,
})

vim.api.nvim_create_user_command('RelaxBuildParser', function()
  require('relax').build()
end, { desc = 'Compile parser/relax.so and copy the queries from the raxc grammar' })
vim.api.nvim_create_user_command('RaxcRestart', function()
  require('relax').restart()
end, { desc = 'Restart the raxc language server' })
