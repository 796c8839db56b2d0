-- Headless: filetype detection, the tree-sitter highlighter and the highlight captures that win
-- at given positions of test/editors/fixtures/clean.rx (the plugin on 'runtimepath').
-- Run by test/editors/run-nvim-tests; needs parser/relax.so (editors/nvim/build.sh).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')
vim.g._ts_force_sync_parsing = true -- 0.11 parses asynchronously by default

vim.cmd('edit ' .. vim.fn.fnameescape(H.fixtures .. '/clean.rx'))
local buf = vim.api.nvim_get_current_buf()
H.out('nvim ' .. H.version_string)
H.check(vim.bo[buf].filetype == 'relax', 'filetype is relax (got ' .. vim.bo[buf].filetype .. ')')
H.check(vim.bo[buf].shiftwidth == 4 and vim.bo[buf].commentstring == '# %s', 'ftplugin options')
H.check(vim.treesitter.highlighter.active[buf] ~= nil, 'tree-sitter highlighter active')

local parser = vim.treesitter.get_parser(buf, 'relax')
local root = parser:parse()[1]:root()
H.check(not root:has_error(), 'the fixture parses without errors')

local get_query = vim.treesitter.query.get or vim.treesitter.query.get_query
local query = get_query('relax', 'highlights')
if not query then
  return H.abort('no highlights query for relax')
end

-- The capture Neovim paints at (row, col): highest priority, then the later one.
local function winning_capture(row, col)
  local best, best_priority = nil, -1
  for id, node, metadata in query:iter_captures(root, buf, row, row + 1) do
    local sr, sc, er, ec = node:range()
    local inside = (sr < row or (sr == row and sc <= col)) and (er > row or (er == row and ec > col))
    local name = query.captures[id]
    -- 0.10+ keeps per-capture metadata under the capture id.
    local meta = metadata[id] and metadata[id].priority and metadata[id] or metadata
    local priority = tonumber(meta.priority) or 100
    if inside and name ~= 'spell' and priority >= best_priority then
      best, best_priority = name, priority
    end
  end
  return best
end

local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
-- `R.add(`: @function.call (priority 105). Neovim 0.7 applies a match's directives (#set!
-- priority) to its first capture only, so there the priority-102 @function.method.call wins;
-- both are painted as Function.
local CALL = H.version.minor < 8 and H.version.major == 0 and 'function.method.call' or 'function.call'
local expectations = {
  { 0, '#', 1, 'comment' },
  { 1, 'I', 1, 'module' },
  { 1, 'ir_module', 1, 'attribute' },
  { 2, 'class', 1, 'keyword' },
  { 2, 'Module', 1, 'type.definition' },
  { 3, 'function', 1, 'attribute' },
  { 4, 'def', 1, 'keyword.function' },
  { 4, 'helper', 1, 'function' },
  { 4, 'a', 1, 'variable.parameter' },
  { 4, 'R', 1, 'module' },
  { 4, 'Tensor', 1, 'type.builtin' },
  { 4, '2', 1, 'number' },
  { 4, 'dtype', 1, 'variable.parameter' },
  { 4, 'float32', 1, 'type.builtin' },
  { 4, '"', 1, 'string' },
  { 4, '->', 1, 'operator' },
  { 5, 'b', 1, 'variable' },
  { 5, 'R', 1, 'module' },
  { 5, 'add', 1, CALL },
  { 6, 'return', 1, 'keyword.return' },
  { 10, 'cls', 1, 'variable.builtin' },
  { 11, 'with', 1, 'keyword' },
  { 11, 'dataflow', 1, 'function.builtin' },
  { 13, 'helper', 1, 'function.method.call' },
  { 14, 'output', 1, CALL },
}
for _, e in ipairs(expectations) do
  local row, token, nth, want = e[1], e[2], e[3], e[4]
  local col = H.col_of(lines[row + 1], token, nth)
  local got = col and winning_capture(row, col)
  H.check(got == want, ('%d:%s %q -> @%s (got @%s)'):format(row + 1, tostring(col), token, want,
    tostring(got)))
end

-- Neovim 0.7 paints through a fixed capture -> group table; the plugin fills what it lacks.
local hl_map = vim.treesitter.highlighter.hl_map
if type(hl_map) == 'table' then
  for _, capture in ipairs({ 'attribute', 'module', 'type.builtin', 'function.call', 'keyword.function' }) do
    local group = hl_map[capture]
    H.check(group ~= nil and group ~= '__notfound', ('0.7 group for @%s: %s'):format(capture,
      tostring(group)))
  end
end
H.finish()
