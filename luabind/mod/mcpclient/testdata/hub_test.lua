-- mcp.hub: the live connections of a catalog, from Lua.
local function servers()
  return {
    one = { command = FAKE, args = { "-era", "legacy" }, startupTimeoutSeconds = 20 },
    two = { command = FAKE, args = { "-era", "modern" }, startupTimeoutSeconds = 20 },
    off = { command = FAKE, enabled = false },
    crash = { command = "sh", args = { "-c", "echo 'boom: bad config' >&2; exit 3" } },
  }
end

-- eventually waits (at most 10 s) until ok() holds: events reach Lua as
-- tasks posted from the hub's goroutines.
local function eventually(ok)
  task.timeout(10, function()
    while not ok() do task.sleep(0.005) end
  end)
end

local function by_name(list)
  local m = {}
  for _, s in ipairs(list) do m[s.name] = s end
  return m
end

test("hub: status, wait, tools, search, call", function()
  -- wait = false: return at once, so the status events come after on().
  local hub = mcp.hub{ servers = servers(), wait = false }
  local heard = {}
  hub:on("status", function(s) heard[s.name .. ":" .. s.status] = true end)
  local st = by_name(hub:wait())
  expect.eq(st.one.status, "ready")
  expect.eq(st.two.status, "ready")
  expect.eq(st.two.era, "modern")
  expect.eq(st.off.status, "disabled")
  expect.eq(st.crash.status, "failed")
  expect.eq(st.crash.error.kind, "process")
  expect.match(table.concat(st.crash.stderr, "\n"), "boom: bad config", true)
  expect.eq(st.one.instructions, "a fake server for tests")
  expect.eq(hub:instructions().two, "a fake server for tests")

  local tools, partial = hub:tools()
  expect.falsy(partial)
  local names = {}
  for _, t in ipairs(tools) do names[t.name] = t end
  expect.truthy(names.one__echo and names.two__echo)
  expect.eq(names.one__echo.server, "one")
  expect.eq(names.one__echo.tool, "echo")
  expect.truthy(#names.one__echo.schema_hash > 0)
  expect.eq(names.one__echo.inputSchema.type, "object")

  local found = hub:search("echo", { server = "two", limit = 1 })
  expect.eq(#found, 1)
  expect.eq(found[1].name, "two__echo")

  local r = hub:call("one__echo", { message = "hi" })
  expect.eq(r.content[1].text, "hi")
  local err = expect.error(function() hub:call("one__nope", {}) end)
  expect.eq(err.kind, "not_found")
  err = expect.error(function() hub:call("one__echo", { message = "x" }, { schema_hash = "stale" }) end, "search the tools again")
  expect.eq(err.kind, "invalid")

  eventually(function() return heard["one:ready"] and heard["crash:failed"] end)
  hub:close()
end)

test("hub: server(name), list_changed, restart, reload", function()
  local hub = mcp.hub{ servers = servers() }
  hub:wait()
  local c = hub:server("one")
  expect.match(tostring(c), "mcp connection \"one\"", true)
  local changed, refreshed = false, false
  c:on("tools_changed", function() changed = true end)
  hub:on("tools", function(s) if s.name == "one" then refreshed = true end end)
  expect.eq(c:call("notify").content[1].text, "notified")
  eventually(function() return changed and refreshed end) -- the connection's handler and the hub's refresh
  c:close() -- borrowed: the hub keeps it
  expect.eq(hub:call("one__echo", { message = "still" }).content[1].text, "still")

  expect.error(function() hub:server("crash") end, "failed")
  hub:restart("one")
  expect.eq(by_name(hub:wait()).one.status, "ready")

  local fewer = servers()
  fewer.two = nil
  hub:reload(fewer)
  local st = by_name(hub:status())
  expect.eq(st.two, nil)
  expect.eq(st.one.status, "ready")
  hub:close()
end)

test("hub: resources, prompts, read, prompt", function()
  local hub = mcp.hub{ servers = { one = { command = FAKE, args = { "-era", "legacy" } } } }
  hub:wait()
  local res = hub:resources()
  expect.truthy(#res > 0)
  expect.eq(res[1].server, "one")
  local got = hub:read("one", res[1].uri)
  expect.truthy(got.contents)
  local ps = hub:prompts{ server = "one" }
  expect.truthy(#ps > 0)
  expect.eq(ps[1].server, "one")
  hub:close()
end)

test("hub: bad options say what to do", function()
  expect.error(function() mcp.hub{ servers = { ["bad name!"] = { command = "x" } } } end, "bad name!")
  expect.error(function() mcp.hub{ servers = { a = { command = "x", url = "http://127.0.0.1:1/mcp" } } } end)
  expect.error(function() mcp.hub{ path = "/nonexistent/dir/config.json", servers = {} } end, "not both")
end)

test("hub: from a catalog file, reload re-reads it", function()
  local path = os.tmpname()
  local function write(names)
    local parts = {}
    for _, n in ipairs(names) do
      parts[#parts + 1] = string.format('%q: {"command": %q, "args": ["-era", "legacy"]}', n, FAKE)
    end
    local f = assert(io.open(path, "w"))
    f:write('{"version": 1, "mcpServers": {' .. table.concat(parts, ", ") .. '}}')
    f:close()
  end
  write({ "one" })
  local hub = mcp.hub{ path = path }
  expect.eq(#hub:wait(), 1)
  write({ "one", "two" })
  hub:reload()
  local st = by_name(hub:wait())
  expect.eq(st.two.status, "ready")
  expect.eq(hub:call("two__echo", { message = "from the file" }).content[1].text, "from the file")
  hub:close()
  os.remove(path)
  local f = assert(io.open(path, "w"))
  f:write("{ not json")
  f:close()
  expect.error(function() mcp.hub{ path = path } end, path)
  os.remove(path)
end)

test("mcp.catalog: read, add, disable, remove; a hub over it", function()
  local path = os.tmpname()
  os.remove(path)
  local cat = mcp.catalog(path)
  expect.eq(#cat:list(), 0)
  cat:add("one", { command = FAKE, args = { "-era", "legacy" }, env = { TOKEN = "secret-value" } })
  cat:add("web", { url = "https://example.com/mcp", headers = { Authorization = "Bearer t" } })
  local err = expect.error(function() cat:add("one", { command = "x" }) end, "already")
  expect.eq(err.kind, "invalid")
  cat:add("one", { command = FAKE, args = { "-era", "modern" }, env = { TOKEN = "secret-value" } }, { force = true })
  local one = cat:get("one")
  expect.eq(one.transport, "stdio")
  expect.eq(one.args[2], "modern")
  expect.eq(one.envKeys, { "TOKEN" })
  expect.eq(one.env, nil)
  expect.eq(cat:get("web").headers.Authorization, "…")
  cat:disable("web")
  expect.eq(cat:get("web").enabled, false)
  local hub = mcp.hub{ path = path }
  local st = by_name(hub:wait())
  expect.eq(st.one.status, "ready")
  expect.eq(st.web.status, "disabled")
  hub:close()
  cat:remove("web")
  expect.eq(#cat:list(), 1)
  expect.eq(expect.error(function() cat:remove("web") end).kind, "not_found")
  expect.error(function() cat:add("bad name", { command = "x" }) end, "bad name")
  os.remove(path)
end)

test("hub: a script's mcp.hub() waits for the servers (mcpInitStrategy auto, not interactive)", function()
  local hub = mcp.hub{ servers = servers() }
  local tools, partial = hub:tools()
  expect.falsy(partial)
  local st = by_name(hub:status())
  expect.eq(st.one.status, "ready")
  expect.eq(st.crash.status, "failed")
  expect.eq(hub:call("two__echo", { message = "no wait() needed" }).content[1].text, "no wait() needed")
  -- A status handler registered after the servers settled hears where
  -- each one is now.
  local heard = {}
  hub:on("status", function(s) heard[s.name] = s.status end)
  eventually(function() return heard.one and heard.crash end)
  expect.eq(heard.one, "ready")
  expect.eq(heard.crash, "failed")
  hub:close()
end)

test("hub: mcpInitStrategy progressive returns at once; wait = true overrides it", function()
  local dir = os.tmpname()
  os.remove(dir)
  local path = dir .. ".json"
  local f = assert(io.open(path, "w"))
  f:write(json.encode({ version = 1, mcpInitStrategy = "progressive", mcpServers = {
    slow = { command = FAKE, args = { "-era", "legacy", "-start-delay", "300ms" } } } }))
  f:close()
  local hub = mcp.hub{ path = path }
  expect.eq(hub:status()[1].status, "connecting")
  local _, partial = hub:tools()
  expect.truthy(partial)
  hub:close()
  hub = mcp.hub{ path = path, wait = true }
  expect.eq(hub:status()[1].status, "ready")
  hub:close()
  os.remove(path)
end)

test("hub: on_elicit and on_sample are told which server asks", function()
  local asked = {}
  local hub = mcp.hub{
    servers = { legacy = { command = FAKE, args = { "-era", "legacy" }, startupTimeoutSeconds = 20, sampling = true },
                modern = { command = FAKE, args = { "-era", "modern" }, startupTimeoutSeconds = 20, sampling = true } },
    on_elicit = function(p, server)
      asked[#asked + 1] = "elicit:" .. server
      return { action = "accept", content = { name = "Ada" } }
    end,
    on_sample = function(p, server)
      asked[#asked + 1] = "sample:" .. server
      return { role = "assistant", content = { type = "text", text = "hi" }, model = "lua" }
    end,
  }
  for _, s in ipairs({ "legacy", "modern" }) do
    expect.falsy(hub:call(s .. "__ask", {}).isError)
    expect.falsy(hub:call(s .. "__sample", {}).isError)
  end
  expect.eq(asked, { "elicit:legacy", "sample:legacy", "elicit:modern", "sample:modern" })
  hub:close()
end)

test("hub: start = {...} spawns only those; hub:start starts more", function()
  local marker = os.tmpname()
  os.remove(marker)
  local s = servers()
  s.never = { command = "sh", args = { "-c", "touch " .. marker .. "; exec sleep 1000" } }
  local hub = mcp.hub{ servers = s, start = { "one" }, wait = true }
  local st = by_name(hub:status())
  expect.eq(st.one.status, "ready")
  expect.eq(st.two.status, "stopped")
  expect.eq(st.never.status, "stopped")
  expect.falsy(io.open(marker), "a server not named was spawned")
  hub:start({ "two", "not-in-the-catalog" })
  st = by_name(hub:status())
  expect.eq(st.two.status, "ready")
  expect.eq(st.never.status, "stopped")
  expect.falsy(io.open(marker))
  expect.error(function() hub:start("two") end, "must be a list of server names")
  expect.error(function() mcp.hub{ servers = s, start = { 1 } } end, "must be a list of server names")
  hub:close()
  os.remove(marker)
end)
