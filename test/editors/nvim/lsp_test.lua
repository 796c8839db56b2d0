-- Headless, against the real `raxc lsp` through Neovim's own client: diagnostics (the same as
-- `raxc check` gives), hover with the StructInfo, go to definition, rename, and incremental
-- edits after non-ASCII text. Skipped (exit 77) while `raxc lsp` does not exist; a feature the
-- server does not advertise yet is reported as SKIP, not failed.
-- Run: RAXC=build/raxc nvim --headless --clean --cmd 'set rtp^=editors/nvim' -c 'luafile <this>'
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')

local raxc = vim.env.RAXC or (H.repo .. '/build/raxc')
local help = vim.fn.executable(raxc) == 1 and vim.fn.system({ raxc, 'lsp', '--help' }) or ''
-- CLI11 prints the top-level help, with status 0, for an unknown subcommand: look for its usage.
if vim.v.shell_error ~= 0 or not help:find('Usage:[^\n]*lsp') then
  return H.skip(("'%s lsp' is not available"):format(raxc))
end
vim.g.raxc_cmd = { raxc, 'lsp' }

local function client_of(buf)
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    if c.name == 'raxc' then
      return c
    end
  end
end

-- `raxc check` on the text: sorted "code severity line:col" (0-based line, byte column,
-- which is what vim.diagnostic holds).
local function cli_diagnostics(lines)
  local file = vim.fn.tempname() .. '.rx'
  vim.fn.writefile(lines, file)
  local json = vim.fn.system({ raxc, 'check', '--diagnostics-format=json', file })
  os.remove(file)
  local out = {}
  for _, entry in ipairs(vim.fn.json_decode(json)) do
    for _, d in ipairs(entry.diagnostics) do
      local severity = ({ error = 1, warning = 2 })[d.severity]
      if severity then
        table.insert(out, ('%s %d %d:%d'):format(d.code, severity, d.range.start.line - 1,
          d.range.start.column - 1))
      end
    end
  end
  table.sort(out)
  return table.concat(out, ', ')
end

local function lsp_diagnostics(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.severity <= 2 then
      table.insert(out, ('%s %d %d:%d'):format(tostring(d.code), d.severity, d.lnum, d.col))
    end
  end
  table.sort(out)
  return table.concat(out, ', ')
end

local function expect_diagnostics(buf, what)
  local want = cli_diagnostics(vim.api.nvim_buf_get_lines(buf, 0, -1, true))
  local ok = vim.wait(10000, function()
    return lsp_diagnostics(buf) == want
  end, 20)
  H.check(ok, ('%s: [%s] (raxc check: [%s])'):format(what, lsp_diagnostics(buf), want))
end

local function request(buf, method, params)
  local replies, err = vim.lsp.buf_request_sync(buf, method, params, 5000)
  if not replies then
    return nil, err
  end
  for _, r in pairs(replies) do
    if r.err or r.error then
      return nil, vim.inspect(r.err or r.error)
    end
    return r.result
  end
end

local function position(buf, row, col) -- row, col 0-based; col in bytes
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  return vim.lsp.util.make_position_params(0, 'utf-16')
end

-- 1. diagnostics
vim.cmd('edit ' .. vim.fn.fnameescape(H.fixtures .. '/diagnostics.rx'))
local dbuf = vim.api.nvim_get_current_buf()
if not vim.wait(10000, function()
  return client_of(dbuf) ~= nil and client_of(dbuf).initialized
end, 20) then
  return H.abort('the raxc client did not start')
end
local caps = client_of(dbuf).server_capabilities or client_of(dbuf).resolved_capabilities
expect_diagnostics(dbuf, 'diagnostics.rx')

-- 2. hover, definition, rename on clean.rx
vim.cmd('edit ' .. vim.fn.fnameescape(H.fixtures .. '/clean.rx'))
local buf = vim.api.nvim_get_current_buf()
vim.wait(5000, function()
  return client_of(buf) ~= nil
end, 20)
expect_diagnostics(buf, 'clean.rx')
local server = client_of(buf).server_capabilities or {}

if server.hoverProvider then
  local result, err = request(buf, 'textDocument/hover', position(buf, 5, 8)) -- `b = R.add(a, a)`
  local value = result and result.contents and (result.contents.value or result.contents) or ''
  H.check(type(value) == 'string' and value:find('R.Tensor((2, 3), dtype="float32")', 1, true) ~= nil,
    'hover on b shows its StructInfo: ' .. tostring(err or value))
else
  H.out('SKIP hover: not advertised by the server')
end

if server.definitionProvider then
  local result, err = request(buf, 'textDocument/definition', position(buf, 6, 15)) -- `return b`
  local loc = result and (result[1] or result)
  local range = loc and (loc.targetSelectionRange or loc.range)
  H.check(range ~= nil and range.start.line == 5 and range.start.character == 8,
    'definition of b is its binding: ' .. tostring(err or vim.inspect(range)))
else
  H.out('SKIP definition: not advertised by the server')
end

if server.renameProvider then
  local params = position(buf, 6, 15)
  params.newName = 'renamed_b'
  local edit, err = request(buf, 'textDocument/rename', params)
  if H.check(edit ~= nil, 'rename answers a workspace edit: ' .. tostring(err)) then
    vim.lsp.util.apply_workspace_edit(edit, 'utf-16')
    local lines = vim.api.nvim_buf_get_lines(buf, 5, 7, true)
    H.check(lines[1] == '        renamed_b = R.add(a, a)' and lines[2] == '        return renamed_b',
      'rename edits the binding and its use: ' .. vim.inspect(lines))
    expect_diagnostics(buf, 'clean.rx after rename')
  end
else
  H.out('SKIP rename: not advertised by the server')
end

-- 3. incremental edits after non-ASCII text (Neovim sends UTF-16 ranges)
local file = vim.fn.tempname() .. '.rx'
vim.fn.writefile({
  '@R.function',
  'def f(a: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):',
  '    R.func_attr({"note": "😀 ünï Δ 𝔁"}); b = R.add(a, a)',
  '    return b',
}, file)
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local ubuf = vim.api.nvim_get_current_buf()
vim.wait(5000, function()
  return client_of(ubuf) ~= nil
end, 20)
expect_diagnostics(ubuf, 'unicode file')
local line = vim.api.nvim_buf_get_lines(ubuf, 2, 3, true)[1]
local add = H.col_of(line, 'add(', 1)
vim.api.nvim_buf_set_text(ubuf, 2, add, 2, add + 3, { 'multiply' })
line = vim.api.nvim_buf_get_lines(ubuf, 2, 3, true)[1]
local second = H.col_of(line, 'a)', 1)
vim.api.nvim_buf_set_text(ubuf, 2, second, 2, second + 1, { 'zz_undefined' })
vim.api.nvim_buf_set_lines(ubuf, 2, 2, true, { '    # ünïcödé 😀 comment line' })
expect_diagnostics(ubuf, 'unicode file after incremental edits')
H.check(lsp_diagnostics(ubuf):find(':' .. second) ~= nil, 'the error is at the edited argument')
os.remove(file)

for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
  vim.lsp.stop_client(c.id)
end
H.finish()
