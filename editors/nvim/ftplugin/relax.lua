-- Buffer options for Relax TVMScript (Python syntax: 4-space indents, '#' comments).
if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1
vim.bo.commentstring = '# %s'
vim.bo.comments = 'b:#'
vim.bo.expandtab = true
vim.bo.shiftwidth = 4
vim.bo.softtabstop = 4
vim.bo.tabstop = 4
vim.b.undo_ftplugin = 'setlocal commentstring< comments< expandtab< shiftwidth< softtabstop< tabstop<'
