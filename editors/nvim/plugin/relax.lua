-- Relax TVMScript (.rx) for Neovim 0.7.2 .. 0.11: tree-sitter highlighting and the `raxc lsp`
-- client, started for every buffer whose filetype is relax.
--   vim.g.raxc_cmd = { 'raxc', 'lsp' }     the server command
--   vim.g.raxc_autostart = false           do not start the server automatically
--   vim.g.relax_treesitter = false         do not enable tree-sitter highlighting
--   vim.g.raxc_default_keys = false        do not map K, gd, grn, grr, gra, gO, ]d, [d, <C-S>
--   vim.g.raxc_diagnostic_config = false   keep hints as virtual text (or a table of options)
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

-- Keys and options for every buffer the raxc client serves, however it was started (by this
-- plugin or by 0.11's vim.lsp.enable('raxc')). Neovim 0.7 has no LspAttach event: there the
-- plugin passes on_attach when it starts the client.
if require('relax').has_lsp_attach_event() then
  vim.api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      require('relax').on_attach(client, args.buf)
    end,
  })
end

vim.api.nvim_create_user_command('RelaxBuildParser', function()
  require('relax').build()
end, { desc = 'Compile parser/relax.so and copy the queries from the raxc grammar' })
vim.api.nvim_create_user_command('RaxcRestart', function()
  require('relax').restart()
end, { desc = 'Restart the raxc language server' })
vim.api.nvim_create_user_command('RaxcFormat', function()
  require('relax').format()
end, { desc = 'Format the buffer with the raxc language server (as raxc fmt)' })
