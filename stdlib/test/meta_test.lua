-- The catalog agent (stdlib/meta.lua) with scripted models: each model
-- is a list of steps, one per model call; a step is a function(last)
-- returning the response, where last is the last message's text (a tool
-- result, or the prompt).
local meta = require("meta")

local SECRET = "s3cr3t-Value-42"

local function tmp_catalog(content)
  local path = os.tmpname()
  os.remove(path)
  if content then
    local f = assert(io.open(path, "w")); f:write(content); f:close()
  end
  return path
end

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a"); f:close()
  return s
end

-- scripted(steps) is a model and the list of texts it was shown.
local function scripted(steps)
  local seen, n = {}, 0
  return function(req)
    local last = req.messages[#req.messages]
    local text = last.parts and last.parts[1] and last.parts[1].text or ""
    seen[#seen + 1] = text
    n = n + 1
    local step = steps[n]
    if not step then return { text = "out of steps" } end
    return step(text)
  end, seen
end

local function call(name, args)
  return function() return { tool_calls = { { name = name, arguments = args } } } end
end

local docs = { name = "docs", url = "https://example.com/mcp", headers = { Authorization = "Bearer " .. SECRET } }

test("propose, preview, confirm: the entry is saved and nothing shows the secret", function()
  local path = tmp_catalog()
  local model, seen = scripted{ call("propose_server", docs), call("save_server", docs), function() return { text = "added docs" } end }
  local shown = {}
  local a = meta.new{ model = model, catalog = mcp.catalog(path),
    confirm = function(text, op, name) shown[#shown + 1] = text; expect.eq(op, "add"); expect.eq(name, "docs"); return true end,
    on_saved = function(name, op) return name .. " is starting" end }
  expect.eq(a:ask("add the MCP server at https://example.com/mcp"), "added docs")
  expect.eq(#shown, 1)
  expect.match(shown[1], 'add "docs" in ')
  expect.match(shown[1], '%+     "docs": {\n%+       "url": "https://example.com/mcp",')
  expect.match(shown[1], '"Authorization": "<hidden>"')
  -- The proposal showed the same change, and saving said so.
  expect.match(seen[2], '"url": "https://example.com/mcp"')
  expect.match(seen[2], "nothing is saved yet")
  expect.match(seen[3], "^saved %(the user confirmed%): add docs; docs is starting")
  for _, s in ipairs(seen) do expect.falsy(s:find(SECRET, 1, true)) end
  expect.falsy(shown[1]:find(SECRET, 1, true))
  -- On disk: the entry, with its secret, read back by the catalog.
  local e = mcp.catalog(path):get("docs")
  expect.eq(e.url, "https://example.com/mcp")
  expect.eq(e.transport, "http")
  expect.truthy(read(path):find(SECRET, 1, true))
  os.remove(path)
end)

test("declined: the file stays byte for byte and the model hears it", function()
  local before = '{"version": 1, "mcpServers": {"a": {"command": "x", "env": {"TOKEN": "' .. SECRET .. '"}}}}'
  local path = tmp_catalog(before)
  local stdio = { name = "fs", command = "npx", args = { "-y", "server-filesystem", "." }, env = { KEY = SECRET .. "x" } }
  local model, seen = scripted{ call("save_server", stdio), call("remove_server", { name = "a" }), function() return { text = "ok" } end }
  local shown = {}
  local a = meta.new{ model = model, catalog = mcp.catalog(path), confirm = function(text) shown[#shown + 1] = text; return false end }
  a:ask("add a filesystem server, and remove a")
  expect.eq(read(path), before)
  expect.match(seen[2], "^the user declined: nothing was saved")
  expect.match(seen[3], "^the user declined: nothing was saved")
  expect.eq(#shown, 2)
  expect.match(shown[1], '"KEY": "<hidden>"')
  expect.match(shown[1], '"args": %["%-y", "server%-filesystem", "."%]')
  -- The other entries are shown as they will be written: the file was
  -- one line, and saving lays it out.
  expect.match(shown[1], "rewritten in the catalog's layout")
  expect.match(shown[2], 'remove "a"')
  expect.match(shown[2], '%-     "a": {')
  for _, s in ipairs(shown) do expect.falsy(s:find(SECRET, 1, true)) end
  os.remove(path)
end)

test("an invalid proposal: the catalog's error reaches the model, which fixes it", function()
  local path = tmp_catalog()
  local model, seen = scripted{
    call("propose_server", { name = "my docs", url = "ftp://example.com" }),
    function(last)
      expect.match(last, "^not valid:")
      expect.match(last, "must be an http or https URL")
      expect.match(last, "the name must be 1 to 64 letters")
      return { tool_calls = { { name = "save_server", arguments = { name = "my-docs", url = "https://example.com/mcp" } } } }
    end,
    function() return { text = "saved" } end }
  local a = meta.new{ model = model, catalog = mcp.catalog(path), confirm = function() return true end }
  a:ask("add my docs")
  expect.match(seen[3], "^saved")
  expect.eq(mcp.catalog(path):get("my-docs").url, "https://example.com/mcp")
  expect.eq(mcp.catalog(path):get("my docs"), nil)
  os.remove(path)
end)

test("list and show give names, never values; enable, disable and replace are confirmed", function()
  local path = tmp_catalog('{"version": 1, "mcpServers": {"a": {"command": "x", "args": ["1"], "env": {"TOKEN": "' .. SECRET .. '", "REF": {"fromEnv": "HOME"}}}}}')
  local model, seen = scripted{
    call("list_servers", {}),
    call("show_server", { name = "a" }),
    call("enable_server", { name = "a", enabled = false }),
    call("enable_server", { name = "a", enabled = false }),
    call("save_server", { name = "a", command = "y", env_keys = { "TOKEN" } }),
    call("show_server", { name = "nope" }),
    function() return { text = "done" } end }
  local ops = {}
  local a = meta.new{ model = model, catalog = mcp.catalog(path), confirm = function(text, op) ops[#ops + 1] = op; return true end }
  a:ask("look around")
  local list = json.decode(seen[2])
  expect.eq(list.servers[1].name, "a")
  expect.eq(list.servers[1].env_keys, { "REF", "TOKEN" })
  expect.match(seen[3], '"TOKEN": "<hidden>"')
  expect.match(seen[3], '"REF": {"fromEnv": "HOME"}')
  expect.match(seen[4], "^saved %(the user confirmed%): disable a")
  expect.match(seen[5], "^nothing to save: the catalog already has this")
  expect.match(seen[6], "^saved %(the user confirmed%): replace a")
  expect.match(seen[7], "no server named nope")
  for _, s in ipairs(seen) do expect.falsy(s:find(SECRET, 1, true)) end
  expect.eq(ops, { "disable", "replace" })
  local e = mcp.catalog(path):get("a")
  expect.eq(e.command, "y")
  expect.eq(e.envKeys, { "TOKEN" })
  expect.eq(e.enabled, true) -- the replacement said nothing of enabled
  expect.match(read(path), '"TOKEN": {%s*"fromEnv": "TOKEN"%s*}')
  os.remove(path)
end)

test("roots as a list and tool filters reach the file as config.json names them", function()
  local path = tmp_catalog()
  local fs = { name = "fs", command = "fs-server", roots = { "~/notes", "." }, enabledTools = { "read_*" }, disabledTools = { "read_secret" } }
  local gh = { name = "gh", url = "https://example.com/mcp", roots = true, env = { MCP_ACCESS_TOKEN = { fromEnv = "GH_TOKEN" } } }
  local model = scripted{ call("save_server", fs), call("save_server", gh), function() return { text = "ok" } end }
  local a = meta.new{ model = model, catalog = mcp.catalog(path), confirm = function() return true end }
  a:ask("add fs and gh")
  local text = read(path)
  expect.match(text, '"roots": %["~/notes", "%."%]')
  expect.match(text, '"enabledTools": %["read_%*"%]')
  expect.match(text, '"disabledTools": %["read_secret"%]')
  expect.match(text, '"roots": true')
  expect.match(text, '"MCP_ACCESS_TOKEN": {%s*"fromEnv": "GH_TOKEN"%s*}')
  local e = mcp.catalog(path):get("fs")
  expect.eq(e.command, "fs-server")
  os.remove(path)
end)

test("diff: changed lines with two lines of context, hunks apart", function()
  for _, c in ipairs{
    { "a\nb\n", "a\nb\n", "" },
    { "1\n2\n3\n4\n5\n6\n", "1\n2\n3\nx\n4\n5\n6\n", "  2\n  3\n+ x\n  4\n  5" },
    { "1\n2\n3\n", "1\n2\n", "  1\n  2\n- 3" },
    { "a\nb\nc\n", "a\nB\nc\n", "  a\n- b\n+ B\n  c" },
    { "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "x\n2\n3\n4\n5\n6\n7\n8\ny\n", "- 1\n+ x\n  2\n  3\n  ...\n  7\n  8\n- 9\n+ y" },
    { "", "a\nb\n", "+ a\n+ b" },
    { "a\n", "", "- a" },
    { "a\nx\nb\n", "a\nb\nx\n", "  a\n- x\n  b\n+ x" },
  } do
    expect.eq(meta.diff(c[1], c[2]), c[3])
  end
end)
