-- Headless, first use of a fresh checkout: the plugin has no parser/relax.so yet. Opening a .rx
-- file builds it in the background (a C compiler and the grammar are there), says so, and then
-- highlights the buffer without the user running anything. The plugin is a copy without its
-- parser and queries (run-nvim-tests makes it next to a link to grammar/, as in the repository).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')
vim.g._ts_force_sync_parsing = true

local messages = {}
local notify = vim.notify
vim.notify = function(msg, level)
  table.insert(messages, msg)
  return notify(msg, level)
end

local plugin = vim.env.RELAX_FRESH_PLUGIN
H.check(plugin ~= nil and vim.fn.filereadable(plugin .. '/parser/relax.so') == 0,
  'the fresh plugin copy has no parser yet')
vim.cmd('edit ' .. vim.fn.fnameescape(H.fixtures .. '/clean.rx'))
local buf = vim.api.nvim_get_current_buf()
H.check(vim.bo[buf].filetype == 'relax', 'filetype is relax')
local built = vim.wait(90000, function()
  return vim.treesitter.highlighter.active[buf] ~= nil
end, 100)
H.check(built, 'the highlighter starts once the parser is built')
H.check(vim.fn.filereadable(plugin .. '/parser/relax.so') == 1, 'parser/relax.so was built')
local said_building, said_built = false, false
for _, m in ipairs(messages) do
  said_building = said_building or m:find('building the tree%-sitter parser') ~= nil
  said_built = said_built or m:find('parser built') ~= nil
end
H.check(said_building and said_built, 'the user is told it is building, then that it is built')
H.finish()
