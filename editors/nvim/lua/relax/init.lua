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

-- The first .rx buffer without a compiled parser builds it in the background when a C compiler
-- and the repository's grammar are there (vim.g.relax_auto_build_parser = false turns this
-- off), then highlights every open Relax buffer. True when a build was started.
local building = false
local function build_in_background()
  if building or vim.g.relax_auto_build_parser == false then
    return building
  end
  local cc = vim.env.CC or 'cc'
  local grammar = M.plugin_dir() .. '/../../grammar'
  if vim.fn.executable(cc) ~= 1 or vim.fn.filereadable(grammar .. '/src/parser.c') ~= 1 then
    return false
  end
  building = true
  notify_once('building', 'relax: building the tree-sitter parser (first use) ...', vim.log.levels.INFO)
  local errors = {}
  local job = vim.fn.jobstart({ M.plugin_dir() .. '/build.sh' }, {
    on_stderr = function(_, data)
      vim.list_extend(errors, data)
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        building = false
        if code ~= 0 then
          vim.notify('relax: building the parser failed (fix it, then :RelaxBuildParser):\n'
            .. table.concat(errors, '\n'), vim.log.levels.ERROR)
          return
        end
        notified.parser = nil
        vim.notify('relax: parser built', vim.log.levels.INFO)
        for _, buf in ipairs(vim.api.nvim_list_bufs()) do
          if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == 'relax' then
            M.ts_enable(buf)
          end
        end
      end)
    end,
  })
  building = job > 0
  return building
end

-- Starts tree-sitter highlighting for the buffer; false when the parser cannot be loaded (it is
-- then built in the background when it can be, else :RelaxBuildParser is suggested).
function M.ts_enable(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.g.relax_treesitter == false then
    return false
  end
  if not add_language(M.lang) then
    if not build_in_background() then
      notify_once('parser', 'relax: no tree-sitter parser (parser/relax.so): run :RelaxBuildParser')
    end
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
  if not M.has_lsp_attach_event() then
    -- 0.7: no LspAttach event (plugin/relax.lua uses it on 0.8+)
    config.on_attach = function(client, buf)
      M.on_attach(client, buf)
    end
  end
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

-- ---------------------------------------------------------------- keys, options, diagnostics

-- Set on attach for every buffer the raxc client serves. Neovim 0.7 maps none of these to
-- the language server (K runs 'keywordprg', i.e. man); 0.10/0.11 map some of them globally.
-- The keys are 0.11's defaults plus gd, so every version answers the same keys; a key the
-- person (or Neovim itself) already maps, globally or in the buffer, is left alone.
local function diagnostic_jump(count)
  return function()
    if vim.diagnostic.jump then -- 0.11: goto_next/goto_prev are deprecated
      vim.diagnostic.jump({ count = count * vim.v.count1 })
    elseif count > 0 then
      vim.diagnostic.goto_next({ float = false })
    else
      vim.diagnostic.goto_prev({ float = false })
    end
  end
end

M.keys = {
  { 'n', 'K', 'hover', 'hover: the StructInfo inferred, an operator\'s signature' },
  { 'n', 'gd', 'definition', 'go to definition' },
  { 'n', 'grr', 'references', 'references (quickfix list)' },
  { 'n', 'grn', 'rename', 'rename' },
  { 'n', 'gra', 'code_action', 'code actions (fixes) at the cursor' },
  { 'n', 'gO', 'document_symbol', 'functions and blocks of the module (location list)' },
  { 'i', '<C-S>', 'signature_help', 'signature of the call being typed' },
  { 'n', ']d', diagnostic_jump(1), 'next diagnostic' },
  { 'n', '[d', diagnostic_jump(-1), 'previous diagnostic' },
}

-- True when lhs is mapped in mode (in this buffer or globally), or another key already runs
-- the same vim.lsp.buf function: then the person has chosen, and the plugin stays out.
local function key_taken(bufnr, mode, lhs, action)
  return vim.api.nvim_buf_call(bufnr, function()
    if not vim.tbl_isempty(vim.fn.maparg(lhs, mode, false, true)) then
      return true
    end
    return type(action) == 'string' and vim.fn.hasmapto('vim.lsp.buf.' .. action, mode) == 1
  end)
end

function M.set_keys(bufnr)
  if vim.g.raxc_default_keys == false then
    return
  end
  for _, key in ipairs(M.keys) do
    local mode, lhs, action, desc = key[1], key[2], key[3], key[4]
    local rhs = type(action) == 'string' and vim.lsp.buf[action] or action
    if rhs and not key_taken(bufnr, mode, lhs, action) then
      vim.keymap.set(mode, lhs, rhs, { buffer = bufnr, silent = true, desc = 'raxc: ' .. desc })
    end
  end
end

local function supports(client, capability)
  local caps = client.server_capabilities or client.resolved_capabilities or {}
  return caps[capability] ~= nil and caps[capability] ~= false
end

-- Completion (<C-x><C-o>), tags (<C-]>) and gq through the server, where the buffer has no
-- other setting. 'formatexpr' only when the server formats ranges: vim.lsp.formatexpr
-- formats nothing otherwise, which would turn gq into a no-op.
function M.set_options(client, bufnr)
  local bo = vim.bo[bufnr]
  if bo.omnifunc == '' then
    bo.omnifunc = 'v:lua.vim.lsp.omnifunc'
  end
  if bo.tagfunc == '' and vim.lsp.tagfunc then
    bo.tagfunc = 'v:lua.vim.lsp.tagfunc'
  end
  if bo.formatexpr == '' and vim.lsp.formatexpr and supports(client, 'documentRangeFormattingProvider') then
    bo.formatexpr = 'v:lua.vim.lsp.formatexpr()'
  end
end

-- Unused bindings arrive as hints (faded by clients that know the Unnecessary tag, which 0.7
-- does not); as virtual text on every new line they would flood the screen while typing, so
-- the raxc client's virtual text starts at warnings, the severity `raxc check` shows by
-- default. Signs and underlines still show hints. A person's own choices win:
--   vim.g.raxc_diagnostic_config = false      leave the client's diagnostics as configured
--   vim.g.raxc_diagnostic_config = { ... }    vim.diagnostic.config options for its namespace
-- and virtual text turned off (or given a severity) globally stays that way.
function M.diagnostic_config()
  local user = vim.g.raxc_diagnostic_config
  if user ~= nil then
    return user
  end
  local virtual_text = vim.diagnostic.config().virtual_text
  if virtual_text == true then
    virtual_text = {}
  end
  if type(virtual_text) ~= 'table' or virtual_text.severity ~= nil then
    return nil
  end
  virtual_text = vim.deepcopy(virtual_text)
  virtual_text.severity = { min = vim.diagnostic.severity.WARN }
  return { virtual_text = virtual_text }
end

function M.configure_diagnostics(client)
  local config = M.diagnostic_config()
  if type(config) ~= 'table' or not (vim.lsp.diagnostic and vim.lsp.diagnostic.get_namespace) then
    return
  end
  -- Pushed diagnostics have one namespace per client. 0.10+ declares pull diagnostics, which
  -- the server then answers instead of pushing, and keeps them in another namespace
  -- (get_namespace(id, true)).
  vim.diagnostic.config(config, vim.lsp.diagnostic.get_namespace(client.id))
  local ok, pull_ns = pcall(vim.lsp.diagnostic.get_namespace, client.id, true)
  if ok and type(pull_ns) == 'number' then
    vim.diagnostic.config(config, pull_ns)
  end
end

-- Called for every buffer the raxc client attaches to (on_attach on 0.7, LspAttach after).
function M.on_attach(client, bufnr)
  if not client or client.name ~= M.client_name then
    return
  end
  M.configure_diagnostics(client)
  M.set_options(client, bufnr)
  M.set_keys(bufnr)
end

function M.has_lsp_attach_event()
  return vim.fn.exists('##LspAttach') == 1
end

-- :RaxcFormat — the buffer formatted by the raxc server (the text `raxc fmt` prints), with
-- the API the running Neovim has: vim.lsp.buf.format (0.8+) or formatting_sync (0.7).
function M.format(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if #clients_of(bufnr) == 0 then
    vim.notify('relax: no raxc server attached to this buffer', vim.log.levels.WARN)
    return
  end
  if vim.lsp.buf.format then
    vim.lsp.buf.format({ bufnr = bufnr, name = M.client_name, timeout_ms = 5000 })
  else
    vim.api.nvim_buf_call(bufnr, function()
      vim.lsp.buf.formatting_sync(nil, 5000)
    end)
  end
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
