-- Relax TVMScript support for Neovim 0.7.2 (Debian bookworm) .. 0.11, by feature detection:
--   tree-sitter: language.add (0.9+) / require_language (0.7, 0.8);
--                vim.treesitter.start (0.9+) / highlighter.new (0.7, 0.8)
--   LSP:         vim.lsp.start (0.8+) / start_client + buf_attach_client (0.7);
--                on 0.11 lsp/raxc.lua also serves vim.lsp.enable('raxc').
local M = {}
local uv = vim.uv or vim.loop -- vim.loop is deprecated in 0.10

M.client_name = 'raxc'
M.lang = 'relax'

local notified = {}
local function notify_once(key, msg, level)
  if notified[key] then
    return
  end
  notified[key] = true
  vim.schedule(function()
    vim.notify(msg, level or vim.log.levels.WARN)
  end)
end

-- The plugin directory: lua/relax/init.lua -> ../..
function M.plugin_dir()
  local source = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(source, ':p:h:h:h')
end

function M.server_cmd()
  return vim.g.raxc_cmd or { 'raxc', 'lsp' }
end

-- ---------------------------------------------------------------- tree-sitter

local function add_language(lang)
  local language = vim.treesitter.language
  if language.add then
    -- 0.9/0.10 throw on failure and return nothing; 0.11 returns true or nil, err.
    local ok, res, err = pcall(language.add, lang)
    return ok and (res ~= nil or err == nil)
  end
  return language.require_language(lang, nil, true) -- silent: returns false when missing
end

-- Neovim 0.7 maps capture names to highlight groups through a fixed table; give the modern
-- capture names used by grammar/queries that it lacks a group (0.8+ has @capture groups).
local legacy_groups = {
  attribute = 'PreProc',
  module = 'Include',
  ['variable.builtin'] = 'Special',
  ['variable.parameter'] = 'Identifier',
  ['variable.member'] = 'Identifier',
  ['keyword.return'] = 'Keyword',
  ['keyword.import'] = 'Include',
  ['keyword.conditional'] = 'Conditional',
  ['keyword.repeat'] = 'Repeat',
  ['number.float'] = 'Float',
  ['string.documentation'] = 'String',
}
local function fill_legacy_groups()
  local map = vim.treesitter.highlighter.hl_map
  if type(map) ~= 'table' then
    return
  end
  for capture, group in pairs(legacy_groups) do
    local current = rawget(map, capture)
    if current == nil or current == '__notfound' then
      rawset(map, capture, group)
    end
  end
end

-- Starts tree-sitter highlighting for the buffer; false when the parser cannot be loaded
-- (run :RelaxBuildParser).
function M.ts_enable(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.g.relax_treesitter == false then
    return false
  end
  if not add_language(M.lang) then
    notify_once('parser', 'relax: no tree-sitter parser (parser/relax.so): run :RelaxBuildParser')
    return false
  end
  if vim.treesitter.highlighter.active[bufnr] then
    return true
  end
  fill_legacy_groups()
  if vim.treesitter.start then
    return (pcall(vim.treesitter.start, bufnr, M.lang))
  end
  local ok, parser = pcall(vim.treesitter.get_parser, bufnr, M.lang)
  if not ok or not parser then
    return false
  end
  vim.treesitter.highlighter.new(parser)
  return true
end

-- ---------------------------------------------------------------- language server

-- The nearest ancestor holding .git (what lsp/raxc.lua's root_markers finds), else the file's
-- directory, so both ways of starting agree and share one client per project.
function M.root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local start = name ~= '' and vim.fn.fnamemodify(name, ':p:h') or uv.cwd()
  local dir = start
  while dir and dir ~= '' do
    if uv.fs_stat(dir .. '/.git') then
      return dir
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return start
end

local function clients_of(bufnr)
  local found = {}
  local all = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) -- 0.10+
    or vim.lsp.buf_get_clients(bufnr) -- 0.7 .. 0.9
  for _, client in pairs(all) do
    if client.name == M.client_name then
      table.insert(found, client)
    end
  end
  return found
end

local started_by_root = {} -- 0.7: root_dir -> client id (vim.lsp.start reuses by itself)

-- Starts (or reuses) the raxc client for the buffer; returns the client id or nil.
function M.lsp_start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local cmd = M.server_cmd()
  if vim.fn.executable(cmd[1]) ~= 1 then
    notify_once('cmd', ("relax: '%s' not found; set vim.g.raxc_cmd"):format(cmd[1]))
    return nil
  end
  local config = { name = M.client_name, cmd = cmd, root_dir = M.root_dir(bufnr) }
  if vim.lsp.start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = started_by_root[config.root_dir]
  if not id or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client(config)
    started_by_root[config.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

-- FileType=relax: highlighting now; the client on the next tick, unless one is attached by
-- then (e.g. by 0.11's vim.lsp.enable('raxc'), whose FileType handler may run after ours).
function M.attach(bufnr)
  M.ts_enable(bufnr)
  if vim.g.raxc_autostart == false then
    return
  end
  vim.schedule(function()
    if vim.api.nvim_buf_is_valid(bufnr) and #clients_of(bufnr) == 0 then
      M.lsp_start(bufnr)
    end
  end)
end

function M.restart()
  local buffers = {}
  for _, client in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    if client.name == M.client_name then
      vim.lsp.stop_client(client.id)
    end
  end
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == M.lang then
      table.insert(buffers, buf)
    end
  end
  started_by_root = {}
  vim.defer_fn(function()
    for _, buf in ipairs(buffers) do
      M.lsp_start(buf)
    end
  end, 200)
end

-- ---------------------------------------------------------------- building the parser

-- Runs build.sh: parser/relax.so from the raxc grammar (grammar_dir, default ../../grammar
-- next to this plugin) and the queries copied next to it.
function M.build(grammar_dir)
  local cmd = { M.plugin_dir() .. '/build.sh' }
  if grammar_dir then
    table.insert(cmd, grammar_dir)
  end
  local output = vim.fn.system(cmd)
  if vim.v.shell_error ~= 0 then
    vim.notify('relax: build failed:\n' .. output, vim.log.levels.ERROR)
    return false
  end
  notified.parser = nil
  vim.notify('relax: parser built; reopen .rx buffers to highlight them', vim.log.levels.INFO)
  return true
end

return M
