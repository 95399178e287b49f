-- Headless Neovim drives stagec-lsp as a user's configuration does; run by
-- lsp/tests/it/neovim.rs:
--
--   nvim --headless -n -i NONE -u NONE -c "luafile lsp/tests/nvim/check.lua"
--
-- Environment: STAGEC_DOCS (docs/editors.md, whose Neovim snippet for this
-- version is the configuration), STAGEC_EXAMPLE (a scratch copy of
-- examples/hpp-seed), STAGEC_RESULT (where the JSON result goes),
-- STAGEC_TIMEOUT_MS (each wait). `stagec-lsp` must be on PATH, as the
-- snippets expect.
--
-- Writes {"ok": true, ...observations} or {"ok": false, "error": ..., ...}
-- and quits; the Rust test asserts on the observations.

local result = { ok = false, steps = {} }
local timeout = tonumber(os.getenv("STAGEC_TIMEOUT_MS") or "") or 20000

local function encode(v)
  if vim.json and vim.json.encode then
    return vim.json.encode(v)
  end
  return vim.fn.json_encode(v)
end

local function write_result()
  local path = assert(os.getenv("STAGEC_RESULT"), "STAGEC_RESULT is not set")
  local f = assert(io.open(path, "w"))
  f:write(encode(result))
  f:close()
end

local function step(name)
  table.insert(result.steps, name)
end

local function version_string()
  local v = vim.version()
  return string.format("%d.%d.%d", v.major, v.minor, v.patch)
end

-- The Lua block that follows `<!-- nvim-snippet: WHICH -->` in the docs.
local function snippet(which)
  local docs = assert(os.getenv("STAGEC_DOCS"), "STAGEC_DOCS is not set")
  local f = assert(io.open(docs, "r"))
  local text = f:read("*a")
  f:close()
  local marker = "<!-- nvim-snippet: " .. which .. " -->"
  local at = text:find(marker, 1, true)
  assert(at, "docs/editors.md has no " .. marker)
  local code = text:match("```lua\n(.-)\n```", at)
  assert(code, "no ```lua block after " .. marker)
  return code
end

local function clients(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf })
  end
  return vim.tbl_values(vim.lsp.buf_get_clients(buf))
end

local function code_of(d)
  if d.code ~= nil then
    return tostring(d.code)
  end
  local lsp = d.user_data and d.user_data.lsp
  return lsp and lsp.code and tostring(lsp.code) or nil
end

local function codes(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local c = code_of(d)
    if c then
      table.insert(out, c)
    end
  end
  table.sort(out)
  return out
end

local function has(list, x)
  for _, v in ipairs(list) do
    if v == x then
      return true
    end
  end
  return false
end

-- Waits for `cond`; fails with `what` and the last diagnostics.
local function wait_for(what, buf, cond)
  local ok = vim.wait(timeout, cond, 20)
  if not ok then
    error(string.format("timed out after %d ms waiting for %s; diagnostics: %s",
      timeout, what, table.concat(codes(buf), ", ")))
  end
end

local function find(buf, pattern)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find(pattern)
    if col then
      return i - 1, col - 1
    end
  end
  error("no line matches " .. pattern)
end

local function run()
  result.nvim_version = version_string()
  local modern = vim.lsp.start ~= nil
  result.snippet = modern and "0.8" or "0.7"
  step("load the docs' snippet for Neovim " .. result.snippet)
  local code = snippet(result.snippet)
  local chunk = assert((loadstring or load)(code, "docs/editors.md"))
  chunk()

  vim.cmd("filetype on")
  local example = assert(os.getenv("STAGEC_EXAMPLE"), "STAGEC_EXAMPLE is not set")
  step("open const.yaml")
  vim.cmd("edit " .. vim.fn.fnameescape(example .. "/const.yaml"))
  local buf = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[buf].filetype

  step("wait for stagec-lsp to attach")
  wait_for("the stagec client to attach", buf, function()
    for _, c in ipairs(clients(buf)) do
      if c.name == "stagec" and c.initialized ~= false then
        return true
      end
    end
    return false
  end)
  local client
  for _, c in ipairs(clients(buf)) do
    if c.name == "stagec" then
      client = c
    end
  end
  result.offset_encoding = client.offset_encoding
  result.server_name = client.server_info and client.server_info.name or nil

  step("wait for diagnostics")
  wait_for("C101 and P118", buf, function()
    local now = codes(buf)
    return has(now, "C101") and has(now, "P118")
  end)
  result.codes_before = codes(buf)

  step("hover slots_per_trial")
  local line, col = find(buf, "slots_per_trial")
  local uri = vim.uri_from_bufnr(buf)
  local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", {
    textDocument = { uri = uri },
    position = { line = line, character = col + 2 },
  }, timeout)
  local hover_text = nil
  for _, r in pairs(hover or {}) do
    local contents = r.result and r.result.contents
    if type(contents) == "table" then
      hover_text = contents.value or contents[1]
    elseif type(contents) == "string" then
      hover_text = contents
    end
  end
  assert(hover_text, "no hover for slots_per_trial: " .. encode(hover or {}))
  result.hover = hover_text

  step("request the code actions for C101")
  local c101
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if code_of(d) == "C101" then
      c101 = d
    end
  end
  local range = {
    start = { line = c101.lnum, character = c101.col },
    ["end"] = { line = c101.end_lnum or c101.lnum, character = c101.end_col or c101.col },
  }
  local actions = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", {
    textDocument = { uri = uri },
    range = range,
    context = {
      diagnostics = { { range = range, message = c101.message, code = "C101", severity = 1 } },
      only = { "quickfix" },
    },
  }, timeout)
  result.actions = {}
  local chosen
  for _, r in pairs(actions or {}) do
    for _, a in ipairs(r.result or {}) do
      table.insert(result.actions, a.title)
      if a.title == "Rewrite as `checkpoint_storage`" then
        chosen = a
      end
    end
  end
  assert(chosen, "no \"Rewrite as `checkpoint_storage`\" action; got: " .. table.concat(result.actions, " | "))
  assert(chosen.edit, "the action carries no workspace edit")

  step("apply the code action")
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  result.text_after = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")

  step("wait for the diagnostics to update")
  wait_for("C101 to go", buf, function()
    local now = codes(buf)
    return not has(now, "C101") and has(now, "P118")
  end)
  result.codes_after = codes(buf)
  result.ok = true
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  result.error = tostring(err)
end
local wrote, werr = pcall(write_result)
if not wrote then
  io.stderr:write("check.lua: cannot write the result: " .. tostring(werr) .. "\n")
end
-- Leave with a status the test can read (Neovim stops the servers on exit).
vim.cmd(ok and wrote and "qall!" or "cquit 1")
