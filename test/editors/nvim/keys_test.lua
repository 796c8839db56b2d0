-- Headless: what the plugin sets up when the raxc client attaches to a buffer, against the
-- fake server (fake_lsp.py): the usual keys buffer-locally (K hover, gd, grn, grr, gra, ...),
-- 'omnifunc', :RaxcFormat, virtual text from warnings up; and what it must leave alone: keys
-- the person mapped (globally, or to the same action elsewhere), 'formatexpr' when the server
-- cannot format ranges, everything when vim.g.raxc_default_keys = false.
-- Run: nvim --headless --clean --cmd 'set rtp^=editors/nvim'
--        --cmd "let g:raxc_cmd=['python3','test/editors/nvim/fake_lsp.py']" -c 'luafile <this>'
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')
local relax = require('relax')

local function raxc_client(buf)
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    if c.name == 'raxc' then
      return c
    end
  end
end

-- Opens a fixture and waits until the raxc client has attached to it (and on_attach ran).
local function open(name)
  vim.cmd('edit ' .. vim.fn.fnameescape(H.fixtures .. '/' .. name))
  local buf = vim.api.nvim_get_current_buf()
  local attached = vim.wait(5000, function()
    local c = raxc_client(buf)
    return c ~= nil and c.initialized ~= false and vim.b[buf].raxc_attached == true
  end, 20)
  return buf, attached
end

-- The plugin marks a buffer once it has set it up, so the test knows on_attach ran.
local original_on_attach = relax.on_attach
relax.on_attach = function(client, bufnr)
  original_on_attach(client, bufnr)
  if client and client.name == 'raxc' then
    vim.b[bufnr].raxc_attached = true
  end
end

local function buffer_map(buf, mode, lhs)
  for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, mode)) do
    if m.lhs == lhs or vim.api.nvim_replace_termcodes(m.lhs, true, true, true)
      == vim.api.nvim_replace_termcodes(lhs, true, true, true) then
      return m
    end
  end
end

-- The person's own mappings, made before any .rx file is opened.
vim.keymap.set('n', 'gd', '<cmd>echo "my gd"<CR>')

local buf1, ok1 = open('clean.rx')
if not H.check(ok1, 'the raxc client attaches to the first buffer') then
  return H.abort('no client')
end
for _, lhs in ipairs({ 'K', 'grn', 'grr', 'gra', 'gO', ']d', '[d' }) do
  local m = buffer_map(buf1, 'n', lhs)
  H.check(m ~= nil and (m.desc or ''):find('^raxc: ') ~= nil, lhs .. ' is mapped in the buffer: '
    .. tostring(m and m.desc))
end
local sig = buffer_map(buf1, 'i', '<C-S>')
H.check(sig ~= nil, '<C-S> (insert mode) is mapped in the buffer')
H.check(buffer_map(buf1, 'n', 'gd') == nil, "gd is left to the person's global mapping")
H.check(vim.fn.maparg('gd', 'n'):lower() == '<cmd>echo "my gd"<cr>', 'the global gd mapping is unchanged')
H.check(vim.bo[buf1].omnifunc == 'v:lua.vim.lsp.omnifunc', "'omnifunc' is the LSP's: " .. vim.bo[buf1].omnifunc)
H.check(vim.bo[buf1].formatexpr == '', "'formatexpr' stays empty: the fake server cannot format ranges")
H.check(vim.fn.exists(':RaxcFormat') == 2, ':RaxcFormat exists')

-- Pressing K asks the server for hover (the fake one answers 'fake hover' in a float).
vim.api.nvim_feedkeys('K', 'x', false)
H.check(vim.wait(3000, function()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      local text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), '\n')
      if text:find('fake hover', 1, true) then
        return true
      end
    end
  end
  return false
end, 20), 'K opens the hover float')

local client = raxc_client(buf1)
local ns = vim.lsp.diagnostic.get_namespace(client.id)
local vt = vim.diagnostic.config(nil, ns).virtual_text
H.check(type(vt) == 'table' and vt.severity and vt.severity.min == vim.diagnostic.severity.WARN,
  'the raxc namespace shows virtual text from warnings up')
local global_vt = vim.diagnostic.config().virtual_text
H.check(type(global_vt) ~= 'table' or global_vt.severity == nil, 'the global diagnostic configuration is unchanged')

-- A key mapped elsewhere to the same action: the person already has hover, so no K.
vim.keymap.set('n', '<Space>h', '<cmd>lua vim.lsp.buf.hover()<CR>')
local buf2, ok2 = open('diagnostics.rx')
H.check(ok2, 'the client attaches to a second buffer')
H.check(buffer_map(buf2, 'n', 'K') == nil, 'no K when another key already runs vim.lsp.buf.hover')
H.check(buffer_map(buf2, 'n', 'grn') ~= nil, 'the other keys are still mapped')
vim.keymap.del('n', '<Space>h')

-- The opt-out: no keys at all (options are still set: they only fill empty settings).
vim.g.raxc_default_keys = false
vim.cmd('edit ' .. vim.fn.fnameescape(H.repo .. '/examples/mlp.rx'))
local buf3 = vim.api.nvim_get_current_buf()
H.check(vim.wait(5000, function()
  return vim.b[buf3].raxc_attached == true
end, 20), 'the client attaches to a third buffer')
H.check(#vim.api.nvim_buf_get_keymap(buf3, 'n') == 0 and #vim.api.nvim_buf_get_keymap(buf3, 'i') == 0,
  'vim.g.raxc_default_keys = false maps nothing')
H.check(vim.bo[buf3].omnifunc == 'v:lua.vim.lsp.omnifunc', "'omnifunc' is set without the keys")

for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
  vim.lsp.stop_client(c.id)
end
H.finish()
