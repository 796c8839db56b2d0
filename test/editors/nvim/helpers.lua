-- Shared by the headless Neovim tests: output on stdout (print() goes to stderr in headless
-- mode), pass/fail/skip with the process exit status, and the repository paths.
local H = {}

local script = debug.getinfo(1, 'S').source:sub(2)
H.test_dir = vim.fn.fnamemodify(script, ':p:h')
H.repo = vim.fn.fnamemodify(H.test_dir, ':h:h:h')
H.fixtures = H.repo .. '/test/editors/fixtures'
H.failures = 0

function H.out(s)
  io.stdout:write(s .. '\n')
end

function H.check(ok, what)
  if ok then
    H.out('ok   ' .. what)
  else
    H.out('FAIL ' .. what)
    H.failures = H.failures + 1
  end
  return ok
end

-- Ends the test: exit 0 when every check passed.
function H.finish()
  if H.failures > 0 then
    H.out(('%d check(s) failed'):format(H.failures))
    vim.cmd('cquit 1')
  end
  H.out('PASS')
  vim.cmd('qa!')
end

function H.abort(msg)
  H.out('FAIL ' .. msg)
  vim.cmd('cquit 1')
end

-- Exit status 77 = skipped (the driver reports it with the message).
function H.skip(msg)
  H.out('SKIP ' .. msg)
  vim.cmd('cquit 77')
end

-- 0-based column of the nth plain-text occurrence of `token` in `line`.
function H.col_of(line, token, nth)
  local from = 1
  local s
  for _ = 1, nth or 1 do
    s = line:find(token, from, true)
    if not s then
      return nil
    end
    from = s + 1
  end
  return s - 1
end

H.version = vim.version()
H.version_string = ('%d.%d.%d'):format(H.version.major, H.version.minor, H.version.patch)

return H
