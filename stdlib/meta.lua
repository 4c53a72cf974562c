-- meta: the catalog agent behind luagent chat's /meta. It reads and edits
-- the MCP servers of a catalog (config.json) with tools, and writes only
-- what a person confirms.
--
--   local meta = require("meta")
--   local a = meta.new{ model = "mock", catalog = mcp.catalog(path),
--     confirm = function(text, op, name) print(text) return io.read() == "y" end }
--   print(a:ask("add the MCP server at https://example.com/mcp"))
--
-- Tools: list_servers, show_server and propose_server read (propose
-- validates an entry with the catalog's own rules and returns the change
-- it would make, or the rules' error for the model to fix); save_server,
-- remove_server and enable_server preview the change, call
-- confirm(text, op, name) (text is exactly the change to config.json,
-- secrets as <hidden>: M.preview_text) and write only when it returns
-- true; then
-- on_saved(name, op) (luagent chat restarts that one server). Env values,
-- header values and client secrets are never in what the tools return.
local agent = require("agent")
local mcp = require("mcp")
local json = require("json")

local M = {}

M.system = [[You are luagent's catalog agent. You manage the MCP servers in the user's server catalog (config.json) through your tools, and nothing else.

- list_servers shows what is there; show_server one entry as the file holds it.
- To add or change a server, call propose_server: it checks the entry with the catalog's rules and returns the change, saving nothing. When it reports a problem, fix the arguments and propose again.
- Then call save_server with the same arguments. The user sees exactly what will be written and confirms it. remove_server and enable_server are confirmed the same way.
- When a tool says the user declined, nothing was saved: ask what they want changed; do not repeat the same change.
- Never say a change is saved unless save_server, remove_server or enable_server said it was saved.

Entries: an HTTP server has url (http or https). A stdio server has command (a program, no shell) and args (each argument separate, exactly). Names are 1 to 64 letters, digits, _ or -; pick a short one from the server's purpose when the user gives none.
Secrets: env values and header values are stored but never shown to anyone. Prefer taking a secret from luagent's own environment (env_keys, or env = {NAME = {fromEnv = "VAR"}}) over writing it in the file.
Answer briefly.]]

-- The entry fields the tools take, as config.json names them.
local FIELDS = { "url", "command", "args", "cwd", "env", "headers", "oauth", "enabled", "startupTimeoutSeconds",
  "requestTimeoutSeconds", "protocol", "roots", "sampling", "logLevel", "maxConcurrentCalls", "enabledTools", "disabledTools" }

local ENTRY_INPUT = {
  name = { type = "string", description = "the entry's name: 1 to 64 letters, digits, _ or -" },
  url = { type = "string", optional = true, description = "an HTTP server's endpoint (http or https)" },
  command = { type = "string", optional = true, description = "a stdio server's program (no shell)" },
  args = { type = "string[]", optional = true, description = "the program's arguments, each separate" },
  cwd = { type = "string", optional = true, description = "where a stdio server starts" },
  env = { type = "object", optional = true,
    description = 'a stdio server\'s variables: NAME = "literal" (stored, never shown), or {fromEnv = "VAR"}, or {param = "name"}; an HTTP server takes only MCP_ACCESS_TOKEN (a bearer token) or MCP_OAUTH_TOKEN_FILE' },
  env_keys = { type = "string[]", optional = true,
    description = "variables to pass from luagent's own environment under the same name" },
  headers = { type = "object", optional = true, description = "an HTTP server's headers (values never shown)" },
  oauth = { type = "object", optional = true, description = "clientId, clientSecret, clientIdMetadataUrl, scopes" },
  enabled = { type = "boolean", optional = true, description = "false keeps the entry without starting it" },
  startupTimeoutSeconds = "number?",
  requestTimeoutSeconds = "number?",
  protocol = { type = "string", optional = true, description = '"auto" (default), "legacy" or "modern"' },
  roots = { anyOf = { { type = "boolean" }, { type = "array", items = { type = "string" } } }, optional = true,
    description = "true lets the server see the working folder; a list names the folders" },
  sampling = "boolean?",
  logLevel = "string?",
  maxConcurrentCalls = "integer?",
  enabledTools = { type = "string[]", optional = true, description = "only these of the server's tools (names or globs like read_*)" },
  disabledTools = { type = "string[]", optional = true, description = "the server's tools to leave out (names or globs); wins over enabledTools" },
}

local function present(v) return v ~= nil and v ~= json.null end

-- entry_of(args) is the config.json entry the tool arguments describe.
local function entry_of(a)
  local e = {}
  for _, k in ipairs(FIELDS) do
    if present(a[k]) then e[k] = a[k] end
  end
  for _, k in ipairs{ "args", "roots", "enabledTools", "disabledTools" } do
    if type(e[k]) == "table" then e[k] = json.array(e[k]) end
  end
  if type(a.env_keys) == "table" then
    e.env = type(e.env) == "table" and e.env or {}
    for _, k in ipairs(a.env_keys) do
      if e.env[k] == nil then e.env[k] = { fromEnv = k } end
    end
  end
  return e
end

local function message(err)
  if type(err) == "table" then return tostring(err.message or err.kind) end
  return tostring(err)
end

local function failed(text)
  return { content = { { type = "text", text = text } }, isError = true }
end

local function sorted_keys(t)
  local out = {}
  for k in pairs(t or {}) do out[#out + 1] = k end
  table.sort(out)
  return json.array(out)
end

local function lines(s)
  local out = {}
  if s == "" then return out end
  -- (a local: gopher-lua's compiler fails on the call written inline)
  local text = s:gsub("\n$", "") .. "\n"
  for l in text:gmatch("(.-)\n") do out[#out + 1] = l end
  return out
end

-- M.diff(a, b [, context]) is a line diff of two texts: removed lines
-- "- ", added "+ ", up to context (2) unchanged lines around a change
-- "  ", and "  ..." between changes apart.
function M.diff(a, b, context)
  context = context or 2
  local x, y = lines(a), lines(b)
  -- The lines alike at both ends are set aside: an edit changes one
  -- entry, so the table below stays small however long the file.
  local pre, suf = 0, 0
  while pre < #x and pre < #y and x[pre + 1] == y[pre + 1] do pre = pre + 1 end
  while suf < #x - pre and suf < #y - pre and x[#x - suf] == y[#y - suf] do suf = suf + 1 end
  local n, m = #x - pre - suf, #y - pre - suf
  -- lcs[i][j]: the longest common subsequence of the middles from i, j.
  local lcs = {}
  for i = n + 1, 1, -1 do
    local row, below = {}, lcs[i + 1]
    for j = m + 1, 1, -1 do
      if i > n or j > m then row[j] = 0
      elseif x[pre + i] == y[pre + j] then row[j] = below[j + 1] + 1
      else row[j] = math.max(below[j], row[j + 1]) end
    end
    lcs[i] = row
  end
  local ops = {}
  for k = 1, pre do ops[#ops + 1] = { " ", x[k] } end
  local i, j = 1, 1
  while i <= n or j <= m do
    if i <= n and j <= m and x[pre + i] == y[pre + j] then
      ops[#ops + 1] = { " ", x[pre + i] }; i, j = i + 1, j + 1
    elseif i <= n and (j > m or lcs[i + 1][j] >= lcs[i][j + 1]) then
      ops[#ops + 1] = { "-", x[pre + i] }; i = i + 1 -- removals first, as diff does
    else
      ops[#ops + 1] = { "+", y[pre + j] }; j = j + 1
    end
  end
  for k = #x - suf + 1, #x do ops[#ops + 1] = { " ", x[k] } end
  local keep = {}
  for k, o in ipairs(ops) do
    if o[1] ~= " " then
      for d = math.max(1, k - context), math.min(#ops, k + context) do keep[d] = true end
    end
  end
  local out, gap = {}, false
  for k, o in ipairs(ops) do
    if not keep[k] then
      gap = true
    else
      if gap and #out > 0 then out[#out + 1] = "  ..." end
      gap = false
      out[#out + 1] = o[1] .. " " .. o[2]
    end
  end
  return table.concat(out, "\n")
end

-- M.preview_text(p) is what a person is shown of cat:preview's p: what
-- happens where, then the lines of the file that change.
function M.preview_text(p)
  local head = string.format("%s %q in %s", p.op, p.name, p.path)
  if p.new_file then
    head = head .. " (a new file)"
  elseif not p.changed then
    return head .. ": no change (the file already says so)"
  elseif p.relaid then
    head = head .. " (the other entries are rewritten in the catalog's layout, their values unchanged)"
  end
  return head .. ":\n" .. M.diff(p.before, p.after)
end

-- M.tools(opts) are the agent's tools over opts.catalog.
function M.tools(opts)
  local cat = opts.catalog or mcp.catalog()
  local confirm, on_saved = opts.confirm, opts.on_saved

  local function preview(change)
    local ok, p = pcall(cat.preview, cat, change)
    if not ok then return nil, message(p) end
    p.text = M.preview_text(p)
    return p
  end

  -- write previews change, asks the person and saves what they confirm.
  local function write(change)
    local p, err = preview(change)
    if not p then
      return failed("not valid, nothing was saved: " .. err .. "\nFix it and try again.")
    end
    if not p.changed then
      return "nothing to save: the catalog already has this (" .. p.op .. " " .. p.name .. ")"
    end
    if not confirm then
      return failed("nobody can confirm a change here, so nothing was saved")
    end
    if not confirm(p.text, p.op, p.name) then
      return "the user declined: nothing was saved. Ask what they want changed."
    end
    local ok, aerr = pcall(cat.apply, cat, p)
    if not ok then return failed("saving failed, nothing was saved: " .. message(aerr)) end
    local note = on_saved and on_saved(p.name, p.op)
    return "saved (the user confirmed): " .. p.op .. " " .. p.name .. (note and note ~= "" and ("; " .. note) or "")
  end

  local read_only = { readOnlyHint = true }
  return {
    { name = "list_servers", description = "The catalog's servers: name, transport, enabled, url or command and args, env and header names (never values).",
      input = {}, annotations = read_only,
      handler = function()
        local out = {}
        for _, s in ipairs(cat:list()) do
          out[#out + 1] = { name = s.name, transport = s.transport, enabled = s.enabled, url = s.url,
            command = s.command, args = s.args, env_keys = s.envKeys, header_names = s.headers and sorted_keys(s.headers) }
        end
        return { servers = json.array(out) }
      end },
    { name = "show_server", description = "One entry as config.json holds it (env and header values as <hidden>).",
      input = { name = "string" }, annotations = read_only,
      handler = function(a)
        local text = cat:show(a.name)
        if not text then return failed("no server named " .. tostring(a.name) .. ": list_servers shows the names") end
        return text
      end },
    { name = "propose_server", description = "Check an entry with the catalog's rules and show the change saving it would make. Saves nothing.",
      input = ENTRY_INPUT, annotations = read_only,
      handler = function(a)
        local p, err = preview{ op = "save", name = a.name, entry = entry_of(a) }
        if not p then return failed("not valid: " .. err .. "\nFix the arguments and propose again.") end
        return p.text .. "\n(nothing is saved yet: save_server with the same arguments asks the user to confirm)"
      end },
    { name = "save_server", description = "Add the entry, or replace the one of that name; the user sees the change and confirms it first.",
      input = ENTRY_INPUT,
      handler = function(a) return write{ op = "save", name = a.name, entry = entry_of(a) } end },
    { name = "remove_server", description = "Remove an entry; the user confirms first.",
      input = { name = "string" },
      handler = function(a) return write{ op = "remove", name = a.name } end },
    { name = "enable_server", description = "Enable (enabled = true) or disable (false) an entry without removing it; the user confirms first.",
      input = { name = "string", enabled = "boolean" },
      handler = function(a) return write{ op = a.enabled and "enable" or "disable", name = a.name } end },
  }
end

-- M.new{model=, catalog=, confirm=, on_saved=, max_turns=} is the agent.
-- Its tools decide for themselves (the writes ask the person), so its
-- policy allows them; it has no MCP servers of its own.
function M.new(opts)
  opts = opts or {}
  return agent.new{
    name = "meta",
    description = "the catalog agent (/meta)",
    model = opts.model,
    hub = false,
    system = M.system,
    tools = M.tools(opts),
    max_turns = opts.max_turns or 20,
    approve = function() return "allow", "the catalog agent's writes ask the user themselves" end,
  }
end

return M
