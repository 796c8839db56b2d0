-- Headless: the plugin's client glue against a fake server (fake_lsp.py), so it is tested
-- without `raxc lsp`: the client starts for .rx buffers under the name 'raxc' with the project
-- root, a second buffer shares it, diagnostics and hover flow, :RaxcRestart gives a new client,
-- and lsp/raxc.lua (0.11's vim.lsp.enable config) is well formed.
-- Run: nvim --headless --clean --cmd 'set rtp^=editors/nvim'
--        --cmd "let g:raxc_cmd=['python3','test/editors/nvim/fake_lsp.py']" -c 'luafile <this>'
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')
local relax = require('relax')

local function raxc_clients()
  local found = {}
  for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    if c.name == 'raxc' then
      table.insert(found, c)
    end
  end
  return found
end

local function has_diagnostic(buf, pattern)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.message:find(pattern) then
      return true
    end
  end
  return false
end

vim.cmd('edit ' .. vim.fn.fnameescape(H.fixtures .. '/clean.rx'))
local buf1 = vim.api.nvim_get_current_buf()
H.check(vim.wait(5000, function()
  return #raxc_clients() == 1
end, 20), 'a client named raxc starts for a .rx buffer')
local client = raxc_clients()[1]
if not client then
  return H.abort('no client')
end
H.check(client.config.root_dir == H.repo, 'root_dir is the project root: ' .. tostring(client.config.root_dir))
H.check(vim.wait(5000, function()
  return has_diagnostic(buf1, 'clean.rx')
end, 20), 'diagnostics arrive for the first buffer')

vim.cmd('edit ' .. vim.fn.fnameescape(H.fixtures .. '/diagnostics.rx'))
local buf2 = vim.api.nvim_get_current_buf()
H.check(vim.wait(5000, function()
  return has_diagnostic(buf2, 'diagnostics.rx')
end, 20), 'diagnostics arrive for the second buffer')
H.check(#raxc_clients() == 1, 'the second buffer shares the client')

local params = vim.lsp.util.make_position_params(0, 'utf-16')
local replies = vim.lsp.buf_request_sync(buf2, 'textDocument/hover', params, 3000) or {}
local hover
for _, r in pairs(replies) do
  hover = r.result and r.result.contents and r.result.contents.value
end
H.check(hover == 'fake hover', 'hover round trip: ' .. tostring(hover))

-- A scratch buffer with another filetype gets no client.
vim.cmd('enew')
vim.bo.filetype = 'text'
vim.wait(100)
H.check(#vim.tbl_keys(vim.lsp.buf_get_clients(0)) == 0, 'no client for other filetypes')

local old_id = client.id
vim.cmd('RaxcRestart')
H.check(vim.wait(5000, function()
  local now = raxc_clients()
  return #now == 1 and now[1].id ~= old_id and vim.lsp.buf_is_attached(buf1, now[1].id)
end, 20), ':RaxcRestart starts a new client and re-attaches the buffers')

local config = dofile(relax.plugin_dir() .. '/lsp/raxc.lua')
H.check(vim.deep_equal(config.cmd, vim.g.raxc_cmd) and vim.deep_equal(config.filetypes, { 'relax' })
  and config.root_markers[1] == '.git', 'lsp/raxc.lua config')

for _, c in ipairs(raxc_clients()) do
  vim.lsp.stop_client(c.id)
end
H.check(vim.wait(3000, function()
  return #raxc_clients() == 0
end, 20), 'clients stop')
H.finish()
